"""OSWorld's ``DesktopEnv`` over Pincer's episode service, for OSWorld's ``run.py``,
``lib_run_single.py`` and agents (``mm_agents``) unchanged but for the import::

    from pincer.osworld import DesktopEnv   # instead of: from desktop_env.desktop_env import DesktopEnv

    env = DesktopEnv(action_space="pyautogui", require_a11y_tree=True, server="127.0.0.1:50051")
    obs = env.reset(task_config=example)        # an OSWorld example (dict): a fresh episode of it
    obs, reward, done, info = env.step("pyautogui.click(10, 20)", pause=2)
    score = env.evaluate()                      # float in [0, 1]
    env.close()

The machines are the server's (``pincer serve DATASET --provider ...``): OSWorld's VM keywords
(``provider_name``, ``path_to_vm``, ``snapshot_name``, ``region``, ``headless``, ``os_type``,
``enable_proxy``, ``client_password``, ``cache_dir``, ``screen_size``) are accepted and kept as
attributes but choose nothing. ``reset`` sends the example to the server as ``osworld_task_json``;
the server runs its config and, on ``evaluate``/``close``, its evaluator. pyautogui code is
interpreted by Pincer's controller (not run as Python); WAIT, DONE and FAIL go as special actions.
Under ``claude_computer_use`` an action of Anthropic's computer tool that carries no pyautogui
``command`` goes as that tool's input (``anthropic_computer_json``, coordinates in screen pixels).
``env.controller.start_recording()`` and ``end_recording(path)`` record the screen on the server's
machine (StartRecording, EndRecording) and write the MP4 to ``path``.
"""
from __future__ import annotations

import json
import logging
import os
from typing import Any, Dict, List, Mapping, Optional, Tuple

from .client import Client, CloseResult, Episode, ObservationOptions, PincerError, StepResult, episodes_pb2, to_action

__all__ = ["DesktopEnv", "PincerController", "OSWORLD_ACTION_SPACES"]

logger = logging.getLogger("pincer.osworld")

#: The action spaces DesktopEnv accepts: claude_computer_use sends pyautogui code, as in OSWorld, or
#: Anthropic's computer tool input when an action has no code.
OSWORLD_ACTION_SPACES = ("pyautogui", "computer_13", "claude_computer_use")
_SPECIALS = ("WAIT", "DONE", "FAIL")


def _special(action: Any) -> Optional[str]:
    if isinstance(action, str) and action in _SPECIALS:
        return action
    if isinstance(action, Mapping) and action.get("action_type") in _SPECIALS:
        return str(action["action_type"])
    return None


def _to_osworld_action(action: Any, action_space: str) -> episodes_pb2.Action:
    """The Action message of an OSWorld action: WAIT/DONE/FAIL (strings or ``{"action_type": ...}``)
    as special; under computer_13 a dict (or its JSON) as computer_13_json; under pyautogui and
    claude_computer_use a string, or a dict's ``command``, as pyautogui code.

    OSWorld's Claude agent (mm_agents/anthropic) steps dicts holding the tool_use's ``input`` and a
    ``command``: pyautogui code it made of that input, its coordinates scaled from the 1280x720
    display the model saw to the screen. DesktopEnv runs the command, and so does this. A dict of
    claude_computer_use without a command (a tool_use block, or the bare ``input``) goes as
    anthropic_computer_json, its coordinates taken as screen pixels."""
    special = _special(action)
    if special is not None:
        return to_action(special)
    if action_space == "computer_13":
        if isinstance(action, Mapping):
            return episodes_pb2.Action(computer_13_json=json.dumps(dict(action)))
        if isinstance(action, str):
            return episodes_pb2.Action(computer_13_json=action)
        raise TypeError(f"DesktopEnv.step: a computer_13 action is a dict, not {type(action).__name__}")
    if isinstance(action, str):
        return episodes_pb2.Action(pyautogui=action)
    if isinstance(action, Mapping) and isinstance(action.get("command"), str):
        return episodes_pb2.Action(pyautogui=action["command"])
    if action_space == "claude_computer_use" and isinstance(action, Mapping) and (isinstance(action.get("input"), Mapping) or "action" in action):
        return to_action(action, "anthropic_computer")
    also = " or Anthropic's computer tool input (a dict with 'action', or a tool_use with 'input')" if action_space == "claude_computer_use" else ""
    raise TypeError(f"DesktopEnv.step: a {action_space} action is pyautogui code (a str) or a dict with 'command'{also}, not {action!r}")


