"""A typed client of Pincer's episode service (``pincer serve DATASET``, gRPC service ``pincer.v1.Episodes``).

>>> client = Client("127.0.0.1:50051", token=None)
>>> episode = client.start("write-greeting")
>>> result = client.step(episode.episode_id, {"name": "desktop__run_command", "arguments": {"command": "true"}})
>>> client.close(episode.episode_id)

While an episode is open (from ``start``/``start_group`` to ``close``) a background thread renews
its lease, so an agent that thinks for minutes between steps does not lose its machines. Every
failed call raises :class:`PincerError` carrying the gRPC status code and the server's message.
"""
from __future__ import annotations

import json
import os
import threading
import time
from dataclasses import dataclass
from typing import Any, Dict, List, Mapping, Optional, Tuple, Union

import grpc

try:
    from ._proto import common_pb2, episodes_pb2, episodes_pb2_grpc, screen_pb2
except ImportError as e:  # pragma: no cover - a checkout without the generated stubs
    raise ImportError(
        "pincer: the gRPC stubs (pincer/_proto) are missing; generate them from proto/ with "
        "`npm run build:python` (or `python3 packages/python/build_stubs.py`)"
    ) from e

__all__ = [
    "Client",
    "PincerError",
    "Episode",
    "StepResult",
    "Evaluation",
    "CloseResult",
    "NodeVerdict",
    "TaskInfo",
    "Observation",
    "EnvironmentObservation",
    "ObservationOptions",
    "SPECIAL_ACTIONS",
    "to_action",
    "episodes_pb2",
    "episodes_pb2_grpc",
]

