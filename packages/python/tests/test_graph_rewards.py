"""Against a real `pincer serve test/fixtures/graph-dataset --provider local`: a task of the JSON
task format whose evaluation is a graph of two nodes (a.txt written, then b.txt) gives a served
episode dense rewards, as a task module's graph does. Skipped, with the reason, where `pincer serve`
or the local machines' programs are not there."""
from __future__ import annotations

import pytest
from serving import serve, why_not

import pincer

pytestmark = pytest.mark.server

TOKEN = "pincer-python-graph-token"


@pytest.fixture(scope="module")
def served():
    """The address of `pincer serve test/fixtures/graph-dataset --provider local` (with a token), for the module."""
    reason = why_not()
    if reason:
        pytest.skip(reason)
    with serve("test/fixtures/graph-dataset", ["--provider", "local"], TOKEN) as address:
        yield address


def test_a_json_graph_task_gives_partial_credit_as_the_agent_goes(served):
    # files/two-files: node a_written (a.txt holds alpha), then b_written (b.txt holds beta); the
    # reward is the mean of the nodes' scores after each step.
    env = pincer.make("two-files", server=served, token=TOKEN, action_space="tool_call", observation="none")
    try:
        env.reset()
        rewards = []
        terminated = False
        info = {}
        # A step that writes nothing first: its reward is observed too, not assumed.
        for command in ("ls /tmp/pincer-graph", "echo alpha > /tmp/pincer-graph/a.txt", "echo beta > /tmp/pincer-graph/b.txt"):
            _, reward, terminated, _, info = env.step({"name": "desktop__run_command", "arguments": {"command": command}})
            assert info["error"] == "", info
            rewards.append(reward)
            assert terminated == (len(rewards) == 3), info
        assert rewards == [0.0, 0.5, 1.0] and terminated, info
        assert {n["node"]: n["status"] for n in info["nodes"]} == {"a_written": "passed", "b_written": "passed"}, info
    finally:
        env.close()
