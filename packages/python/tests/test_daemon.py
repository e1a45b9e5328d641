"""pincer.daemon against a real pincer-daemon started from the repo root with node, on an Xvfb of its
own (--xvfb) with the accessibility buses, behind a token: every group of methods, for real (the
pointer where it was moved, text typed into a real xterm, a zenity dialog's accessible buttons).
Skipped, with the reason, where node, Xvfb or the programs are missing."""
from __future__ import annotations

import os
import shutil
import tempfile
import time

import grpc
import pytest
from conftest import ROOT
from serving import node_process

from pincer import PincerError, daemon

MAIN = os.path.join(ROOT, "packages", "daemon", "src", "main.ts")
TOKEN = "pincer-python-daemon-test-token"
PNG = b"\x89PNG\r\n\x1a\n"


def _why_not() -> str | None:
    for program in ("node", "Xvfb"):
        if shutil.which(program) is None:
            return f"{program} is missing (scripts/install-system-deps.sh)"
    return None


def _until(check, seconds: float = 15.0):
    """check()'s first truthy value, polled every 0.1 s for at most ``seconds``."""
    end = time.monotonic() + seconds
    while True:
        value = check()
        if value or time.monotonic() > end:
            return value
        time.sleep(0.1)


@pytest.fixture(scope="module")
def served():
    """(address, tmp folder) of a pincer-daemon on 127.0.0.1:0 with an Xvfb and a token, for the module."""
    reason = _why_not()
    if reason:
        pytest.skip(reason)
    tmp = tempfile.mkdtemp(prefix="pincer-py-daemon-")
    token_file = os.path.join(tmp, "token")
    with open(token_file, "w") as f:
        f.write(TOKEN + "\n")
    os.chmod(token_file, 0o600)
    args = [
        MAIN, "--host", "127.0.0.1", "--port", "0", "--token-file", token_file, "--xvfb", "1280x800x24", "--accessibility-bus", "--quiet",
    ]
    try:
        with node_process(args, r"listening on (\S+)", 60) as address:
            yield address, tmp
    finally:
        shutil.rmtree(tmp, ignore_errors=True)

@pytest.fixture
def machine(served):
    with daemon.connect(served[0], TOKEN) as m:
        yield m


def test_the_token_is_required(served):
    with daemon.connect(served[0]) as anonymous, pytest.raises(PincerError) as e:
        anonymous.screen_size()
    assert e.value.code == grpc.StatusCode.UNAUTHENTICATED
    assert e.value.method == "Screen/GetScreenSize"
    with daemon.connect(served[0], "wrong-token-wrong-token") as wrong, pytest.raises(PincerError) as e:
        wrong.info()
    assert e.value.code == grpc.StatusCode.UNAUTHENTICATED


def test_info_screen_and_screenshots(machine):
    info = machine.info()
    assert info.os and info.daemon_version and info.display.startswith(":")
    assert machine.screen_size() == (1280, 800)
    shot = machine.screenshot()
    assert shot.data[:8] == PNG and (shot.width, shot.height) == (1280, 800) and shot.format == "png"
    small = machine.screenshot("jpeg", max_width=640, max_height=400)
    assert small.data[:2] == b"\xff\xd8" and (small.width, small.height) == (640, 400) and small.scale == pytest.approx(0.5)
    with pytest.raises(ValueError):
        machine.screenshot("gif")


def test_the_screen_as_a_stream(machine):
    frames = machine.watch_screen("jpeg", max_width=640, max_fps=10)
    seq, captured_at_ms, frame = next(frames)
    assert seq == 1 and abs(captured_at_ms - time.time() * 1000) < 60_000
    assert frame.data[:2] == b"\xff\xd8" and (frame.width, frame.height) == (640, 400) and frame.scale == pytest.approx(0.5)
    frames.close()  # cancels the stream


def test_the_pointer_goes_where_it_is_sent(machine):
    assert machine.move(100, 200) == (100, 200)
    assert machine.cursor_position() == (100, 200)
    assert machine.click(300, 310, button="right") == (300, 310)
    assert machine.click(clicks=2) == (300, 310)
    assert machine.scroll(dy=2, x=50, y=60) == (50, 60)
    assert machine.drag([(10, 10), (200, 150), (400, 300)], step_delay_ms=5) == (400, 300)
    machine.mouse_down()
    assert machine.mouse_up() == (400, 300)
    with pytest.raises(ValueError):
        machine.click(button="fourth")


