"""Against a real `pincer serve examples --provider local` started from the repo root with node:
a JSON-format task of examples/ driven through pincer.make with its solution's tool calls to
reward 1, and an OSWorld task of test/fixtures/osworld through DesktopEnv. Skipped, with the
reason, where `pincer serve` or the local machines' programs are not there."""
from __future__ import annotations

import json
import os
import subprocess
import sys
import time

import grpc
import pytest
from conftest import ROOT
from serving import is_mp4, run_single_example, serve, why_no_recording, why_not

import pincer
from pincer import Client, PincerError
from pincer.osworld import DesktopEnv

pytestmark = pytest.mark.server

TOKEN = "pincer-python-test-token"
# An OSWorld task with no config and an infeasible verdict: FAIL is its solution.
OSWORLD_TASK = os.path.join(ROOT, "test", "fixtures", "osworld", "os", "b3d4a89c-53f2-4d6b-8b6a-541fb5d205fa.json")


@pytest.fixture(scope="module")
def served():
    """The address of `pincer serve examples --provider local` (with a token), for the module."""
    reason = why_not()
    if reason:
        pytest.skip(reason)
    with serve("examples", ["--provider", "local"], TOKEN) as address:
        yield address


def _solution(path: str) -> list:
    """A solution file's steps as actions: tool calls as dicts, root__done/root__fail as DONE/FAIL."""
    with open(path) as f:
        steps = json.load(f)
    return [
        {"root__done": "DONE", "root__fail": "FAIL"}.get(s["tool"]) or {"name": s["tool"], "arguments": s.get("args", {})} for s in steps
    ]


def test_the_token_is_required_and_the_tasks_are_listed(served):
    with Client(served) as anonymous, pytest.raises(PincerError) as e:
        anonymous.list_tasks()
    assert e.value.code == grpc.StatusCode.UNAUTHENTICATED
    with Client(served, token=TOKEN) as client:
        tasks = {t.id: t for t in client.list_tasks()}
    assert "write-greeting" in tasks
    assert "tool_call" in tasks["write-greeting"].action_spaces


def test_a_json_task_of_examples_reaches_reward_1_with_its_solution(served):
    actions = _solution(os.path.join(ROOT, "examples", "terminal", "write-greeting", "solution.json"))
    env = pincer.make("write-greeting", server=served, token=TOKEN, action_space="tool_call", observation="screenshot")
    try:
        obs, info = env.reset()
        assert "greeting.txt" in info["instruction"]
        assert "desktop__run_command" in info["tools"]
        desktop = obs["desktop"]
        assert desktop["screenshot"][:8] == b"\x89PNG\r\n\x1a\n" and desktop["width"] > 0 and desktop["height"] > 0
        # The service's other calls on the open episode: its evaluator before the solution, the lease.
        before = env.client.evaluate(env.episode_id)
        assert before.score == 0.0 and not before.success
        assert env.client.renew(env.episode_id, 120) == 120
        assert env.client.observe(env.episode_id, "screenshot")["desktop"].screenshot[:4] == b"\x89PNG"
        reward, terminated, truncated = 0.0, False, False
        for action in actions + ["DONE"]:
            obs, reward, terminated, truncated, info = env.step(action)
            assert info["error"] == "", info
            if terminated or truncated:
                break
        assert (reward, terminated, truncated) == (1.0, True, False), info
        assert info["final"]["state"] == "passed" and info["final"]["score"] == 1.0
    finally:
        env.close()


def test_an_osworld_task_through_desktop_env(served):
    with open(OSWORLD_TASK) as f:
        task = json.load(f)
    env = DesktopEnv(action_space="pyautogui", require_a11y_tree=False, server=served, token=TOKEN, screen_size=(1280, 720))
    try:
        obs = env.reset(task_config=task)
        assert obs["instruction"] == task["instruction"]
        assert obs["screenshot"][:8] == b"\x89PNG\r\n\x1a\n" and obs["terminal"] is None and obs["accessibility_tree"] is None
        for code in ("pyautogui.moveTo(40, 40)", "pyautogui.click(40, 40)"):
            obs, reward, done, info = env.step(code, pause=0.2)
            assert info["error"] == "" and not done, info
            assert obs["screenshot"][:4] == b"\x89PNG"
        assert env.controller.get_screenshot()[:4] == b"\x89PNG"
        obs, reward, done, info = env.step("FAIL", pause=0)
        assert done and info["fail"] is True
        started = time.monotonic()
        assert env.evaluate() == 1.0  # infeasible, and the agent said so
        assert time.monotonic() - started < 60
    finally:
        env.close()


