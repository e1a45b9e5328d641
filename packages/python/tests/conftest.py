"""Shared fixtures: the generated stubs (built from proto/ when missing), and an in-process fake of
the Episodes service that records what the client sent, for the tests that need no `pincer serve`."""
from __future__ import annotations

import json
import os
import sys
import threading
from concurrent import futures

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
PACKAGE = os.path.dirname(HERE)
ROOT = os.path.dirname(os.path.dirname(PACKAGE))
sys.path.insert(0, PACKAGE)

if not os.path.exists(os.path.join(PACKAGE, "pincer", "_proto", "episodes_pb2.py")):
    import build_stubs

    build_stubs.build()

import grpc  # noqa: E402

from pincer._proto import common_pb2, episodes_pb2, episodes_pb2_grpc  # noqa: E402

PNG = b"\x89PNG\r\n\x1a\nfake"
# What the fake's EndRecording streams: an MP4's ftyp box, then filler, in three chunks.
VIDEO = b"\x00\x00\x00\x18ftypisom" + bytes(range(256)) * 12
VIDEO_CHUNK = 1200


def observation(step: int, options: episodes_pb2.ObservationOptions, names=("desktop",)) -> episodes_pb2.Observation:
    tree = {
        episodes_pb2.ACCESSIBILITY_FORM_TEXT: "[window] Terminal",
        episodes_pb2.ACCESSIBILITY_FORM_OSWORLD_XML: "<desktop-frame><application name='xterm'/></desktop-frame>",
    }.get(options.accessibility, "")
    return episodes_pb2.Observation(
        step=step,
        environments=[
            episodes_pb2.EnvironmentObservation(
                name=n,
                screenshot=PNG + n.encode() if options.screenshot else b"",
                mime_type="image/png" if options.screenshot else "",
                width=640,
                height=400,
                source=common_pb2.Region(x=0, y=0, width=1280, height=800),
                scale=0.5,
                accessibility_tree=tree,
            )
            for n in names
        ],
    )