#: The action strings that are not code: sent as ``Action.special``.
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
    fit ``max_width`` x ``max_height`` when given) and an accessibility tree (``accessibility``
    "none", "text" (Pincer's text form) or "osworld_xml")."""

    screenshot: bool = True
    format: str = "png"
    max_width: int = 0
    max_height: int = 0
    accessibility: str = "none"

    def to_proto(self) -> episodes_pb2.ObservationOptions:
        fmt = _FORMATS.get(self.format.lower())
        if fmt is None:
            raise ValueError(f"pincer: unknown screenshot format {self.format!r}: give one of png, jpeg, webp")
        tree = _ACCESSIBILITY.get(self.accessibility.lower())
        if tree is None:
            raise ValueError(f"pincer: unknown accessibility form {self.accessibility!r}: give one of none, text, osworld_xml")
        return episodes_pb2.ObservationOptions(
            screenshot=self.screenshot, format=fmt, max_width=self.max_width, max_height=self.max_height, accessibility=tree
        )

    @classmethod
    def of(cls, value: "ObservationLike") -> "ObservationOptions":
        """Options from ``None`` (a PNG screenshot), an ObservationOptions, a dict of its fields, or an
        OSWorld observation type: "screenshot", "a11y_tree", "screenshot_a11y_tree" (OSWorld's XML)
        or "a11y_text"/"screenshot_a11y_text" (Pincer's text form)."""
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
                "none": cls(screenshot=False),
            }
            if value in named:
                return named[value]
            raise ValueError(f"pincer: unknown observation {value!r}: give one of {', '.join(named)}, a dict or ObservationOptions")
        raise TypeError(f"pincer: observation must be None, a str, a dict or ObservationOptions, not {type(value).__name__}")


ObservationLike = Union[None, str, Mapping[str, Any], ObservationOptions]


@dataclass(frozen=True)
class EnvironmentObservation:
    """One environment (machine) of the episode now. ``source`` is the screen region (x, y, width,
    height) the screenshot shows; a point (x, y) of the image is at (source.x + x / scale,
    source.y + y / scale) on the screen."""

    name: str
    screenshot: bytes
    mime_type: str
    width: int
    height: int
    source: Tuple[int, int, int, int]
    scale: float
    accessibility_tree: str

    @classmethod
    def from_proto(cls, m: episodes_pb2.EnvironmentObservation) -> "EnvironmentObservation":
        s = m.source
        return cls(m.name, bytes(m.screenshot), m.mime_type, m.width, m.height, (s.x, s.y, s.width, s.height), m.scale, m.accessibility_tree)

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
        """``{environment name: {screenshot, mime_type, width, height, source, scale, accessibility_tree}}``."""
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
    - any other string: pyautogui code (as a JSON string under action_space "computer_13");
    - an ``episodes_pb2.Action``: as it is.

    ``action_space`` ("tool_call", "pyautogui" or "computer_13"), when given, refuses the other
    kinds (special actions go in every space) with a ValueError.
    """
    if isinstance(action, episodes_pb2.Action):
        return action
    if isinstance(action, str):
        if action in _SPECIAL:
            return episodes_pb2.Action(special=_SPECIAL[action])
        if action_space == "computer_13":
            return episodes_pb2.Action(computer_13_json=action)
        if action_space not in (None, "pyautogui"):
            raise ValueError(
                f"pincer: a string action is pyautogui code, but the action space is {action_space!r}: "
                'give a tool call {"name": ..., "arguments": {...}} or WAIT/DONE/FAIL'
            )
        return episodes_pb2.Action(pyautogui=action)
    if isinstance(action, Mapping):
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
        raise ValueError(f"pincer: an action dict needs 'name' (a tool call) or 'action_type' (computer_13), got keys {sorted(action)}")
    raise TypeError(f"pincer: an action is a str, a dict or an Action message, not {type(action).__name__}")


# --- The client ---------------------------------------------------------------------------------


class _Renewer:
    """One daemon thread that renews the lease of every open episode of a client every third of its lease."""

    def __init__(self, renew):
        self._renew = renew
        self._due: Dict[str, Tuple[float, float]] = {}  # episode id -> (next renewal, interval)
        self._cond = threading.Condition()
        self._thread: Optional[threading.Thread] = None
        self._stopped = False
        self.errors: List[PincerError] = []

    def add(self, episode_id: str, lease_seconds: int) -> None:
        interval = max(1.0, (lease_seconds or 300) / 3.0)
        with self._cond:
            if self._stopped:
                return
            self._due[episode_id] = (time.monotonic() + interval, interval)
            if self._thread is None:
                self._thread = threading.Thread(target=self._run, name="pincer-lease-renewer", daemon=True)
                self._thread.start()
            self._cond.notify_all()

    def remove(self, episode_id: str) -> None:
        with self._cond:
            self._due.pop(episode_id, None)
            self._cond.notify_all()

    def open(self) -> List[str]:
        with self._cond:
            return list(self._due)

    def stop(self) -> None:
        with self._cond:
            self._stopped = True
            self._due.clear()
            self._cond.notify_all()
        if self._thread is not None and self._thread is not threading.current_thread():
            self._thread.join(timeout=5)

    def _run(self) -> None:
        while True:
            with self._cond:
                if self._stopped:
                    return
                now = time.monotonic()
                due = [eid for eid, (at, _) in self._due.items() if at <= now]
                if not due:
                    wait = min((at for at, _ in self._due.values()), default=now + 3600) - now
                    self._cond.wait(timeout=max(0.05, wait))
                    continue
                for eid in due:
                    self._due[eid] = (now + self._due[eid][1], self._due[eid][1])
            for eid in due:
                try:
                    self._renew(eid)
                except PincerError as e:
                    # NOT_FOUND / FAILED_PRECONDITION: the episode is gone; stop renewing it.
                    self.errors = (self.errors + [e])[-10:]
                    if e.code in (grpc.StatusCode.NOT_FOUND, grpc.StatusCode.FAILED_PRECONDITION, grpc.StatusCode.UNAUTHENTICATED):
                        self.remove(eid)


class Client:
    """A client of the episode service at ``server`` ("host:port").

    ``token`` (default: the environment variable PINCER_TOKEN) is sent as ``authorization: Bearer
    TOKEN``; ``tls`` uses a TLS channel (``root_certificates`` PEM bytes, or the system's);
    ``timeout`` bounds each call in seconds (None: no bound; starting an episode waits for free
    machines); ``renew_leases`` renews each open episode's lease in a background thread.
    Use it as a context manager, or call ``shutdown()``, which closes the episodes still open.
    """

    def __init__(
        self,
        server: str,
        token: Optional[str] = None,
        *,
        tls: bool = False,
        root_certificates: Optional[bytes] = None,
        timeout: Optional[float] = None,
        renew_leases: bool = True,
        max_message_bytes: int = 256 * 1024 * 1024,
        channel: Optional[grpc.Channel] = None,
    ):
        self.server = server
        self.timeout = timeout
        token = token if token is not None else os.environ.get("PINCER_TOKEN") or None
        self._metadata: Tuple[Tuple[str, str], ...] = (("authorization", f"Bearer {token}"),) if token else ()
        options = [("grpc.max_receive_message_length", max_message_bytes), ("grpc.max_send_message_length", max_message_bytes)]
        if channel is not None:
            self._channel = channel
        elif tls:
            self._channel = grpc.secure_channel(server, grpc.ssl_channel_credentials(root_certificates), options=options)
        else:
            self._channel = grpc.insecure_channel(server, options=options)
        self._stub = episodes_pb2_grpc.EpisodesStub(self._channel)
        self._renewer: Optional[_Renewer] = _Renewer(lambda eid: self.renew(eid)) if renew_leases else None

    # Every RPC goes through here: metadata, timeout, and RpcError -> PincerError.
    def _call(self, method: str, request, timeout: Optional[float] = None):
        try:
            return getattr(self._stub, method)(request, metadata=self._metadata, timeout=timeout if timeout is not None else self.timeout)
        except grpc.RpcError as e:
            raise PincerError.from_rpc_error(e, method) from None

    def _opened(self, episode: Episode) -> Episode:
        if self._renewer is not None:
            self._renewer.add(episode.episode_id, episode.lease_seconds)
        return episode

    @property
    def open_episodes(self) -> List[str]:
        """The episodes this client started and has not closed (those whose leases it renews)."""
        return self._renewer.open() if self._renewer is not None else []

    def list_tasks(self, filter: str = "") -> List[TaskInfo]:
        """The dataset's tasks, those whose id, instruction or tags contain ``filter`` when given."""
        return [TaskInfo.from_proto(t) for t in self._call("ListTasks", episodes_pb2.ListTasksRequest(filter=filter)).tasks]

    @staticmethod
    def _start_request(
        task_id: Optional[str], osworld_task: Union[None, str, Mapping[str, Any]], observation: ObservationLike, lease_seconds: int, fail_fast: bool
    ) -> episodes_pb2.StartEpisodeRequest:
        if (task_id is None) == (osworld_task is None):
            raise ValueError("pincer: give either a task_id (a task of the served dataset) or an osworld_task (an OSWorld example), not both or neither")
        req = episodes_pb2.StartEpisodeRequest(observation=ObservationOptions.of(observation).to_proto(), lease_seconds=lease_seconds, fail_fast=fail_fast)
        if task_id is not None:
            req.task_id = task_id
        else:
            req.osworld_task_json = osworld_task if isinstance(osworld_task, str) else json.dumps(dict(osworld_task))
        return req

    def start(
        self,
        task_id: Optional[str] = None,
        *,
        osworld_task: Union[None, str, Mapping[str, Any]] = None,
        observation: ObservationLike = None,
        lease_seconds: int = 0,
        fail_fast: bool = False,
    ) -> Episode:
        """Starts an episode of a task of the dataset (``task_id``) or of an OSWorld example (a dict or
        its JSON), on clean machines; waits for free machines unless ``fail_fast``."""
        req = self._start_request(task_id, osworld_task, observation, lease_seconds, fail_fast)
        return self._opened(Episode.from_proto(self._call("StartEpisode", req)))

    def start_group(
        self,
        task_id: Optional[str] = None,
        size: int = 1,
        *,
        osworld_task: Union[None, str, Mapping[str, Any]] = None,
        observation: ObservationLike = None,
        lease_seconds: int = 0,
        fail_fast: bool = False,
    ) -> List[Episode]:
        """Starts ``size`` episodes of the same task at once (all or none)."""
        req = episodes_pb2.StartGroupRequest(episode=self._start_request(task_id, osworld_task, observation, lease_seconds, fail_fast), size=size)
        return [self._opened(Episode.from_proto(e)) for e in self._call("StartGroup", req).episodes]

    def step(self, episode_id: str, action: ActionLike, *, pause: float = 0.0, observation: ObservationLike = None, action_space: Optional[str] = None) -> StepResult:
        """Runs one action (see :func:`to_action`), waits ``pause`` seconds and observes."""
        req = episodes_pb2.StepRequest(
            episode_id=episode_id, action=to_action(action, action_space), pause_seconds=pause, observation=ObservationOptions.of(observation).to_proto()
        )
        return StepResult.from_proto(self._call("Step", req))

    def observe(self, episode_id: str, observation: ObservationLike = None) -> Observation:
        """The screens now, without acting."""
        req = episodes_pb2.ObserveRequest(episode_id=episode_id, observation=ObservationOptions.of(observation).to_proto())
        return Observation.from_proto(self._call("Observe", req).observation)

    def evaluate(self, episode_id: str) -> Evaluation:
        """Runs the task's evaluator now, without ending the episode."""
        return Evaluation.from_proto(self._call("Evaluate", episodes_pb2.EvaluateRequest(episode_id=episode_id)))

    def close(self, episode_id: str) -> CloseResult:
        """Ends the episode (final evaluation, teardown, attempt folder) and frees its machines; idempotent."""
        if self._renewer is not None:
            self._renewer.remove(episode_id)
        return CloseResult.from_proto(self._call("CloseEpisode", episodes_pb2.CloseEpisodeRequest(episode_id=episode_id)))

    def renew(self, episode_id: str, lease_seconds: int = 0) -> int:
        """Extends the episode's lease (``lease_seconds`` from now; 0: its lease); returns the lease granted."""
        req = episodes_pb2.RenewLeaseRequest(episode_id=episode_id, lease_seconds=lease_seconds)
        return self._call("RenewLease", req, timeout=self.timeout if self.timeout is not None else 30).lease_seconds

    def shutdown(self, close_episodes: bool = True) -> None:
        """Stops renewing leases, closes the episodes still open (unless ``close_episodes`` is False)
        and the channel."""
        open_ids = self.open_episodes
        if self._renewer is not None:
            self._renewer.stop()
        if close_episodes:
            for eid in open_ids:
                try:
                    self._call("CloseEpisode", episodes_pb2.CloseEpisodeRequest(episode_id=eid))
                except PincerError:
                    pass
        self._channel.close()

    def __enter__(self) -> "Client":
        return self

    def __exit__(self, *exc) -> None:
        self.shutdown()


# Region is re-exported for users that build ObservationOptions messages themselves.
Region = common_pb2.Region
