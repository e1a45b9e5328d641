"""`pincer serve` as a child process for the tests that need a real server: started from the repo
root with node (the TypeScript sources through tsx), its address read from its first lines, and its
whole process group stopped at the end."""
from __future__ import annotations

import contextlib
import os
import re
import shutil
import signal
import subprocess
import tempfile
import threading
from typing import Any, Callable, Dict, Iterator, List, Optional, Tuple

from conftest import ROOT

from pincer.osworld import DesktopEnv

CLI = os.path.join(ROOT, "packages", "controller", "src", "cli", "main.ts")


def why_not() -> Optional[str]:
    """Why `pincer serve` with local machines cannot run here, or None."""
    if shutil.which("node") is None:
        return "node is not on PATH"
    if shutil.which("Xvfb") is None:
        return "Xvfb is missing (the local provider's machines): scripts/install-system-deps.sh"
    return None


@contextlib.contextmanager
def node_process(args: List[str], ready: str, start_timeout: float = 90) -> Iterator[str]:
    """Runs `node … ARGS` (the TypeScript sources through tsx) from the repo root in a process group
    of its own, waits for a line matching ``ready`` (a regex whose group 1 is yielded: an address),
    and stops the group at the end (SIGTERM, then SIGKILL)."""
    cmd = ["node", "--single-threaded-gc", "--conditions=@pincer/source", "--import", "tsx", *args]
    proc = subprocess.Popen(cmd, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, start_new_session=True)
    lines: List[str] = []
    found = threading.Event()
    address: List[str] = []

    def read():
        for line in proc.stdout:
            lines.append(line)
            m = re.search(ready, line)
            if m and not address:
                address.append(m.group(1))
                found.set()
        found.set()

    threading.Thread(target=read, daemon=True).start()
    found.wait(start_timeout)
    try:
        if not address:
            raise AssertionError(f"{' '.join(args[:2])} did not print /{ready}/ in {start_timeout} s (exit {proc.poll()}):\n{''.join(lines)}")
        yield address[0]
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGTERM)  # the process group this helper started
            try:
                proc.wait(30)
            except subprocess.TimeoutExpired:
                os.killpg(proc.pid, signal.SIGKILL)
                proc.wait(10)


@contextlib.contextmanager
def serve(dataset: str, args: List[str], token: str, start_timeout: float = 90) -> Iterator[str]:
    """Runs `pincer serve DATASET ARGS… --listen 127.0.0.1:0 --token-file … --out …` and yields its
    address; stops it and removes its folder after."""
    tmp = tempfile.mkdtemp(prefix="pincer-py-serve-")
    token_file = os.path.join(tmp, "token")
    with open(token_file, "w") as f:
        f.write(token + "\n")
    try:
        argv = [CLI, "serve", dataset, *args, "--listen", "127.0.0.1:0", "--token-file", token_file, "--out", os.path.join(tmp, "results")]
        with node_process(argv, r"serving episodes on (\S+)", start_timeout) as address:
            yield address
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def why_no_recording() -> Optional[str]:
    """Why the local machines cannot record their screens (ffmpeg runs on them, so on this host), or None."""
    if shutil.which("ffmpeg") is None:
        return "ffmpeg is missing (the local machines record with it): apt-get install ffmpeg"
    return None


def is_mp4(path: str) -> bool:
    """Whether the file is an MP4 of some substance: an ftyp box first, more than 1 KiB."""
    with open(path, "rb") as f:
        head = f.read(8)
    return head[4:8] == b"ftyp" and os.path.getsize(path) > 1024


def run_single_example(
    server: str, token: str, example: Dict[str, Any], predict: Callable[[Dict[str, Any], int], List[str]], result_dir: str, max_steps: int = 5
) -> Tuple[float, List[Dict[str, Any]], str]:
    """The loop of OSWorld's lib_run_single.run_single_example on Pincer's machines: reset with the
    task file's dict (unchanged), start recording, observe, step each predicted action with its pause
    until done, evaluate, then end the recording into ``result_dir``/recording.mp4 (after evaluate,
    as OSWorld does). Returns the score, each step's info (with "step_done") and the recording's path."""
    env = DesktopEnv(action_space="pyautogui", require_a11y_tree=False, server=server, token=token)
    infos: List[Dict[str, Any]] = []
    try:
        env.reset(task_config=example)
        env.controller.start_recording()
        obs = env._get_obs()
        assert obs["instruction"] == example["instruction"]
        done, step_idx = False, 0
        while not done and step_idx < max_steps:
            for action in predict(obs, step_idx):
                obs, reward, done, info = env.step(action, 0)
                infos.append({**info, "step_done": done})
                if done:
                    break
            step_idx += 1
        score = env.evaluate()
        recording = os.path.join(result_dir, "recording.mp4")
        env.controller.end_recording(recording)
        return score, infos, recording
    finally:
        env.close()
