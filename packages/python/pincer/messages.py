"""The messages of Pincer's episode service as Python values: what a call returns (episodes, steps,
observations, verdicts) and what an agent's action becomes (:func:`to_action`). :mod:`pincer.client`
re-exports all of them."""
from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any, Dict, List, Mapping, Optional, Tuple, Union

import grpc

try:
    from ._proto import episodes_pb2, screen_pb2
except ImportError as e:  # pragma: no cover - a checkout without the generated stubs
    raise ImportError(
        "pincer: the gRPC stubs (pincer/_proto) are missing; generate them from proto/ with "
        "`npm run build:python` (or `python3 packages/python/build_stubs.py`)"
    ) from e

SPECIAL_ACTIONS = ("WAIT", "DONE", "FAIL")
_SPECIAL = {
    "WAIT": episodes_pb2.Action.SPECIAL_WAIT,
    "DONE": episodes_pb2.Action.SPECIAL_DONE,
    "FAIL": episodes_pb2.Action.SPECIAL_FAIL,
}
_FORMATS = {
    "png": screen_pb2.IMAGE_FORMAT_PNG,
    "jpeg": screen_pb2.IMAGE_FORMAT_JPEG,
    "jpg": screen_pb2.IMAGE_FORMAT_JPEG,
    "webp": screen_pb2.IMAGE_FORMAT_WEBP,
}
_ACCESSIBILITY = {
    "none": episodes_pb2.ACCESSIBILITY_FORM_NONE,
    "text": episodes_pb2.ACCESSIBILITY_FORM_TEXT,
    "osworld_xml": episodes_pb2.ACCESSIBILITY_FORM_OSWORLD_XML,
    "xml": episodes_pb2.ACCESSIBILITY_FORM_OSWORLD_XML,
}
#: The computer-use action spaces and the Action field each one's JSON goes in.
_COMPUTER_USE = {"anthropic_computer": "anthropic_computer_json", "openai_computer": "openai_computer_json"}


class PincerError(Exception):
    """A call of the episode service failed: ``code`` is the gRPC status (``grpc.StatusCode``),
    ``details`` the server's message, ``method`` the RPC ("Step", ...)."""

    def __init__(self, code: grpc.StatusCode, details: str, method: str = ""):
        self.code = code
        self.details = details
        self.method = method
        name = code.name if isinstance(code, grpc.StatusCode) else str(code)
        super().__init__(f"{method + ': ' if method else ''}{name}: {details}")

    @classmethod
    def from_rpc_error(cls, err: grpc.RpcError, method: str = "") -> "PincerError":
        code = err.code() if hasattr(err, "code") else grpc.StatusCode.UNKNOWN
        details = err.details() if hasattr(err, "details") else str(err)
        return cls(code, details or "", method)


# --- Observations -------------------------------------------------------------------------------


@dataclass(frozen=True)
class ObservationOptions:
    """What an observation contains: a screenshot (``format`` "png", "jpeg" or "webp", downscaled to
    fit ``max_width`` x ``max_height`` when given), an accessibility tree (``accessibility``
    "none", "text" (Pincer's text form) or "osworld_xml"), and with ``set_of_marks`` the tree's
    interactive elements numbered, listed in ``marks`` and drawn on the screenshot."""

    screenshot: bool = True
    format: str = "png"
    max_width: int = 0
    max_height: int = 0
    accessibility: str = "none"
    set_of_marks: bool = False

    def to_proto(self) -> episodes_pb2.ObservationOptions:
        fmt = _FORMATS.get(self.format.lower())
        if fmt is None:
            raise ValueError(f"pincer: unknown screenshot format {self.format!r}: give one of png, jpeg, webp")
        tree = _ACCESSIBILITY.get(self.accessibility.lower())
        if tree is None:
            raise ValueError(f"pincer: unknown accessibility form {self.accessibility!r}: give one of none, text, osworld_xml")
        return episodes_pb2.ObservationOptions(
            screenshot=self.screenshot,
            format=fmt,
            max_width=self.max_width,
            max_height=self.max_height,
            accessibility=tree,
            set_of_marks=self.set_of_marks,
        )

    @classmethod
    def of(cls, value: "ObservationLike") -> "ObservationOptions":
        """Options from ``None`` (a PNG screenshot), an ObservationOptions, a dict of its fields, or an
        OSWorld observation type: "screenshot", "a11y_tree", "screenshot_a11y_tree" (OSWorld's XML),
        "a11y_text"/"screenshot_a11y_text" (Pincer's text form) or "som" (set-of-marks: the marks
        drawn on the screenshot and listed, the text form numbered as they are)."""
        if value is None:
            return cls()
        if isinstance(value, ObservationOptions):
            return value
        if isinstance(value, Mapping):
            return cls(**value)
        if isinstance(value, str):
            named = {
                "screenshot": cls(),
                "a11y_tree": cls(screenshot=False, accessibility="osworld_xml"),
                "screenshot_a11y_tree": cls(accessibility="osworld_xml"),
                "a11y_text": cls(screenshot=False, accessibility="text"),
                "screenshot_a11y_text": cls(accessibility="text"),
                "som": cls(accessibility="text", set_of_marks=True),
                "none": cls(screenshot=False),
            }
            if value in named:
                return named[value]
            raise ValueError(f"pincer: unknown observation {value!r}: give one of {', '.join(named)}, a dict or ObservationOptions")
        raise TypeError(f"pincer: observation must be None, a str, a dict or ObservationOptions, not {type(value).__name__}")


