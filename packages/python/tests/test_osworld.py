"""pincer.osworld.DesktopEnv: OSWorld's keywords, actions and observation dict, against the fake Episodes service."""
import json
import logging
import os

import pytest
from conftest import VIDEO

from pincer._proto import episodes_pb2
from pincer.osworld import DesktopEnv

TASK = {"id": "osw-1", "snapshot": "os", "instruction": "Say it cannot be done", "config": [], "evaluator": {"func": "infeasible"}}


def test_osworld_constructor_keywords_are_accepted_and_kept(fake_server):
    _, address = fake_server
    env = DesktopEnv(
        provider_name="docker", region="us-east-1", path_to_vm="/vm.qcow2", snapshot_name="init_state", action_space="pyautogui",
        cache_dir="cache", screen_size=(1280, 800), headless=True, require_a11y_tree=False, require_terminal=False, os_type="Ubuntu",
        enable_proxy=False, client_password="pw", server=address,
    )
    assert (env.provider_name, env.path_to_vm, env.screen_width, env.screen_height, env.headless) == ("docker", "/vm.qcow2", 1280, 800, True)
    assert (env.vm_ip, env.action_space, env.client_password) == ("127.0.0.1", "pyautogui", "pw")
    env.close()
    for space in ("computer_13", "claude_computer_use"):
        DesktopEnv(action_space=space, server=address).close()
    with pytest.raises(ValueError, match="unknown action_space 'mouse'"):
        DesktopEnv(action_space="mouse", server=address)


def test_reset_sends_the_task_and_returns_osworlds_observation(fake_server):
    fake, address = fake_server
    env = DesktopEnv(server=address, require_a11y_tree=True)
    obs = env.reset(task_config=TASK)
    assert set(obs) == {"screenshot", "accessibility_tree", "terminal", "instruction"}
    assert obs["screenshot"].startswith(b"\x89PNG") and obs["terminal"] is None
    assert obs["accessibility_tree"].startswith("<desktop-frame>")
    assert obs["instruction"] == env.instruction == "Say it cannot be done"
    req = fake.requests("StartEpisode")[0]
    assert json.loads(req.osworld_task_json) == TASK
    assert req.observation.accessibility == episodes_pb2.ACCESSIBILITY_FORM_OSWORLD_XML
    assert env._get_obs()["screenshot"].startswith(b"\x89PNG")
    assert env.controller.get_screenshot().startswith(b"\x89PNG")
    assert env.controller.get_accessibility_tree().startswith("<desktop-frame>")
    assert env.vm_screen_size == {"width": 1280, "height": 800}
    env.close()


def test_pyautogui_steps_special_actions_and_evaluate(fake_server):
    fake, address = fake_server
    env = DesktopEnv(server=address, require_a11y_tree=False)
    env.reset(task_config=TASK)
    obs, reward, done, info = env.step("pyautogui.click(10, 20)", pause=0.5)
    assert (reward, done, info["error"]) == (0.0, False, "")
    assert obs["accessibility_tree"] is None and obs["screenshot"]
    env.step({"command": "pyautogui.press('enter')"})
    assert env.evaluate() == 0.25  # the episode goes on: the evaluator runs now
    obs, reward, done, info = env.step("FAIL")
    assert done and info["fail"] is True and info["end_reason"] == "infeasible"
    assert obs["screenshot"]  # the last observation
    sent = [r.action for r in fake.requests("Step")]
    assert [a.WhichOneof("kind") for a in sent] == ["pyautogui", "pyautogui", "special"]
    assert sent[1].pyautogui == "pyautogui.press('enter')" and sent[2].special == episodes_pb2.Action.SPECIAL_FAIL
    assert fake.requests("Step")[0].pause_seconds == 0.5
    assert env.evaluate() == 0.0  # ended: closed, and the attempt's final score
    assert fake.count("CloseEpisode") == 1
    assert env.action_history == ["pyautogui.click(10, 20)", {"command": "pyautogui.press('enter')"}, "FAIL"]
    env.close()
    assert fake.count("CloseEpisode") == 1


def test_computer_13_actions_go_as_json_and_done_as_special(fake_server):
    fake, address = fake_server
    env = DesktopEnv(server=address, action_space="computer_13")
    env.reset(task_config=TASK)
    env.step({"action_type": "CLICK", "parameters": {"x": 1, "y": 2}})
    _, reward, done, info = env.step({"action_type": "DONE"})
    assert (reward, done, info["done"]) == (1.0, True, True)
    sent = [r.action for r in fake.requests("Step")]
    assert json.loads(sent[0].computer_13_json) == {"action_type": "CLICK", "parameters": {"x": 1, "y": 2}}
    assert sent[1].special == episodes_pb2.Action.SPECIAL_DONE
    assert env.evaluate() == 1.0
    env.close()


