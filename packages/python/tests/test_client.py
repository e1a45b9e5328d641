"""pincer.Client against an in-process fake of the Episodes service (conftest.FakeEpisodes)."""
import json
import os
import shutil
import subprocess
import time

import grpc
import pytest
from conftest import VIDEO

from pincer import Client, PincerError
from pincer._proto import episodes_pb2


def test_list_start_step_observe_evaluate_close(fake_server):
    fake, address = fake_server
    with Client(address) as client:
        assert [t.id for t in client.list_tasks()] == ["write-greeting", "open-clock"]
        assert [t.id for t in client.list_tasks("x11")] == ["open-clock"]
        ep = client.start("write-greeting", observation="screenshot_a11y_tree", lease_seconds=60)
        assert (ep.episode_id, ep.task_id, ep.max_steps, ep.lease_seconds) == ("ep-1", "write-greeting", 5, 60)
        assert ep.tools == ("desktop__click", "desktop__run_command")
        assert ep.tool_specs[0]["name"] == "desktop__click"
        assert ep.observation["desktop"].accessibility_tree.startswith("<desktop-frame>")
        assert client.open_episodes == ["ep-1"]

        r = client.step(ep.episode_id, {"name": "desktop__click", "arguments": {"x": 1, "y": 2}}, pause=0.5)
        assert (r.step, r.done, r.reward, r.error) == (1, False, 0.0, "")
        assert r.nodes[0].status == "pending"
        sent = fake.requests("Step")[0]
        assert sent.pause_seconds == 0.5 and json.loads(sent.action.tool_call.arguments_json) == {"x": 1, "y": 2}

        assert client.observe(ep.episode_id).step == 1
        assert client.evaluate(ep.episode_id).score == 0.25
        done = client.step(ep.episode_id, "DONE")
        assert (done.done, done.terminated, done.truncated, done.reward, done.end_reason) == (True, True, False, 1.0, "completed")
        assert done.observation is None
        closed = client.close(ep.episode_id)
        assert (closed.state, closed.score, closed.attempt_dir) == ("passed", 1.0, "/runs/ep-1")
        assert client.open_episodes == []


def test_the_token_goes_as_bearer_metadata(fake_server):
    fake, address = fake_server
    fake.token = "s3cret"
    with Client(address, token="s3cret") as client:
        assert len(client.list_tasks()) == 2
    with Client(address, token="wrong") as client, pytest.raises(PincerError) as e:
        client.list_tasks()
    assert e.value.code == grpc.StatusCode.UNAUTHENTICATED
    assert "Bearer" in e.value.details


def test_errors_are_exceptions_carrying_the_status_and_message(fake_server):
    _, address = fake_server
    with Client(address) as client:
        with pytest.raises(PincerError) as e:
            client.start("nope")
        assert e.value.code == grpc.StatusCode.NOT_FOUND
        assert e.value.details == "no task 'nope' in the dataset"
        assert e.value.method == "StartEpisode"
        assert str(e.value) == "StartEpisode: NOT_FOUND: no task 'nope' in the dataset"
        with pytest.raises(PincerError, match="NOT_FOUND: no episode 'ep-9'"):
            client.step("ep-9", "WAIT")
        with pytest.raises(ValueError, match="either a task_id"):
            client.start()
    with Client("127.0.0.1:1", timeout=2) as client, pytest.raises(PincerError) as e:
        client.list_tasks()
    assert e.value.code == grpc.StatusCode.UNAVAILABLE


def test_the_lease_is_renewed_in_the_background_while_the_episode_is_open(fake_server):
    fake, address = fake_server
    client = Client(address)
    ep = client.start("write-greeting", lease_seconds=3)  # renewed every second
    deadline = time.monotonic() + 10
    while fake.count("RenewLease") < 2 and time.monotonic() < deadline:
        time.sleep(0.1)
    assert fake.count("RenewLease") >= 2
    assert all(r.episode_id == ep.episode_id for r in fake.requests("RenewLease"))
    client.close(ep.episode_id)
    renewed = fake.count("RenewLease")
    time.sleep(1.5)
    assert fake.count("RenewLease") == renewed
    client.shutdown()


def test_start_group_and_an_osworld_task_and_shutdown_closes_what_is_open(fake_server):
    fake, address = fake_server
    client = Client(address)
    group = list(client.start_group("open-clock", 3, together=True))
    assert [(e.episode_id, e.group_index) for e in group] == [("ep-1", 0), ("ep-2", 1), ("ep-3", 2)]
    assert fake.requests("StartGroup")[0].size == 3 and fake.requests("StartGroup")[0].together
    ep = client.start(osworld_task={"id": "abc", "instruction": "Do abc", "config": []})
    assert (ep.task_id, ep.instruction) == ("abc", "Do abc")
    assert json.loads(fake.requests("StartEpisode")[0].osworld_task_json)["id"] == "abc"
    assert client.renew(ep.episode_id, 120) == 120
    client.shutdown()
    assert sorted(r.episode_id for r in fake.requests("CloseEpisode")) == ["ep-1", "ep-2", "ep-3", "ep-4"]


