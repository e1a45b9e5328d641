"""pincer.make: the Gymnasium-shaped env, against the fake Episodes service."""
import pytest

import pincer
from pincer._proto import episodes_pb2


def test_reset_step_close_with_tool_calls(fake_server):
    fake, address = fake_server
    env = pincer.make("write-greeting", server=address, observation="screenshot_a11y_text")
    obs, info = env.reset(seed=1)
    assert list(obs) == ["desktop"]
    assert obs["desktop"]["screenshot"].startswith(b"\x89PNG") and obs["desktop"]["width"] == 640
    assert obs["desktop"]["accessibility_tree"] == "[window] Terminal"
    assert info["instruction"] == "Do write-greeting" and info["tools"] == ["desktop__click", "desktop__run_command"]
    assert (info["nodes"], info["error"]) == ([], "")

    obs, reward, terminated, truncated, info = env.step({"name": "bad__tool", "arguments": {}})
    assert (reward, terminated, truncated) == (0.0, False, False)
    assert info["error"] == "unknown tool bad__tool"
    assert info["nodes"] == [{"node": "goal", "status": "pending", "score": 0.0, "reason": "not yet"}]

    last = obs
    obs, reward, terminated, truncated, info = env.step("DONE")
    assert (reward, terminated, truncated, info["end_reason"]) == (1.0, True, False, "completed")
    assert obs == last  # the episode ended: the last observation stays
    assert info["final"] == {"state": "passed", "score": 1.0, "attempt_dir": "/runs/ep-1", "end_reason": "completed"}
    with pytest.raises(RuntimeError, match="reset"):
        env.step("WAIT")
    env.close()
    assert fake.count("CloseEpisode") == 1


def test_pyautogui_strings_and_truncation_at_max_steps(fake_server):
    fake, address = fake_server
    fake.max_steps = 2
    with pincer.make("open-clock", server=address, action_space="pyautogui", pause=1.5) as env:
        env.reset()
        _, _, terminated, truncated, _ = env.step("pyautogui.click(5, 5)")
        assert not (terminated or truncated)
        _, _, terminated, truncated, info = env.step("WAIT")
        assert (terminated, truncated, info["end_reason"]) == (False, True, "max_steps")
        sent = fake.requests("Step")
        assert sent[0].action.pyautogui == "pyautogui.click(5, 5)" and sent[0].pause_seconds == 1.5
        assert sent[1].action.special == episodes_pb2.Action.SPECIAL_WAIT
        with pytest.raises(ValueError, match="tool call"):
            env.reset()
            env.step({"name": "desktop__click", "arguments": {}})


def test_reset_closes_the_open_episode_and_can_switch_tasks(fake_server):
    fake, address = fake_server
    env = pincer.make("write-greeting", server=address)
    env.reset()
    _, info = env.reset(options={"task_id": "open-clock"})
    assert [r.episode_id for r in fake.requests("CloseEpisode")] == ["ep-1"]
    assert info["task_id"] == "open-clock" and env.episode_id == "ep-2"
    env.close()


def test_a_setup_that_failed_ends_the_episode_at_reset(fake_server):
    _, address = fake_server
    env = pincer.make("broken-setup", server=address)
    obs, info = env.reset()
    assert obs == {} and info["end_reason"] == "setup_failed" and info["final"]["state"] == "failed"
    env.close()


def test_bad_arguments_fail_at_make():
    with pytest.raises(ValueError, match="unknown action_space"):
        pincer.make("t", action_space="mouse")
    with pytest.raises(ValueError, match="unknown observation"):
        pincer.make("t", observation="pixels")


def test_reset_goes_on_when_the_previous_episode_is_gone(fake_server):
    fake, address = fake_server
    env = pincer.make("write-greeting", server=address)
    env.reset()
    del fake.episodes["ep-1"]  # as when its lease expired on the server
    _, info = env.reset()
    assert info["episode_id"] == "ep-2"
    env.close()