ObservationLike = Union[None, str, Mapping[str, Any], ObservationOptions]


@dataclass(frozen=True)
class Mark:
    """One numbered element of a set-of-marks observation: ``id`` as drawn on the screenshot, its box
    ``bounds`` (x, y, width, height) in screen pixels, its accessibility ``role`` ("push-button") and ``name``."""

    id: int
    bounds: Tuple[int, int, int, int]
    role: str
    name: str

    @classmethod
    def from_proto(cls, m: episodes_pb2.Mark) -> "Mark":
        b = m.bounds
        return cls(m.id, (b.x, b.y, b.width, b.height), m.role, m.name)

    def to_dict(self) -> Dict[str, Any]:
        return {"id": self.id, "bounds": self.bounds, "role": self.role, "name": self.name}


@dataclass(frozen=True)
class EnvironmentObservation:
    """One environment (machine) of the episode now. ``source`` is the screen region (x, y, width,
    height) the screenshot shows; a point (x, y) of the image is at (source.x + x / scale,
    source.y + y / scale) on the screen. ``accessibility_error`` says why the tree could not be read
    (it is then empty); ``marks`` are the set-of-marks elements, when asked for."""

    name: str
    screenshot: bytes
    mime_type: str
    width: int
    height: int
    source: Tuple[int, int, int, int]
    scale: float
    accessibility_tree: str
    accessibility_error: str = ""
    marks: Tuple[Mark, ...] = ()

    @classmethod
    def from_proto(cls, m: episodes_pb2.EnvironmentObservation) -> "EnvironmentObservation":
        s = m.source
        return cls(
            m.name,
            bytes(m.screenshot),
            m.mime_type,
            m.width,
            m.height,
            (s.x, s.y, s.width, s.height),
            m.scale,
            m.accessibility_tree,
            m.accessibility_error,
            tuple(Mark.from_proto(k) for k in m.marks),
        )

    def to_dict(self) -> Dict[str, Any]:
        """The Gymnasium-style observation of this environment."""
        return {
            "screenshot": self.screenshot,
            "mime_type": self.mime_type,
            "width": self.width,
            "height": self.height,
            "source": self.source,
            "scale": self.scale,
            "accessibility_tree": self.accessibility_tree or None,
            "accessibility_error": self.accessibility_error or None,
            "marks": [k.to_dict() for k in self.marks],
        }


@dataclass(frozen=True)
class Observation:
    """The screens of the episode's environments at one step (``step`` steps taken before it)."""

    step: int
    environments: Tuple[EnvironmentObservation, ...]

    @classmethod
    def from_proto(cls, m: episodes_pb2.Observation) -> "Observation":
        return cls(m.step, tuple(EnvironmentObservation.from_proto(e) for e in m.environments))

    def __getitem__(self, name: str) -> EnvironmentObservation:
        for env in self.environments:
            if env.name == name:
                return env
        raise KeyError(name)

    @property
    def names(self) -> List[str]:
        return [e.name for e in self.environments]

    def to_dict(self) -> Dict[str, Dict[str, Any]]:
        """``{environment name: {screenshot, mime_type, width, height, source, scale, accessibility_tree,
        accessibility_error, marks}}``."""
        return {e.name: e.to_dict() for e in self.environments}


# --- Results ------------------------------------------------------------------------------------


