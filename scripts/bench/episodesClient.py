"""The Python side of `npm run bench -- episodes`: loops of steps and episodes, timed in one Python
process with time.perf_counter, printed as one JSON object on stdout (scripts/bench/episodesBench.ts
reads it). Run with Debian's python3 (python3-grpcio) and packages/python on PYTHONPATH:

    /usr/bin/python3 episodesClient.py steps ARGS_JSON
    /usr/bin/python3 episodesClient.py episodes ARGS_JSON

steps: interleaved rounds of the same step (a key press, then the settled screen's screenshot)
through `pincer serve` with pincer.Client, straight on a daemon with its gRPC stubs, and, when a
Flask stand-in of OSWorld's server is given, as OSWorld's DesktopEnv does it (POST /execute, GET
/screenshot); then starts of a quick task, each after a pause. episodes: episodes of a quick task
(start, its solution, close) from `concurrency` threads until `count` have closed.
"""

import json
import sys
import threading
import time
import urllib.request

import grpc

from pincer import Client
from pincer._proto import input_pb2, input_pb2_grpc, screen_pb2, screen_pb2_grpc

# The service's settle before an observation (DEFAULT_SETTLE in packages/controller/src/benchmark/screenObservation.ts).
SETTLE = dict(quiet_ms=300, initial_quiet_ms=1500, timeout_ms=5000, since_last_wait=True)
# Keys that change the terminal's line and put it back, so every loop sees the same screens.
KEYS = ("a", "BackSpace")


def ms(t0):
    return (time.perf_counter() - t0) * 1000


class Direct:
    """Calls straight on a daemon, as the service makes them on its machine."""

    def __init__(self, address):
        self.channel = grpc.insecure_channel(address, options=[("grpc.max_receive_message_length", 256 * 1024 * 1024)])
        self.input = input_pb2_grpc.InputStub(self.channel)
        self.screen = screen_pb2_grpc.ScreenStub(self.channel)

    def press(self, key):
        self.input.PressKeys(input_pb2.PressKeysRequest(chord=key, repeat=1), timeout=30)

    def settle(self):
        """The daemon's own time waiting, in ms."""
        return self.screen.WaitForSettle(screen_pb2.WaitForSettleRequest(**SETTLE), timeout=15).waited_ms

    def png(self):
        return self.screen.Screenshot(screen_pb2.ScreenshotRequest(format=screen_pb2.IMAGE_FORMAT_PNG), timeout=20).data


class OsworldStyle:
    """OSWorld's PythonController against the Flask stand-in: a fresh HTTP connection per call."""

    def __init__(self, port):
        self.base = f"http://127.0.0.1:{port}"

    def press(self, key):
        # OSWorld sends `python -c "import pyautogui; ...; pyautogui.press(key)"`; Debian has no
        # pyautogui, so the stand-in runs xdotool, which costs less than that.
        body = json.dumps({"command": ["xdotool", "key", key], "shell": False}).encode()
        req = urllib.request.Request(self.base + "/execute", data=body, headers={"Content-Type": "application/json"})
        with urllib.request.urlopen(req, timeout=60) as r:
            out = json.loads(r.read())
        if out.get("returncode") != 0:
            raise RuntimeError(f"/execute xdotool key {key}: {out}")

    def screenshot(self):
        with urllib.request.urlopen(self.base + "/screenshot", timeout=60) as r:
            return r.read()


def steps(a):
    client = Client(a["server"], token=a["token"], timeout=120)
    direct = Direct(a["daemon"])
    peer = OsworldStyle(a["flask_port"]) if a.get("flask_port") else None
    n = 0
    ep = client.start(a["step_task"], observation="screenshot", lease_seconds=600)
    # Each timed step's settle wait, in ms: the daemon's answer straight on it; for the service, the
    # number of the episode's step, whose wait the attempt's trajectory records.
    waited = {"direct": []}
    service_steps = []

    sizes = {"service": [], "direct": [], "flask": []}

    def service_step():
        r = client.step(ep.episode_id, {"name": "desktop__key", "arguments": {"keys": KEYS[n % 2]}}, observation="screenshot")
        if r.error or r.done or not r.observation["desktop"].screenshot:
            raise RuntimeError(f"the service's step failed: error {r.error!r}, done {r.done} ({r.end_reason})")
        sizes["service"].append(len(r.observation["desktop"].screenshot))
        return r.step

    def direct_step():
        direct.press(KEYS[n % 2])
        w = direct.settle()
        sizes["direct"].append(len(direct.png()))
        return w

    def direct_unsettled():
        direct.press(KEYS[n % 2])
        direct.png()

    def flask_step():
        peer.press(KEYS[n % 2])
        png = peer.screenshot()
        if png[:8] != b"\x89PNG\r\n\x1a\n":
            raise RuntimeError("GET /screenshot did not answer a PNG")
        sizes["flask"].append(len(png))

    loops = {"service": service_step, "direct": direct_step, "direct_unsettled": direct_unsettled}
    if peer:
        loops["flask"] = flask_step
    times = {k: [] for k in loops}
    try:
        for fn in loops.values():  # warm-up, untimed
            for _ in range(a["warmup"]):
                fn()
                n += 1
        for _ in range(a["rounds"]):
            for name, fn in loops.items():
                for _ in range(a["per_round"]):
                    t0 = time.perf_counter()
                    got = fn()
                    times[name].append(ms(t0))
                    if name == "service":
                        service_steps.append(got)
                    elif name in waited:
                        waited[name].append(got)
                    n += 1
    finally:
        attempt_dir = client.close(ep.episode_id).attempt_dir
    starts = []
    for _ in range(a["starts"]):
        time.sleep(a["start_pause_s"])
        t0 = time.perf_counter()
        e = client.start(a["quick_task"], observation="screenshot")
        starts.append(ms(t0))
        client.close(e.episode_id)
    client.shutdown()
    return {
        "times": times,
        "waited_ms": waited,
        "service_steps": service_steps,
        "attempt_dir": attempt_dir,
        "starts": starts,
        "png_bytes": sizes,
    }


def episodes(a):
    client = Client(a["server"], token=a["token"], timeout=300)
    lock = threading.Lock()
    left = [a["count"]]
    starts, closes, states, errors = [], [], [], []

    def worker():
        while True:
            with lock:
                if left[0] == 0 or errors:
                    return
                left[0] -= 1
            try:
                t0 = time.perf_counter()
                ep = client.start(a["task"], observation="screenshot")
                started = ms(t0)
                for action in a["solution"]:
                    r = client.step(ep.episode_id, action, observation="screenshot")
                    if r.done:
                        break
                t0 = time.perf_counter()
                closed = client.close(ep.episode_id)
                with lock:
                    starts.append(started)
                    closes.append(ms(t0))
                    states.append(closed.state)
            except Exception as e:  # noqa: BLE001 - reported to the bench, which fails
                with lock:
                    errors.append(repr(e))

    t0 = time.perf_counter()
    threads = [threading.Thread(target=worker) for _ in range(a["concurrency"])]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    wall = ms(t0)
    client.shutdown()
    return {"wall_ms": wall, "starts": starts, "closes": closes, "states": states, "errors": errors}


if __name__ == "__main__":
    mode, args = sys.argv[1], json.loads(sys.argv[2])
    print(json.dumps({"steps": steps, "episodes": episodes}[mode](args)), flush=True)