def test_a_recording_ends_as_bytes_or_as_a_file_written_whole(fake_server, tmp_path):
    fake, address = fake_server
    with Client(address) as client:
        ep = client.start("write-greeting")
        assert client.start_recording(ep.episode_id) == ["desktop"]
        assert client.end_recording(ep.episode_id) == VIDEO
        with pytest.raises(PincerError) as e:
            client.end_recording(ep.episode_id)
        assert e.value.code == grpc.StatusCode.FAILED_PRECONDITION and "call StartRecording first" in e.value.details

        assert client.start_recording(ep.episode_id, environment="desktop") == ["desktop"]
        with pytest.raises(PincerError) as e:
            client.start_recording(ep.episode_id)
        assert e.value.code == grpc.StatusCode.FAILED_PRECONDITION
        dest = tmp_path / "video.mp4"
        assert client.end_recording(ep.episode_id, str(dest), environment="desktop") is None
        assert dest.read_bytes() == VIDEO and os.listdir(tmp_path) == ["video.mp4"]

        # A stream that breaks leaves no part of the video: dest stays as it was, no temporary file.
        dest.write_bytes(b"old")
        client.start_recording(ep.episode_id)
        fake.recording_breaks = True
        with pytest.raises(PincerError) as e:
            client.end_recording(ep.episode_id, str(dest))
        assert e.value.code == grpc.StatusCode.UNAVAILABLE and e.value.method == "EndRecording"
        assert dest.read_bytes() == b"old" and os.listdir(tmp_path) == ["video.mp4"]
        assert [r.environment for r in fake.requests("EndRecording")] == ["", "", "desktop", ""]


def test_a_step_with_no_action_kind_is_refused_by_the_server(fake_server):
    _, address = fake_server
    with Client(address) as client:
        ep = client.start("write-greeting")
        with pytest.raises(PincerError) as e:
            client.step(ep.episode_id, episodes_pb2.Action())
        assert e.value.code == grpc.StatusCode.INVALID_ARGUMENT


def _certs(tmp_path):
    """A CA, a server certificate for localhost and a client certificate, made with openssl."""
    def run(*args):
        subprocess.run(["openssl", *args], cwd=tmp_path, check=True, capture_output=True)

    def key(name):
        run("genpkey", "-algorithm", "EC", "-pkeyopt", "ec_paramgen_curve:P-256", "-out", f"{name}.key")

    key("ca")
    run("req", "-x509", "-new", "-key", "ca.key", "-sha256", "-days", "2", "-subj", "/CN=Pincer Test CA", "-out", "ca.crt")
    for name, ext in (("server", "subjectAltName=DNS:localhost\nextendedKeyUsage=serverAuth\n"), ("client", "extendedKeyUsage=clientAuth\n")):
        key(name)
        run("req", "-new", "-key", f"{name}.key", "-subj", f"/CN={name}", "-out", f"{name}.csr")
        (tmp_path / f"{name}.ext").write_text(ext)
        run("x509", "-req", "-in", f"{name}.csr", "-CA", "ca.crt", "-CAkey", "ca.key", "-CAcreateserial", "-days", "2", "-sha256",
            "-extfile", f"{name}.ext", "-out", f"{name}.crt")
    return {n: (tmp_path / n).read_bytes() for n in ("ca.crt", "server.crt", "server.key", "client.crt", "client.key")}


def test_mutual_tls_with_a_client_certificate(tmp_path):
    if shutil.which("openssl") is None:
        pytest.skip("openssl is missing: apt-get install openssl")
    from concurrent import futures

    from conftest import FakeEpisodes
    from pincer._proto import episodes_pb2_grpc

    pem = _certs(tmp_path)
    server = grpc.server(futures.ThreadPoolExecutor(max_workers=4))
    episodes_pb2_grpc.add_EpisodesServicer_to_server(FakeEpisodes(), server)
    creds = grpc.ssl_server_credentials([(pem["server.key"], pem["server.crt"])], root_certificates=pem["ca.crt"], require_client_auth=True)
    port = server.add_secure_port("localhost:0", creds)
    server.start()
    try:
        with Client(f"localhost:{port}", tls=True, root_certificates=pem["ca.crt"], private_key=pem["client.key"],
                    certificate_chain=pem["client.crt"], timeout=10) as client:
            assert [t.id for t in client.list_tasks()] == ["write-greeting", "open-clock"]
        with Client(f"localhost:{port}", tls=True, root_certificates=pem["ca.crt"], timeout=10) as anonymous, pytest.raises(PincerError):
            anonymous.list_tasks()
    finally:
        server.stop(None)