def test_keys_are_held_and_released(machine):
    assert [k.lower() for k in machine.key_down("shift")] == ["shift_l"]
    assert machine.key_up("shift") == []


def test_text_typed_and_keys_pressed_reach_a_real_xterm(machine, served):
    if shutil.which("xterm") is None:
        pytest.skip("xterm is missing")
    out = os.path.join(served[1], "typed.txt")
    pid, window = machine.launch(["xterm", "-e", "sh", "-c", f"read a; read b; printf '%s|%s' \"$a\" \"$b\" > {out}"], wait_for_class="XTerm")
    assert pid > 0 and window is not None and window.class_name == "XTerm"
    assert any(w.id == window.id for w in machine.list_windows())
    machine.focus_window(window.id)
    machine.type_text("hello pincer\n")
    machine.type_text("second")
    machine.press_keys("Return")
    assert _until(lambda: os.path.exists(out) and open(out).read() == "hello pincer|second"), open(out).read() if os.path.exists(out) else "nothing written"


def test_commands_run_with_their_output_exit_code_and_timeout(machine, served):
    r = machine.run("echo out; echo err >&2; exit 3")
    assert (r.exit_code, r.stdout, r.stderr, r.ok) == (3, b"out\n", b"err\n", False)
    r = machine.run(["cat"], stdin=b"in")
    assert r.ok and r.stdout == b"in"
    assert machine.run("pwd", cwd=served[1]).stdout.decode().strip() == served[1]
    assert machine.run("echo $GREETING", env={"GREETING": "hi"}).stdout == b"hi\n"
    slow = machine.run(["sleep", "30"], timeout=0.5)
    assert slow.timed_out and slow.exit_code is None and slow.signal


def test_files_stream_both_ways_and_are_listed(machine, served):
    folder = os.path.join(served[1], "files", "deep")
    path = os.path.join(folder, "blob.bin")
    data = os.urandom(2 * 1024 * 1024 + 123)
    assert machine.write_file(path, data) == len(data)
    with open(path, "rb") as f:
        assert f.read() == data
    assert machine.read_file(path) == data
    assert machine.write_file(os.path.join(folder, "note.txt"), "été\n") == len("été\n".encode())
    info = machine.stat(path)
    assert (info.type, info.size, info.name) == ("file", len(data), "blob.bin")
    assert sorted(e.name for e in machine.list_dir(folder)) == ["blob.bin", "note.txt"]
    assert machine.exists(path) and not machine.exists(path + ".missing")
    assert machine.make_dir(os.path.join(folder, "sub")) is True
    assert machine.remove(os.path.join(served[1], "files"), recursive=True) is True
    with pytest.raises(PincerError) as e:
        machine.read_file(path)
    assert e.value.code == grpc.StatusCode.NOT_FOUND and e.value.method == "Files/Download"


def test_the_clipboard(machine):
    machine.set_clipboard("copied by pincer.daemon")
    assert machine.get_clipboard() == "copied by pincer.daemon"


def test_a_real_dialogs_accessibility_tree_and_its_window(machine):
    if shutil.which("zenity") is None:
        pytest.skip("zenity is missing")
    pid, window = machine.launch(["zenity", "--question", "--text", "Save the file?"], wait_for_title="Question")
    try:

        def buttons():
            tree = machine.accessibility_tree("zenity", linearized=True)
            found = []
            stack = list(tree.applications)
            while stack:
                node = stack.pop()
                stack.extend(node.children)
                if node.role == "push button":
                    found.append(node.name)
            return (sorted(found), tree) if len(found) >= 2 else None

        result = _until(buttons, 20)
        assert result, "zenity's buttons never showed in the accessibility tree"
        names, tree = result
        assert names == ["No", "Yes"] and "Save the file?" in tree.linearized and tree.node_count > 0
        assert window is not None and "Question" in window.title
        machine.close_window(window.id)
        assert _until(lambda: all(w.id != window.id for w in machine.list_windows()), 10)
    finally:
        try:
            machine.kill(pid, "SIGKILL")
        except PincerError:
            pass