def test_claude_computer_use_runs_the_agents_command_or_sends_the_tool_input(fake_server):
    fake, address = fake_server
    env = DesktopEnv(server=address, action_space="claude_computer_use")
    env.reset(task_config=TASK)
    # OSWorld's Claude agent: the tool_use with its input (the model's 1280x720 display) and the
    # pyautogui command it made of it (scaled to the screen), which DesktopEnv runs.
    agent_action = {
        "name": "computer",
        "input": {"action": "left_click", "coordinate": [640, 360]},
        "id": "tu_1",
        "action_type": "tool_use",
        "command": "pyautogui.click(960, 540)\n",
    }
    env.step(agent_action, pause=0)
    # Without a command: the tool's input, as anthropic_computer_json.
    env.step({"type": "tool_use", "name": "computer", "input": {"action": "type", "text": "hi"}}, pause=0)
    env.step({"action": "key", "text": "Return"}, pause=0)
    env.step("pyautogui.press('enter')", pause=0)
    with pytest.raises(TypeError, match="computer tool input"):
        env.step({"text": "no action"}, pause=0)
    _, _, done, info = env.step({"action_type": "DONE"}, pause=0)
    assert done and info["done"] is True
    sent = [r.action for r in fake.requests("Step")]
    assert [a.WhichOneof("kind") for a in sent] == ["pyautogui", "anthropic_computer_json", "anthropic_computer_json", "pyautogui", "special"]
    assert sent[0].pyautogui == "pyautogui.click(960, 540)\n"
    assert json.loads(sent[1].anthropic_computer_json) == {"action": "type", "text": "hi"}
    assert json.loads(sent[2].anthropic_computer_json) == {"action": "key", "text": "Return"}
    env.close()


def test_the_recording_goes_through_the_episode_service_and_end_recording_writes_the_video(fake_server, tmp_path):
    fake, address = fake_server
    env = DesktopEnv(server=address)
    env.reset(task_config=TASK)
    env.controller.start_recording()
    env.step("pyautogui.click(10, 10)", pause=0)
    dest = tmp_path / "recording.mp4"
    env.controller.end_recording(str(dest))
    assert dest.read_bytes() == VIDEO
    assert os.listdir(tmp_path) == ["recording.mp4"]
    assert [(r.episode_id, r.environment) for r in fake.requests("StartRecording")] == [("ep-1", "")]
    assert [(r.episode_id, r.environment) for r in fake.requests("EndRecording")] == [("ep-1", "")]
    env.close()


def test_recording_failures_are_logged_as_osworld_does_and_leave_dest_as_it_was(fake_server, tmp_path, caplog):
    # OSWorld's run.py calls end_recording again in its handler of an example's exception: like
    # OSWorld's controller, these log a failure instead of raising it.
    fake, address = fake_server
    env = DesktopEnv(server=address)
    dest = tmp_path / "recording.mp4"
    with caplog.at_level(logging.ERROR, logger="pincer.osworld"):
        env.controller.start_recording()
        assert "reset" in caplog.text and fake.count("StartRecording") == 0
        env.reset(task_config=TASK)
        env.controller.end_recording(str(dest))
        assert "call StartRecording first" in caplog.text
        assert os.listdir(tmp_path) == []
        env.controller.start_recording()
        env.controller.start_recording()
        assert "recording already" in caplog.text
        dest.write_bytes(b"an older video")
        fake.recording_breaks = True
        env.controller.end_recording(str(dest))
        assert "went away mid-video" in caplog.text
    assert dest.read_bytes() == b"an older video" and os.listdir(tmp_path) == ["recording.mp4"]
    env.close()


def test_ignore_recording_makes_start_and_end_recording_do_nothing(fake_server, tmp_path):
    fake, address = fake_server
    quiet = DesktopEnv(server=address, ignore_recording=True)
    quiet.reset(task_config=TASK)
    quiet.controller.start_recording()
    quiet.controller.end_recording(str(tmp_path / "x.mp4"))
    assert fake.count("StartRecording") == fake.count("EndRecording") == 0
    assert os.listdir(tmp_path) == []
    quiet.close()


def test_reset_without_a_task_and_step_before_reset_are_errors(fake_server):
    _, address = fake_server
    env = DesktopEnv(server=address)
    with pytest.raises(ValueError, match="task_config"):
        env.reset()
    with pytest.raises(RuntimeError, match="before reset"):
        env.step("WAIT")
    env.reset(options={"task_id": "write-greeting"})
    assert env.task_id == "write-greeting"
    env.reset()  # the same task again, in a fresh episode
    assert env.episode.episode_id == "ep-2"
    env.close()