@dataclass(frozen=True)
class NodeVerdict:
    """One node of the task's evaluator: ``status`` is "pass", "fail", "pending", "error" or "skipped"."""

    node: str
    status: str
    score: float
    reason: str

    @classmethod
    def from_proto(cls, m: episodes_pb2.NodeVerdict) -> "NodeVerdict":
        return cls(m.node, m.status, m.score, m.reason)

    def to_dict(self) -> Dict[str, Any]:
        return {"node": self.node, "status": self.status, "score": self.score, "reason": self.reason}


@dataclass(frozen=True)
class TaskInfo:
    id: str
    instruction: str
    tags: Tuple[str, ...]
    environments: Tuple[str, ...]
    action_spaces: Tuple[str, ...]
    max_steps: int

    @classmethod
    def from_proto(cls, m: episodes_pb2.TaskInfo) -> "TaskInfo":
        return cls(m.id, m.instruction, tuple(m.tags), tuple(m.environments), tuple(m.action_spaces), m.max_steps)


@dataclass(frozen=True)
class MachineGrant:
    """Direct access to one machine of an episode (``pincer serve --grant-machines``): its daemon's
    services at ``address`` (the server's) with ``token``, until the episode closes. See :meth:`Client.machine`."""

    environment: str
    address: str
    token: str


@dataclass(frozen=True)
class Episode:
    """A started episode. ``tools`` are the names a tool call may use, ``tool_specs`` their
    ``{"name", "description", "parameters"}``; ``done`` is set when its setup failed already."""

    episode_id: str
    task_id: str
    instruction: str
    observation: Optional[Observation]
    max_steps: int
    tools: Tuple[str, ...]
    lease_seconds: int
    tool_specs: Tuple[Dict[str, Any], ...] = ()
    done: bool = False
    end_reason: str = ""
    machines: Tuple[MachineGrant, ...] = ()
    group_index: int = -1

    @classmethod
    def from_proto(cls, m: episodes_pb2.StartEpisodeResponse) -> "Episode":
        specs: Tuple[Dict[str, Any], ...] = ()
        if m.tools_json:
            try:
                specs = tuple(json.loads(m.tools_json))
            except ValueError:
                specs = ()
        return cls(
            episode_id=m.episode_id,
            task_id=m.task_id,
            instruction=m.instruction,
            observation=Observation.from_proto(m.observation) if m.HasField("observation") else None,
            max_steps=m.max_steps,
            tools=tuple(m.tools),
            lease_seconds=m.lease_seconds,
            tool_specs=specs,
            done=m.done,
            end_reason=m.end_reason,
            machines=tuple(MachineGrant(g.environment, g.address, g.token) for g in m.machines),
        )


@dataclass(frozen=True)
class StepResult:
    """What a step did: ``observation`` is None once the episode is done; ``error`` is the action's
    error when it failed (the episode may go on); ``result`` what the action returned (a command's
    exit code and output, a file's text; bytes as their size), None when nothing or a failure."""

    observation: Optional[Observation]
    reward: float
    done: bool
    terminated: bool
    truncated: bool
    end_reason: str
    error: str
    nodes: Tuple[NodeVerdict, ...]
    step: int
    result: Any = None

    @classmethod
    def from_proto(cls, m: episodes_pb2.StepResponse) -> "StepResult":
        return cls(
            observation=Observation.from_proto(m.observation) if m.HasField("observation") else None,
            reward=m.reward,
            done=m.done,
            terminated=m.terminated,
            truncated=m.truncated,
            end_reason=m.end_reason,
            error=m.error,
            nodes=tuple(NodeVerdict.from_proto(n) for n in m.nodes),
            step=m.step,
            result=json.loads(m.result_json) if m.result_json else None,
        )


@dataclass(frozen=True)
class Evaluation:
    score: float
    reason: str
    success: bool
    nodes: Tuple[NodeVerdict, ...]

    @classmethod
    def from_proto(cls, m: episodes_pb2.EvaluateResponse) -> "Evaluation":
        return cls(m.score, m.reason, m.success, tuple(NodeVerdict.from_proto(n) for n in m.nodes))


@dataclass(frozen=True)
class CloseResult:
    """The attempt as the server recorded it: ``state`` ("passed", "failed", "env_error", ...), the
    final ``score``, its folder on the server's host and why the episode ended."""

    state: str
    score: float
    attempt_dir: str
    end_reason: str

    @classmethod
    def from_proto(cls, m: episodes_pb2.CloseEpisodeResponse) -> "CloseResult":
        return cls(m.state, m.score, m.attempt_dir, m.end_reason)