class PincerController:
    """What ``env.controller`` offers OSWorld's loop and agents, over the open episode:
    ``get_screenshot()`` (PNG bytes), ``get_accessibility_tree()`` (OSWorld's XML),
    ``get_terminal_output()`` (always None), ``get_vm_screen_size()``, ``get_vm_platform()``.
    ``start_recording()``/``end_recording(path)``: the episode's screen recording (the service's
    StartRecording and EndRecording: ffmpeg on the server's machine), the MP4 written to ``path``
    whole; as OSWorld's controller does, a failure is logged, not raised, and leaves ``path`` as it
    was. They do nothing when the env was made with ``ignore_recording=True``. OSWorld's out-of-band commands (``execute_python_command``, ``run_bash_script``, ...) are not
    offered: actions go through ``env.step``."""

    def __init__(self, env: "DesktopEnv"):
        self._env = env

    def get_screenshot(self) -> Optional[bytes]:
        obs = self._env._observe(ObservationOptions(screenshot=True))
        return obs.screenshot if obs is not None else None

    def get_accessibility_tree(self) -> Optional[str]:
        obs = self._env._observe(ObservationOptions(screenshot=False, accessibility="osworld_xml"))
        return (obs.accessibility_tree or None) if obs is not None else None

    def get_terminal_output(self) -> None:
        return None

    def get_vm_screen_size(self) -> Dict[str, int]:
        obs = self._env._observe(ObservationOptions(screenshot=True))
        if obs is None:
            return {"width": self._env.screen_width, "height": self._env.screen_height}
        return {"width": obs.source[2] or obs.width, "height": obs.source[3] or obs.height}

    def get_vm_platform(self) -> str:
        return "Linux"

    def get_vm_machine(self) -> str:
        return "x86_64"

    def _episode_id(self, method: str) -> Optional[str]:
        """The episode to record, or None (logged) when recording is ignored or no episode was started."""
        if self._env.ignore_recording:
            logger.info("%s: ignored (DesktopEnv(..., ignore_recording=True))", method)
            return None
        if self._env.episode is None:
            logger.error("%s: no episode to record: call env.reset(task_config=...) first", method)
            return None
        return self._env.episode.episode_id

    def start_recording(self) -> None:
        """Starts recording the screen of the episode's machine, from now on."""
        episode_id = self._episode_id("start_recording")
        if episode_id is None:
            return
        try:
            self._env.client.start_recording(episode_id)
            logger.info("Recording started successfully")
        except PincerError as e:
            logger.error("start_recording: %s", e)

    def end_recording(self, dest: str) -> None:
        """Stops the recording and writes its MP4 to ``dest`` (a closed episode's too: OSWorld's loop
        evaluates, which closes an ended episode, before it ends the recording)."""
        episode_id = self._episode_id("end_recording")
        if episode_id is None:
            return
        try:
            self._env.client.end_recording(episode_id, dest)
            logger.info("Recording stopped successfully: %s", dest)
        except (PincerError, OSError) as e:
            logger.error("end_recording(%s): %s", dest, e)


