"""A Gymnasium-shaped environment over one task of a ``pincer serve`` dataset, without gymnasium.

>>> env = pincer.make("write-greeting", server="127.0.0.1:50051")
>>> obs, info = env.reset()
>>> obs, reward, terminated, truncated, info = env.step({"name": "desktop__run_command", "arguments": {"command": "true"}})
>>> env.close()

``obs`` is a dict per environment of the task (``obs["desktop"]`` for a one-machine task) holding
``screenshot`` (bytes, PNG unless asked otherwise), ``mime_type``, ``width``, ``height``, ``source``,
``scale`` and ``accessibility_tree`` (a str, or None when not asked for). ``info`` holds ``nodes``
(the evaluator's node verdicts as dicts), ``error`` (the action's error, "" when none),
``end_reason``, ``step``, ``result`` (what the action returned), and once the episode ends ``final`` (the attempt as the server recorded it).
"""
from __future__ import annotations

from typing import Any, Dict, Mapping, Optional, Tuple

from .client import ActionLike, Client, CloseResult, Episode, ObservationLike, ObservationOptions, PincerError, StepResult, to_action

__all__ = ["PincerEnv", "make", "ACTION_SPACES"]

#: The action spaces of :func:`make`: tool calls (dicts), pyautogui code (strings), OSWorld's computer_13 (dicts), and
#: Anthropic's and OpenAI's computer-use actions (dicts: the computer tool's input, a computer_call's action).
ACTION_SPACES = ("tool_call", "pyautogui", "computer_13", "anthropic_computer", "openai_computer")