class FakeEpisodes(episodes_pb2_grpc.EpisodesServicer):
    """Episodes that end with reward 1 on DONE (0 on FAIL), after `max_steps` steps (truncated), and
    answer NOT_FOUND for unknown ids. `token`, when set, is required as `authorization: Bearer`.
    A recording (StartRecording) is ended by EndRecording, which streams VIDEO; with
    `recording_breaks`, the stream fails after its first chunk."""

    def __init__(self, token: str | None = None, max_steps: int = 5):
        self.token = token
        self.max_steps = max_steps
        self.recording_breaks = False
        self.calls: list[tuple[str, object]] = []
        self.episodes: dict[str, dict] = {}
        self.started = 0
        self.lock = threading.Lock()

    def _check(self, method, request, context):
        with self.lock:
            self.calls.append((method, request))
        if self.token is not None:
            md = dict(context.invocation_metadata())
            if md.get("authorization") != f"Bearer {self.token}":
                context.abort(grpc.StatusCode.UNAUTHENTICATED, "missing or wrong token: pass authorization: Bearer <token>")

    def _episode(self, episode_id, context):
        ep = self.episodes.get(episode_id)
        if ep is None:
            context.abort(grpc.StatusCode.NOT_FOUND, f"no episode {episode_id!r}")
        return ep

    def count(self, method: str) -> int:
        with self.lock:
            return sum(1 for m, _ in self.calls if m == method)

    def requests(self, method: str) -> list:
        with self.lock:
            return [r for m, r in self.calls if m == method]

    def ListTasks(self, request, context):
        self._check("ListTasks", request, context)
        tasks = [
            episodes_pb2.TaskInfo(id="write-greeting", instruction="Write a greeting", tags=["cli"], environments=["desktop"], action_spaces=["tool_call", "special"], max_steps=5),
            episodes_pb2.TaskInfo(id="open-clock", instruction="Open the clock", tags=["x11"], environments=["desktop"], action_spaces=["tool_call", "special", "pyautogui"], max_steps=5),
        ]
        return episodes_pb2.ListTasksResponse(tasks=[t for t in tasks if request.filter.lower() in (t.id + t.instruction + " ".join(t.tags)).lower()])

    def _start(self, request):
        self.started += 1
        eid = f"ep-{self.started}"
        if request.WhichOneof("task") == "osworld_task_json":
            task = json.loads(request.osworld_task_json)
            task_id, instruction = task["id"], task["instruction"]
        else:
            task_id, instruction = request.task_id, f"Do {request.task_id}"
        if task_id == "broken-setup":
            self.episodes[eid] = {"step": 0, "done": True, "score": 0.0, "end_reason": "setup_failed", "closed": False}
            return episodes_pb2.StartEpisodeResponse(episode_id=eid, task_id=task_id, instruction=instruction, done=True, end_reason="setup_failed", lease_seconds=request.lease_seconds or 300)
        self.episodes[eid] = {"step": 0, "done": False, "score": 0.0, "end_reason": "", "closed": False}
        return episodes_pb2.StartEpisodeResponse(
            episode_id=eid,
            task_id=task_id,
            instruction=instruction,
            observation=observation(0, request.observation),
            max_steps=self.max_steps,
            tools=["desktop__click", "desktop__run_command"],
            tools_json=json.dumps([{"name": "desktop__click", "description": "Click", "parameters": {"type": "object"}}]),
            lease_seconds=request.lease_seconds or 300,
        )

    def StartEpisode(self, request, context):
        self._check("StartEpisode", request, context)
        if request.WhichOneof("task") is None:
            context.abort(grpc.StatusCode.INVALID_ARGUMENT, "give task_id or osworld_task_json")
        if request.task_id == "nope":
            context.abort(grpc.StatusCode.NOT_FOUND, "no task 'nope' in the dataset")
        return self._start(request)

    def StartGroup(self, request, context):
        self._check("StartGroup", request, context)
        size = request.size or 1
        for i in range(size):
            yield episodes_pb2.StartGroupResponse(index=i, episode=self._start(request.episode), remaining=size - i - 1)

    def Step(self, request, context):
        self._check("Step", request, context)
        ep = self._episode(request.episode_id, context)
        if ep["done"]:
            context.abort(grpc.StatusCode.FAILED_PRECONDITION, "the episode has ended: close it")
        kind = request.action.WhichOneof("kind")
        if kind is None:
            context.abort(grpc.StatusCode.INVALID_ARGUMENT, "the action has no kind")
        ep["step"] += 1
        resp = episodes_pb2.StepResponse(step=ep["step"], nodes=[episodes_pb2.NodeVerdict(node="goal", status="pending", score=0.0, reason="not yet")])
        if kind == "tool_call" and request.action.tool_call.name == "bad__tool":
            resp.error = "unknown tool bad__tool"
        if kind == "special" and request.action.special in (episodes_pb2.Action.SPECIAL_DONE, episodes_pb2.Action.SPECIAL_FAIL):
            ep["done"] = True
            ep["score"] = 1.0 if request.action.special == episodes_pb2.Action.SPECIAL_DONE else 0.0
            ep["end_reason"] = "completed" if request.action.special == episodes_pb2.Action.SPECIAL_DONE else "infeasible"
            resp.done = resp.terminated = True
        elif ep["step"] >= self.max_steps:
            ep["done"] = True
            ep["end_reason"] = "max_steps"
            resp.done = resp.truncated = True
        resp.reward = ep["score"]
        resp.end_reason = ep["end_reason"]
        if not ep["done"]:
            resp.observation.CopyFrom(observation(ep["step"], request.observation))
        return resp

    def Observe(self, request, context):
        self._check("Observe", request, context)
        ep = self._episode(request.episode_id, context)
        return episodes_pb2.ObserveResponse(observation=observation(ep["step"], request.observation))

    def Evaluate(self, request, context):
        self._check("Evaluate", request, context)
        ep = self._episode(request.episode_id, context)
        return episodes_pb2.EvaluateResponse(score=0.25 + ep["score"] * 0.75, reason="evaluated", success=ep["score"] == 1.0, nodes=[episodes_pb2.NodeVerdict(node="goal", status="fail", score=0.25)])

    def CloseEpisode(self, request, context):
        self._check("CloseEpisode", request, context)
        ep = self._episode(request.episode_id, context)
        ep["closed"] = True
        return episodes_pb2.CloseEpisodeResponse(
            state="passed" if ep["score"] == 1.0 else "failed", score=ep["score"], attempt_dir=f"/runs/{request.episode_id}", end_reason=ep["end_reason"] or "closed"
        )

    def StartRecording(self, request, context):
        self._check("StartRecording", request, context)
        ep = self._episode(request.episode_id, context)
        if ep.get("recording"):
            context.abort(grpc.StatusCode.FAILED_PRECONDITION, f"episode {request.episode_id} is recording already")
        ep["recording"] = request.environment or "desktop"
        return episodes_pb2.StartRecordingResponse(environments=[ep["recording"]])

    def EndRecording(self, request, context):
        self._check("EndRecording", request, context)
        ep = self._episode(request.episode_id, context)
        environment = ep.pop("recording", None)
        if environment is None:
            context.abort(grpc.StatusCode.FAILED_PRECONDITION, f"episode {request.episode_id} is not recording: call StartRecording first")
        for offset in range(0, len(VIDEO), VIDEO_CHUNK):
            if offset and self.recording_breaks:
                context.abort(grpc.StatusCode.UNAVAILABLE, "the server went away mid-video")
            head = {"mime_type": "video/mp4", "size": len(VIDEO), "environment": environment} if offset == 0 else {}
            yield episodes_pb2.EndRecordingResponse(chunk=VIDEO[offset : offset + VIDEO_CHUNK], **head)

    def RenewLease(self, request, context):
        self._check("RenewLease", request, context)
        self._episode(request.episode_id, context)
        return episodes_pb2.RenewLeaseResponse(lease_seconds=request.lease_seconds or 300)


@pytest.fixture
def fake_server():
    """(servicer, address) of a fake Episodes server on a free loopback port."""
    servicer = FakeEpisodes()
    server = grpc.server(futures.ThreadPoolExecutor(max_workers=8))
    episodes_pb2_grpc.add_EpisodesServicer_to_server(servicer, server)
    port = server.add_insecure_port("127.0.0.1:0")
    server.start()
    try:
        yield servicer, f"127.0.0.1:{port}"
    finally:
        server.stop(None)
