"""Against a real `pincer serve examples --provider local --grant-machines` (with a token), started
from the repo root with node: an episode's machine driven through its grant with pincer.daemon,
the grant revoked by CloseEpisode. Skipped, with the reason, where `pincer serve` or the local
machines' programs are not there."""
from __future__ import annotations

import re

import grpc
import pytest
from serving import serve, why_not

from pincer import Client, PincerError, daemon
from pincer.client import Episode

pytestmark = pytest.mark.server

TOKEN = "pincer-python-grant-test-token"
GREETING = "/tmp/pincer-demo/write-greeting/greeting.txt"


@pytest.fixture(scope="module")
def served():
    """The address of `pincer serve examples --provider local --grant-machines` (with a token), for the module."""
    reason = why_not()
    if reason:
        pytest.skip(reason)
    with serve("examples", ["--provider", "local", "--grant-machines", "--settle", "off"], TOKEN) as address:
        yield address


def test_the_grant_drives_the_episodes_machine_until_the_episode_closes(served):
    with Client(served, token=TOKEN) as client:
        episode = client.start("write-greeting", observation="none")
        try:
            assert [(g.environment, g.address) for g in episode.machines] == [("desktop", served)]
            assert re.fullmatch(r"[0-9a-f]{64}", episode.machines[0].token)
            machine = client.machine(episode)
            assert machine.screenshot().data[:8] == b"\x89PNG\r\n\x1a\n"
            # What the grant writes, the episode's own step and its evaluator read: the same machine.
            assert machine.write_file(GREETING, "Hello from Pincer\n") == len("Hello from Pincer\n")
            step = client.step(episode.episode_id, {"name": "desktop__run_command", "arguments": {"command": f"cat {GREETING}"}})
            assert step.result["stdout"] == "Hello from Pincer\n"
            assert client.evaluate(episode.episode_id).score == 1.0
            assert machine.read_file(GREETING) == b"Hello from Pincer\n"
            assert machine.run(["cat", GREETING]).stdout == b"Hello from Pincer\n"
        finally:
            client.close(episode.episode_id)
        with pytest.raises(PincerError) as e:
            machine.run("true")
        assert e.value.code == grpc.StatusCode.UNAUTHENTICATED and "revoked" in e.value.details


def test_the_server_token_opens_no_machine_and_a_wrong_grant_is_refused(served):
    for token in (TOKEN, "0" * 64, None):
        with daemon.connect(served, token) as machine, pytest.raises(PincerError) as e:
            machine.screen_size()
        assert e.value.code == grpc.StatusCode.UNAUTHENTICATED


def test_an_episode_of_two_machines_has_a_grant_each(served):
    with Client(served, token=TOKEN) as client:
        episode = client.start("hand-over", observation="none")
        try:
            assert sorted(g.environment for g in episode.machines) == ["desktop", "server"]
            with pytest.raises(ValueError, match="several machines"):
                client.machine(episode)
            with pytest.raises(KeyError):
                client.machine(episode, "laptop")
            desktop, server = client.machine(episode, "desktop"), client.machine(episode, "server")
            # Each grant is its own machine: its own pointer, and the desktop's file as the episode's step reads it.
            desktop.move(11, 22)
            server.move(33, 44)
            assert (desktop.cursor_position(), server.cursor_position()) == ((11, 22), (33, 44))
            token_file = "/tmp/pincer-demo/hand-over/desktop/token.txt"
            step = client.step(episode.episode_id, {"name": "desktop__run_command", "arguments": {"command": f"cat {token_file}"}})
            assert desktop.read_file(token_file).decode() == step.result["stdout"] != ""
        finally:
            client.close(episode.episode_id)


def test_an_episode_without_grants_says_how_to_get_them():
    episode = Episode("ep-1", "t", "do it", None, 5, (), 300)
    with Client("127.0.0.1:1", renew_leases=False) as client, pytest.raises(ValueError, match="--grant-machines"):
        client.machine(episode)