# --- Actions ------------------------------------------------------------------------------------

ActionLike = Union[str, Mapping[str, Any], episodes_pb2.Action]


def to_action(action: ActionLike, action_space: Optional[str] = None) -> episodes_pb2.Action:
    """An ``Action`` message from what an agent gives:

    - "WAIT", "DONE" or "FAIL" (or ``{"action_type": "DONE"}``): a special action;
    - ``{"name": "desktop__click", "arguments": {...}}`` (arguments a dict or a JSON string): a tool call;
    - ``{"action_type": "CLICK", "parameters": {...}}``: one action of OSWorld's computer_13;
    - under action_space "anthropic_computer", the input of Anthropic's ``computer`` tool
      (``{"action": "left_click", "coordinate": [x, y]}``) or the whole tool_use block holding it;
    - under action_space "openai_computer", the ``action`` of an OpenAI ``computer_call``
      (``{"type": "click", "x": 1, "y": 2}``) or the whole computer_call item holding it;
    - any other string: pyautogui code (the action's JSON under action_space "computer_13",
      "anthropic_computer" or "openai_computer");
    - an ``episodes_pb2.Action``: as it is.

    Computer-use coordinates are screen pixels. ``action_space`` ("tool_call", "pyautogui",
    "computer_13", "anthropic_computer" or "openai_computer"), when given, refuses the other kinds
    (special actions go in every space) with a ValueError.
    """
    if isinstance(action, episodes_pb2.Action):
        return action
    if isinstance(action, str):
        if action in _SPECIAL:
            return episodes_pb2.Action(special=_SPECIAL[action])
        if action_space == "computer_13":
            return episodes_pb2.Action(computer_13_json=action)
        if action_space in _COMPUTER_USE:
            return episodes_pb2.Action(**{_COMPUTER_USE[action_space]: action})
        if action_space not in (None, "pyautogui"):
            raise ValueError(
                f"pincer: a string action is pyautogui code, but the action space is {action_space!r}: "
                'give a tool call {"name": ..., "arguments": {...}} or WAIT/DONE/FAIL'
            )
        return episodes_pb2.Action(pyautogui=action)
    if isinstance(action, Mapping):
        if action_space in _COMPUTER_USE and action.get("action_type") not in _SPECIAL:
            return _computer_use_action(action, action_space)
        if "action_type" in action:
            kind = action["action_type"]
            if kind in _SPECIAL:
                return episodes_pb2.Action(special=_SPECIAL[kind])
            if action_space not in (None, "computer_13"):
                raise ValueError(f"pincer: a computer_13 action ({kind}) in the action space {action_space!r}")
            return episodes_pb2.Action(computer_13_json=json.dumps(dict(action)))
        if "name" in action:
            if action_space not in (None, "tool_call"):
                raise ValueError(f"pincer: a tool call ({action['name']}) in the action space {action_space!r}")
            args = action.get("arguments", action.get("args", {}))
            if args is None:
                args = {}
            args_json = args if isinstance(args, str) else json.dumps(args)
            return episodes_pb2.Action(tool_call=episodes_pb2.ToolCall(name=str(action["name"]), arguments_json=args_json))
        raise ValueError(
            f"pincer: an action dict needs 'name' (a tool call) or 'action_type' (computer_13), got keys {sorted(action)}; "
            'for a computer-use action give action_space="anthropic_computer" or "openai_computer"'
        )
    raise TypeError(f"pincer: an action is a str, a dict or an Action message, not {type(action).__name__}")


def _computer_use_action(action: Mapping[str, Any], action_space: str) -> episodes_pb2.Action:
    """The Action of an Anthropic computer tool input (or the tool_use block holding it) or an OpenAI
    computer_call action (or the computer_call item holding it)."""
    if action_space == "anthropic_computer":
        inner, key = action.get("input"), "action"
    else:
        inner, key = action.get("action"), "type"
    body = inner if isinstance(inner, Mapping) else action
    if key not in body:
        raise ValueError(f"pincer: an {action_space} action needs {key!r}, got keys {sorted(body)}")
    return episodes_pb2.Action(**{_COMPUTER_USE[action_space]: json.dumps(dict(body))})


# --- The client ---------------------------------------------------------------------------------