class DesktopEnv:
    """OSWorld's DesktopEnv (its constructor keywords, ``reset``, ``step``, ``evaluate``, ``close``,
    ``_get_obs``, ``controller``, ``vm_ip``, ``instruction``, ``action_history``) on the machines of
    a ``pincer serve`` at ``server`` (default: the environment variable PINCER_SERVER, else
    127.0.0.1:50051), with ``token`` (default: PINCER_TOKEN)."""

    def __init__(
        self,
        provider_name: str = "vmware",
        region: Optional[str] = None,
        path_to_vm: Optional[str] = None,
        snapshot_name: str = "init_state",
        action_space: str = "pyautogui",
        cache_dir: str = "cache",
        screen_size: Tuple[int, int] = (int(os.environ.get("SCREEN_WIDTH", 1920)), int(os.environ.get("SCREEN_HEIGHT", 1080))),
        headless: bool = False,
        require_a11y_tree: bool = True,
        require_terminal: bool = False,
        os_type: str = "Ubuntu",
        enable_proxy: bool = False,
        client_password: str = "",
        *,
        server: Optional[str] = None,
        token: Optional[str] = None,
        client: Optional[Client] = None,
        lease_seconds: int = 0,
        ignore_recording: bool = False,
        **_ignored: Any,
    ):
        if action_space not in OSWORLD_ACTION_SPACES:
            raise ValueError(f"DesktopEnv: unknown action_space {action_space!r}: give one of {', '.join(OSWORLD_ACTION_SPACES)}")
        if _ignored:
            logger.info("DesktopEnv: ignoring keywords Pincer has no use for: %s", ", ".join(sorted(_ignored)))
        # OSWorld's VM keywords: kept, but the server's machines are what runs.
        self.provider_name = provider_name
        self.region = region
        self.path_to_vm = path_to_vm
        self.snapshot_name = snapshot_name
        self.cache_dir_base = cache_dir
        self.screen_width, self.screen_height = int(screen_size[0]), int(screen_size[1])
        self.headless = headless
        self.os_type = os_type
        self.enable_proxy = enable_proxy
        self.client_password = client_password or "password"
        self.require_a11y_tree = require_a11y_tree
        self.require_terminal = require_terminal
        self.action_space = action_space
        self.ignore_recording = ignore_recording
        self.lease_seconds = lease_seconds

        self.server = server or os.environ.get("PINCER_SERVER") or "127.0.0.1:50051"
        self._owns_client = client is None
        self.client = client if client is not None else Client(self.server, token=token)
        # OSWorld's agents read vm_ip (and pass it to agent.reset): the server's host here.
        self.vm_ip = self.server.rsplit(":", 1)[0].strip("[]") if ":" in self.server else self.server
        self.server_port = int(self.server.rsplit(":", 1)[1]) if self.server.rsplit(":", 1)[-1].isdigit() else 0
        self.controller = PincerController(self)

        self.instruction: Optional[str] = None
        self.task_id: Optional[str] = None
        self.task_config: Optional[Dict[str, Any]] = None
        self.episode: Optional[Episode] = None
        self.last_step: Optional[StepResult] = None
        self.last_result: Optional[CloseResult] = None
        self._episode_open = False
        self._done = False
        self._final_score: Optional[float] = None
        self._last_obs: Optional[Dict[str, Any]] = None
        self._traj_no = -1
        self._step_no = 0
        self.action_history: List[Any] = []

    # --- observations ---

    def _options(self) -> ObservationOptions:
        return ObservationOptions(screenshot=True, accessibility="osworld_xml" if self.require_a11y_tree else "none")

    def _observe(self, options: ObservationOptions):
        """The first environment's observation now, or None with no episode or once it ended."""
        if self.episode is None or not self._episode_open:
            return None
        try:
            obs = self.client.observe(self.episode.episode_id, options)
        except PincerError as e:
            logger.info("observe: %s", e)
            return None
        return obs.environments[0] if obs.environments else None

    def _obs_dict(self, env_obs) -> Dict[str, Any]:
        return {
            "screenshot": env_obs.screenshot if env_obs is not None else None,
            "accessibility_tree": (env_obs.accessibility_tree or None) if (env_obs is not None and self.require_a11y_tree) else None,
            "terminal": None,
            "instruction": self.instruction,
        }

    def _get_obs(self) -> Dict[str, Any]:
        """OSWorld's observation: ``screenshot`` (PNG bytes), ``accessibility_tree`` (OSWorld's XML
        when require_a11y_tree, else None), ``terminal`` (None), ``instruction``. Once the episode
        ended it is the last observation."""
        env_obs = self._observe(self._options())
        if env_obs is None:
            return self._last_obs if self._last_obs is not None else self._obs_dict(None)
        self._last_obs = self._obs_dict(env_obs)
        return self._last_obs

    # --- episodes ---

    def reset(self, task_config: Optional[Dict[str, Any]] = None, seed: Optional[int] = None, options: Optional[Mapping[str, Any]] = None) -> Dict[str, Any]:
        """Closes the open episode and starts one of ``task_config`` (an OSWorld example dict, sent as
        ``osworld_task_json``), or of ``options["task_id"]``, a task of the served dataset. With
        neither, the last task runs again. Returns the first observation."""
        del seed
        task_id = options.get("task_id") if options else None
        if task_config is None and task_id is None:
            if self.task_config is None and self.task_id is None:
                raise ValueError("DesktopEnv.reset: give task_config (an OSWorld example) or options={'task_id': ...}")
            task_config, task_id = self.task_config, (None if self.task_config is not None else self.task_id)
        try:
            self._close_episode()
        except PincerError as e:
            logger.info("reset: closing the previous episode: %s", e)
        self._traj_no += 1
        self._step_no = 0
        self.action_history.clear()
        self._done = False
        self._final_score = None
        self._last_obs = None
        self.last_step = None
        if task_config is not None:
            self.task_config = dict(task_config)
            self.episode = self.client.start(osworld_task=self.task_config, observation=self._options(), lease_seconds=self.lease_seconds)
            self.instruction = self.task_config.get("instruction") or self.episode.instruction
        else:
            self.task_config = None
            self.episode = self.client.start(str(task_id), observation=self._options(), lease_seconds=self.lease_seconds)
            self.instruction = self.episode.instruction
        self.task_id = self.episode.task_id or (self.task_config or {}).get("id")
        self._episode_open = True
        if self.episode.done:
            logger.warning("DesktopEnv.reset: the episode of %s ended before its first step: %s", self.task_id, self.episode.end_reason)
            self._done = True
        first = self.episode.observation
        self._last_obs = self._obs_dict(first.environments[0] if first and first.environments else None)
        return self._last_obs

    def step(self, action: Any, pause: float = 2) -> Tuple[Dict[str, Any], float, bool, Dict[str, Any]]:
        """Runs one OSWorld action and observes ``pause`` seconds after it. Returns ``(observation,
        reward, done, info)``: reward is the task's evaluator score so far; info holds OSWorld's
        ``done``/``fail`` flags for DONE/FAIL and Pincer's ``error``, ``end_reason``, ``nodes``,
        ``terminated``, ``truncated``."""
        if self.episode is None:
            raise RuntimeError("DesktopEnv.step before reset(task_config=...)")
        self._step_no += 1
        self.action_history.append(action)
        info: Dict[str, Any] = {}
        special = _special(action)
        if special == "FAIL":
            info["fail"] = True
        elif special == "DONE":
            info["done"] = True
        if self._done or not self._episode_open:
            return self._get_obs(), 0.0, True, {**info, "error": "the episode has ended", "end_reason": self.episode.end_reason}
        r = self.client.step(self.episode.episode_id, _to_osworld_action(action, self.action_space), pause=float(pause), observation=self._options())
        self.last_step = r
        if r.observation is not None and r.observation.environments:
            self._last_obs = self._obs_dict(r.observation.environments[0])
        if r.done:
            self._done = True
        info.update(
            {
                "error": r.error,
                "end_reason": r.end_reason,
                "nodes": [n.to_dict() for n in r.nodes],
                "terminated": r.terminated,
                "truncated": r.truncated,
                "step": r.step,
            }
        )
        obs = self._last_obs if self._last_obs is not None else self._obs_dict(None)
        return obs, float(r.reward), bool(r.done or special in ("DONE", "FAIL")), info

    def evaluate(self) -> float:
        """The task's score in [0, 1]. While the episode goes on, its evaluator runs now (the episode
        stays open); once it ended (DONE, FAIL, a limit), the episode is closed and the final score of
        the attempt is returned."""
        if self.episode is None:
            raise RuntimeError("DesktopEnv.evaluate before reset(task_config=...)")
        if self._final_score is not None:
            return self._final_score
        if not self._done and self._episode_open:
            try:
                return float(self.client.evaluate(self.episode.episode_id).score)
            except PincerError as e:
                if e.code.name not in ("FAILED_PRECONDITION", "NOT_FOUND"):
                    raise
        result = self._close_episode()
        return float(result.score) if result is not None else 0.0

    def _close_episode(self):
        if self.episode is None or not self._episode_open:
            return None
        self._episode_open = False
        result = self.client.close(self.episode.episode_id)
        self._final_score = float(result.score)
        self.last_result = result
        return result

    def close(self) -> None:
        """Ends the open episode (freeing its machines) and the connection."""
        try:
            self._close_episode()
        finally:
            if self._owns_client:
                self._owns_client = False
                self.client.shutdown()

    def render(self, mode: str = "rgb_array") -> Optional[bytes]:
        if mode != "rgb_array":
            raise ValueError(f"Unsupported render mode: {mode}")
        return self.controller.get_screenshot()

    @property
    def vm_platform(self) -> str:
        return self.controller.get_vm_platform()

    @property
    def vm_machine(self) -> str:
        return self.controller.get_vm_machine()

    @property
    def vm_screen_size(self) -> Dict[str, int]:
        return self.controller.get_vm_screen_size()

    @property
    def is_environment_used(self) -> bool:
        return self._step_no > 0