class PincerEnv:
    """One task of the served dataset as a Gymnasium-style environment: each ``reset`` starts a fresh
    episode on clean machines (closing the previous one), ``step`` runs one action, ``close`` ends
    the episode and frees the machines. An episode that ends (terminated or truncated) is closed at
    once, and ``info["final"]`` says how the server recorded it."""

    metadata: Dict[str, Any] = {"render_modes": ["rgb_array"]}
    render_mode: Optional[str] = None

    def __init__(
        self,
        task_id: str,
        *,
        client: Client,
        action_space: str = "tool_call",
        observation: ObservationLike = None,
        pause: float = 0.0,
        lease_seconds: int = 0,
        owns_client: bool = False,
    ):
        if action_space not in ACTION_SPACES:
            raise ValueError(f"pincer.make: unknown action_space {action_space!r}: give one of {', '.join(ACTION_SPACES)}")
        self.task_id = task_id
        self.client = client
        self.action_space = action_space
        self.observation_options = ObservationOptions.of(observation)
        self.pause = pause
        self.lease_seconds = lease_seconds
        self._owns_client = owns_client
        self.episode: Optional[Episode] = None
        self.last_result: Optional[CloseResult] = None
        self._obs: Dict[str, Dict[str, Any]] = {}
        self._open = False

    @property
    def unwrapped(self) -> "PincerEnv":
        return self

    @property
    def episode_id(self) -> Optional[str]:
        return self.episode.episode_id if self.episode else None

    @property
    def instruction(self) -> Optional[str]:
        return self.episode.instruction if self.episode else None

    @property
    def tools(self) -> Tuple[str, ...]:
        """The tool names a tool call may use in the current episode."""
        return self.episode.tools if self.episode else ()

    def reset(self, *, seed: Optional[int] = None, options: Optional[Mapping[str, Any]] = None) -> Tuple[Dict[str, Dict[str, Any]], Dict[str, Any]]:
        """Starts a new episode (closing the open one). ``seed`` is accepted for Gymnasium's sake and
        ignored (a task's machines start the same each time); ``options`` may give ``task_id`` to
        switch tasks. Returns ``(obs, info)``; info holds ``episode_id``, ``task_id``,
        ``instruction``, ``tools``, ``tool_specs``, ``max_steps`` and ``nodes``/``error``/``end_reason``."""
        del seed
        try:
            self._finish()
        except PincerError:
            pass  # the previous episode is gone already (its lease expired, say): nothing to free
        if options and options.get("task_id"):
            self.task_id = str(options["task_id"])
        self.episode = self.client.start(self.task_id, observation=self.observation_options, lease_seconds=self.lease_seconds)
        self._open = True
        self._obs = self.episode.observation.to_dict() if self.episode.observation else {}
        info: Dict[str, Any] = {
            "episode_id": self.episode.episode_id,
            "task_id": self.episode.task_id,
            "instruction": self.episode.instruction,
            "tools": list(self.episode.tools),
            "tool_specs": list(self.episode.tool_specs),
            "max_steps": self.episode.max_steps,
            "nodes": [],
            "error": "",
            "end_reason": self.episode.end_reason,
            "step": 0,
        }
        if self.episode.done:
            # The setup failed: the episode is over before its first step.
            info["final"] = self._finish()
        return self._obs, info

    def step(self, action: ActionLike) -> Tuple[Dict[str, Dict[str, Any]], float, bool, bool, Dict[str, Any]]:
        """Runs one action: a tool call ``{"name": ..., "arguments": {...}}`` (action space
        "tool_call"), pyautogui code as a string ("pyautogui"), an OSWorld computer_13 dict
        ("computer_13"), or "WAIT", "DONE" or "FAIL" in any. Returns ``(obs, reward, terminated,
        truncated, info)``; after the episode ends obs is the last observation."""
        if not self._open or self.episode is None:
            raise RuntimeError("pincer: step() before reset(), or after the episode ended: call reset()")
        r: StepResult = self.client.step(
            self.episode.episode_id, to_action(action, self.action_space), pause=self.pause, observation=self.observation_options
        )
        if r.observation is not None:
            self._obs = r.observation.to_dict()
        info: Dict[str, Any] = {
            "nodes": [n.to_dict() for n in r.nodes],
            "error": r.error,
            "result": r.result,
            "end_reason": r.end_reason,
            "step": r.step,
        }
        terminated, truncated = r.terminated, r.truncated
        if r.done and not (terminated or truncated):
            truncated = True
        if r.done:
            try:
                info["final"] = self._finish()
            except PincerError as e:  # the step's outcome stands; the attempt's record is what failed
                info["final"] = None
                info["close_error"] = str(e)
        return self._obs, float(r.reward), bool(terminated), bool(truncated), info

    def render(self) -> Optional[bytes]:
        """The first environment's last screenshot (encoded bytes), or None."""
        for env in self._obs.values():
            return env.get("screenshot")
        return None

    def _finish(self) -> Optional[Dict[str, Any]]:
        if not self._open or self.episode is None:
            return None
        self._open = False
        self.last_result = self.client.close(self.episode.episode_id)
        r = self.last_result
        return {"state": r.state, "score": r.score, "attempt_dir": r.attempt_dir, "end_reason": r.end_reason}

    def close(self) -> None:
        """Ends the open episode (if any) and, when made by :func:`make`, the connection."""
        try:
            self._finish()
        finally:
            if self._owns_client:
                self._owns_client = False
                self.client.shutdown()

    def __enter__(self) -> "PincerEnv":
        return self

    def __exit__(self, *exc) -> None:
        self.close()


def make(
    task_id: str,
    server: str = "127.0.0.1:50051",
    token: Optional[str] = None,
    action_space: str = "tool_call",
    observation: ObservationLike = None,
    *,
    pause: float = 0.0,
    lease_seconds: int = 0,
    client: Optional[Client] = None,
    **client_options: Any,
) -> PincerEnv:
    """A :class:`PincerEnv` for task ``task_id`` of the dataset that ``pincer serve`` serves at
    ``server``. ``observation`` is None (a PNG screenshot), "screenshot", "a11y_tree",
    "screenshot_a11y_tree", "a11y_text", "screenshot_a11y_text", a dict of
    :class:`~pincer.client.ObservationOptions` fields or one. ``pause`` is the seconds to wait after
    each action before observing. Pass ``client`` to share one connection between environments;
    otherwise one is made (``client_options`` go to :class:`~pincer.client.Client`) and closed with the env."""
    if action_space not in ACTION_SPACES:
        raise ValueError(f"pincer.make: unknown action_space {action_space!r}: give one of {', '.join(ACTION_SPACES)}")
    ObservationOptions.of(observation).to_proto()  # a bad observation fails here, not at reset()
    owns = client is None
    if client is None:
        client = Client(server, token=token, **client_options)
    return PincerEnv(task_id, client=client, action_space=action_space, observation=observation, pause=pause, lease_seconds=lease_seconds, owns_client=owns)