def test_run_single_example_with_only_done_scores_0_and_bad_code_is_an_error_the_episode_survives(served, tmp_path):
    # The infeasible task again: an agent that never says FAIL scores 0, as in OSWorld. Its loop
    # records the screen and ends the recording after evaluate (which closed the ended episode).
    reason = why_no_recording()
    if reason:
        pytest.skip(reason)
    def predict(obs, step):
        # A misspelt call: its error comes back, nothing is performed, and the episode goes on.
        return ["pyautogui.clik(10, 10)"] if step == 0 else ["DONE"]

    with open(OSWORLD_TASK) as f:
        example = json.load(f)
    score, infos, recording = run_single_example(served, TOKEN, example, predict, str(tmp_path))
    assert score == 0.0
    assert "clik" in infos[0]["error"] and infos[0]["step_done"] is False, infos
    assert len(infos) == 2 and infos[1]["step_done"] is True, infos
    assert is_mp4(recording) and os.listdir(tmp_path) == ["recording.mp4"]


def test_a_graph_task_gives_partial_credit_as_the_agent_goes(served):
    # examples/multi/hand-over: a graph of two nodes on two machines (the token on the server, then
    # the desktop reports it sent): the reward rises with each node the agent's actions pass.
    env = pincer.make("hand-over", server=served, token=TOKEN, action_space="tool_call", observation="none")
    try:
        _, info = env.reset()
        rewards = [0.0]
        read = {"name": "desktop__run_command", "arguments": {"command": "cat /tmp/pincer-demo/hand-over/desktop/token.txt"}}
        _, reward, terminated, _, info = env.step(read)
        token = info["result"]["stdout"].strip()
        assert len(token) == 16 and reward == 0.0, info
        send = {"name": "server__run_command", "arguments": {"command": f"printf '{token}\\n' > /tmp/pincer-demo/hand-over/server/received.txt"}}
        _, reward, terminated, _, info = env.step(send)
        rewards.append(reward)
        report = {"name": "desktop__run_command", "arguments": {"command": "echo sent > /tmp/pincer-demo/hand-over/desktop/status.txt"}}
        _, reward, terminated, _, info = env.step(report)
        rewards.append(reward)
        assert rewards == [0.0, 0.5, 1.0] and terminated, info
        assert {n["node"]: n["status"] for n in info["nodes"]} == {"on_server": "passed", "reported": "passed"}, info
    finally:
        env.close()


def test_a_client_killed_mid_episode_loses_its_machines_within_the_lease(served):
    # A Python agent holding the server's one slot is killed (SIGKILL: no close, no goodbye); its
    # lease of 3 s lapses and the slot is free for the next start.
    code = (
        "import sys; sys.path.insert(0, sys.argv[1]); from pincer import Client; "
        "c = Client(sys.argv[2], token=sys.argv[3], renew_leases=True); "
        "e = c.start('write-greeting', lease_seconds=3); print(e.episode_id, flush=True); import time; time.sleep(120)"
    )
    child = subprocess.Popen(
        [sys.executable, "-c", code, os.path.join(ROOT, "packages", "python"), served, TOKEN], stdout=subprocess.PIPE, text=True
    )
    try:
        lost = child.stdout.readline().strip()
        assert lost, "the child did not start an episode"
        with Client(served, token=TOKEN) as client:
            time.sleep(4)  # longer than the lease: the child's renewals keep it alive
            with pytest.raises(PincerError) as e:
                client.start("write-greeting", fail_fast=True)
            assert e.value.code == grpc.StatusCode.RESOURCE_EXHAUSTED
            child.kill()
            child.wait(10)
            killed = time.monotonic()
            while True:
                try:
                    episode = client.start("write-greeting", fail_fast=True)
                    break
                except PincerError as err:
                    assert err.code == grpc.StatusCode.RESOURCE_EXHAUSTED
                    assert time.monotonic() - killed < 3 + 10, "the killed client's slot did not come back within its lease"
                    time.sleep(0.25)
            client.close(episode.episode_id)
            assert client.close(lost).end_reason == "lease_expired"
    finally:
        if child.poll() is None:
            child.kill()
            child.wait(10)
