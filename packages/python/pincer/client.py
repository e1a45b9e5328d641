"""A typed client of Pincer's episode service (``pincer serve DATASET``, gRPC service ``pincer.v1.Episodes``).

>>> client = Client("127.0.0.1:50051", token=None)
>>> episode = client.start("write-greeting")
>>> result = client.step(episode.episode_id, {"name": "desktop__run_command", "arguments": {"command": "true"}})
>>> client.close(episode.episode_id)

While an episode is open (from ``start``/``start_group`` to ``close``) a background thread renews
its lease, so an agent that thinks for minutes between steps does not lose its machines. Every
failed call raises :class:`PincerError` carrying the gRPC status code and the server's message.
"""
from __future__ import annotations

import dataclasses
import json
import os
import tempfile
import threading
import time
from typing import Any, Dict, Iterator, List, Mapping, Optional, Tuple, Union

import grpc

# messages.py imports the generated stubs first, and says how to build them when they are missing.
from .messages import (  # noqa: F401 - re-exported: the client's values
    PincerError,
    Episode,
    MachineGrant,
    StepResult,
    Evaluation,
    CloseResult,
    NodeVerdict,
    TaskInfo,
    Observation,
    EnvironmentObservation,
    Mark,
    ObservationOptions,
    ObservationLike,
    ActionLike,
    SPECIAL_ACTIONS,
    to_action,
)
from ._proto import common_pb2, episodes_pb2, episodes_pb2_grpc

__all__ = [
    "Client",
    "PincerError",
    "Episode",
    "MachineGrant",
    "StepResult",
    "Evaluation",
    "CloseResult",
    "NodeVerdict",
    "TaskInfo",
    "Observation",
    "EnvironmentObservation",
    "Mark",
    "ObservationOptions",
    "SPECIAL_ACTIONS",
    "to_action",
    "episodes_pb2",
    "episodes_pb2_grpc",
]


class _Renewer:
    """One daemon thread that renews the lease of every open episode of a client every third of its lease."""

    def __init__(self, renew):
        self._renew = renew
        self._due: Dict[str, Tuple[float, float]] = {}  # episode id -> (next renewal, interval)
        self._cond = threading.Condition()
        self._thread: Optional[threading.Thread] = None
        self._stopped = False
        self.errors: List[PincerError] = []

    def add(self, episode_id: str, lease_seconds: int) -> None:
        interval = max(1.0, (lease_seconds or 300) / 3.0)
        with self._cond:
            if self._stopped:
                return
            self._due[episode_id] = (time.monotonic() + interval, interval)
            if self._thread is None:
                self._thread = threading.Thread(target=self._run, name="pincer-lease-renewer", daemon=True)
                self._thread.start()
            self._cond.notify_all()

    def remove(self, episode_id: str) -> None:
        with self._cond:
            self._due.pop(episode_id, None)
            self._cond.notify_all()

    def open(self) -> List[str]:
        with self._cond:
            return list(self._due)

    def stop(self) -> None:
        with self._cond:
            self._stopped = True
            self._due.clear()
            self._cond.notify_all()
        if self._thread is not None and self._thread is not threading.current_thread():
            self._thread.join(timeout=5)

    def _run(self) -> None:
        while True:
            with self._cond:
                if self._stopped:
                    return
                now = time.monotonic()
                due = [eid for eid, (at, _) in self._due.items() if at <= now]
                if not due:
                    wait = min((at for at, _ in self._due.values()), default=now + 3600) - now
                    self._cond.wait(timeout=max(0.05, wait))
                    continue
                for eid in due:
                    self._due[eid] = (now + self._due[eid][1], self._due[eid][1])
            for eid in due:
                try:
                    self._renew(eid)
                except PincerError as e:
                    # NOT_FOUND / FAILED_PRECONDITION: the episode is gone; stop renewing it.
                    self.errors = (self.errors + [e])[-10:]
                    if e.code in (grpc.StatusCode.NOT_FOUND, grpc.StatusCode.FAILED_PRECONDITION, grpc.StatusCode.UNAUTHENTICATED):
                        self.remove(eid)


def _video_chunks(stream) -> Iterator[bytes]:
    """The bytes of an EndRecording stream, checked against the size its first message gives."""
    size: Optional[int] = None
    received = 0
    for m in stream:
        if size is None:
            size = m.size
        received += len(m.chunk)
        yield m.chunk
    if size is not None and received != size:
        raise PincerError(grpc.StatusCode.DATA_LOSS, f"the video came short: {received} of {size} bytes", "EndRecording")


def _write_whole(dest: str, chunks: Iterator[bytes]) -> None:
    """Writes the chunks to ``dest`` through a temporary file in its folder, renamed once all are
    written and synced; the temporary file is created with the first chunk and removed on failure."""
    folder = os.path.dirname(os.path.abspath(dest))
    tmp: Optional[str] = None
    try:
        f = None
        try:
            for chunk in chunks:
                if f is None:
                    fd, tmp = tempfile.mkstemp(prefix=f".{os.path.basename(dest)}.", suffix=".part", dir=folder)
                    f = os.fdopen(fd, "wb")
                f.write(chunk)
            if f is None:
                raise PincerError(grpc.StatusCode.DATA_LOSS, "the server sent no video", "EndRecording")
            f.flush()
            os.fsync(f.fileno())
        finally:
            if f is not None:
                f.close()
        os.replace(tmp, dest)
        tmp = None
    finally:
        if tmp is not None:
            os.unlink(tmp)


class Client:
    """A client of the episode service at ``server`` ("host:port").

    ``token`` (default: the environment variable PINCER_TOKEN) is sent as ``authorization: Bearer
    TOKEN``; ``tls`` uses a TLS channel (``root_certificates`` PEM bytes, or the system's; with
    ``private_key`` and ``certificate_chain``, the client certificate of mutual TLS);
    ``timeout`` bounds each call in seconds (None: no bound; starting an episode waits for free
    machines); ``renew_leases`` renews each open episode's lease in a background thread.
    Use it as a context manager, or call ``shutdown()``, which closes the episodes still open.
    """

    def __init__(
        self,
        server: str,
        token: Optional[str] = None,
        *,
        tls: bool = False,
        root_certificates: Optional[bytes] = None,
        private_key: Optional[bytes] = None,
        certificate_chain: Optional[bytes] = None,
        timeout: Optional[float] = None,
        renew_leases: bool = True,
        max_message_bytes: int = 256 * 1024 * 1024,
        channel: Optional[grpc.Channel] = None,
    ):
        self.server = server
        self.timeout = timeout
        token = token if token is not None else os.environ.get("PINCER_TOKEN") or None
        self._metadata: Tuple[Tuple[str, str], ...] = (("authorization", f"Bearer {token}"),) if token else ()
        options = [("grpc.max_receive_message_length", max_message_bytes), ("grpc.max_send_message_length", max_message_bytes)]
        if channel is not None:
            self._channel = channel
        elif tls:
            creds = grpc.ssl_channel_credentials(root_certificates, private_key, certificate_chain)
            self._channel = grpc.secure_channel(server, creds, options=options)
        else:
            self._channel = grpc.insecure_channel(server, options=options)
        self._stub = episodes_pb2_grpc.EpisodesStub(self._channel)
        self._renewer: Optional[_Renewer] = _Renewer(lambda eid: self.renew(eid)) if renew_leases else None

    # Every RPC goes through here: metadata, timeout, and RpcError -> PincerError.
    def _call(self, method: str, request, timeout: Optional[float] = None):
        try:
            return getattr(self._stub, method)(request, metadata=self._metadata, timeout=timeout if timeout is not None else self.timeout)
        except grpc.RpcError as e:
            raise PincerError.from_rpc_error(e, method) from None

    def _opened(self, episode: Episode) -> Episode:
        if self._renewer is not None:
            self._renewer.add(episode.episode_id, episode.lease_seconds)
        return episode

    @property
    def open_episodes(self) -> List[str]:
        """The episodes this client started and has not closed (those whose leases it renews)."""
        return self._renewer.open() if self._renewer is not None else []

    def list_tasks(self, filter: str = "") -> List[TaskInfo]:
        """The dataset's tasks, those whose id, instruction or tags contain ``filter`` when given."""
        return [TaskInfo.from_proto(t) for t in self._call("ListTasks", episodes_pb2.ListTasksRequest(filter=filter)).tasks]

    @staticmethod
    def _start_request(
        task_id: Optional[str], osworld_task: Union[None, str, Mapping[str, Any]], observation: ObservationLike, lease_seconds: int, fail_fast: bool
    ) -> episodes_pb2.StartEpisodeRequest:
        if (task_id is None) == (osworld_task is None):
            raise ValueError("pincer: give either a task_id (a task of the served dataset) or an osworld_task (an OSWorld example), not both or neither")
        req = episodes_pb2.StartEpisodeRequest(observation=ObservationOptions.of(observation).to_proto(), lease_seconds=lease_seconds, fail_fast=fail_fast)
        if task_id is not None:
            req.task_id = task_id
        else:
            req.osworld_task_json = osworld_task if isinstance(osworld_task, str) else json.dumps(dict(osworld_task))
        return req

    def start(
        self,
        task_id: Optional[str] = None,
        *,
        osworld_task: Union[None, str, Mapping[str, Any]] = None,
        observation: ObservationLike = None,
        lease_seconds: int = 0,
        fail_fast: bool = False,
    ) -> Episode:
        """Starts an episode of a task of the dataset (``task_id``) or of an OSWorld example (a dict or
        its JSON), on clean machines; waits for free machines unless ``fail_fast``."""
        req = self._start_request(task_id, osworld_task, observation, lease_seconds, fail_fast)
        return self._opened(Episode.from_proto(self._call("StartEpisode", req)))

    def start_group(
        self,
        task_id: Optional[str] = None,
        size: int = 1,
        *,
        osworld_task: Union[None, str, Mapping[str, Any]] = None,
        observation: ObservationLike = None,
        lease_seconds: int = 0,
        fail_fast: bool = False,
        together: bool = False,
    ) -> Iterator[Episode]:
        """Starts ``size`` episodes of one task (a group) and yields each as it starts, its place in
        the group as ``group_index``. As many start at once as the server has free slots; the rest
        start as slots free up, so close an episode once done with it: with more episodes than
        slots, holding every episode open before closing any waits forever. ``together=True``: all
        at once or none (at most the server's concurrency). Leaving the loop early cancels the
        starts that wait; the episodes yielded stay open until closed."""
        req = episodes_pb2.StartGroupRequest(
            episode=self._start_request(task_id, osworld_task, observation, lease_seconds, fail_fast), size=size, together=together
        )
        try:
            stream = self._stub.StartGroup(req, metadata=self._metadata, timeout=self.timeout)
        except grpc.RpcError as e:  # pragma: no cover - grpc raises when iterated, not here
            raise PincerError.from_rpc_error(e, "StartGroup") from None

        def episodes() -> Iterator[Episode]:
            try:
                for m in stream:
                    yield self._opened(dataclasses.replace(Episode.from_proto(m.episode), group_index=m.index))
            except grpc.RpcError as e:
                raise PincerError.from_rpc_error(e, "StartGroup") from None
            finally:
                stream.cancel()

        return episodes()

    def step(self, episode_id: str, action: ActionLike, *, pause: float = 0.0, observation: ObservationLike = None, action_space: Optional[str] = None) -> StepResult:
        """Runs one action (see :func:`to_action`), waits ``pause`` seconds and observes."""
        req = episodes_pb2.StepRequest(
            episode_id=episode_id, action=to_action(action, action_space), pause_seconds=pause, observation=ObservationOptions.of(observation).to_proto()
        )
        return StepResult.from_proto(self._call("Step", req))

    def observe(self, episode_id: str, observation: ObservationLike = None) -> Observation:
        """The screens now, without acting."""
        req = episodes_pb2.ObserveRequest(episode_id=episode_id, observation=ObservationOptions.of(observation).to_proto())
        return Observation.from_proto(self._call("Observe", req).observation)

    def evaluate(self, episode_id: str) -> Evaluation:
        """Runs the task's evaluator now, without ending the episode."""
        return Evaluation.from_proto(self._call("Evaluate", episodes_pb2.EvaluateRequest(episode_id=episode_id)))

    def close(self, episode_id: str) -> CloseResult:
        """Ends the episode (final evaluation, teardown, attempt folder) and frees its machines; idempotent."""
        if self._renewer is not None:
            self._renewer.remove(episode_id)
        return CloseResult.from_proto(self._call("CloseEpisode", episodes_pb2.CloseEpisodeRequest(episode_id=episode_id)))

    def renew(self, episode_id: str, lease_seconds: int = 0) -> int:
        """Extends the episode's lease (``lease_seconds`` from now; 0: its lease); returns the lease granted."""
        req = episodes_pb2.RenewLeaseRequest(episode_id=episode_id, lease_seconds=lease_seconds)
        return self._call("RenewLease", req, timeout=self.timeout if self.timeout is not None else 30).lease_seconds

    def start_recording(self, episode_id: str, environment: str = "") -> List[str]:
        """Records the screens of the episode's environments (all, or ``environment``) from now on, as
        ``pincer run --record`` does; returns the environments recorded. An episode records once."""
        req = episodes_pb2.StartRecordingRequest(episode_id=episode_id, environment=environment)
        return list(self._call("StartRecording", req).environments)

    def end_recording(self, episode_id: str, dest: Optional[str] = None, environment: str = "") -> Optional[bytes]:
        """Stops the episode's recording (the server keeps its videos in the attempt folder) and
        fetches the MP4 of ``environment`` (default: the first recorded). Returns its bytes, or with
        ``dest`` writes it there whole (a temporary file in dest's folder, then renamed: a failure
        leaves dest as it was) and returns None. After the episode's close it fetches the video the
        close kept; each video is sent once."""
        req = episodes_pb2.EndRecordingRequest(episode_id=episode_id, environment=environment)
        try:
            stream = self._stub.EndRecording(req, metadata=self._metadata, timeout=self.timeout)
        except grpc.RpcError as e:  # pragma: no cover - grpc raises when iterated, not here
            raise PincerError.from_rpc_error(e, "EndRecording") from None
        try:
            if dest is None:
                return b"".join(_video_chunks(stream))
            _write_whole(dest, _video_chunks(stream))
            return None
        except grpc.RpcError as e:
            raise PincerError.from_rpc_error(e, "EndRecording") from None
        finally:
            stream.cancel()

    def machine(self, episode: Episode, environment: Optional[str] = None, *, timeout: Optional[float] = 30.0):
        """The daemon of the episode's machine ``environment`` (default: its only one), a
        :class:`pincer.daemon.Machine`, through this client's channel to the server with the episode's
        grant; the episode must have been started on a server run with ``--grant-machines``."""
        from .daemon import Machine  # pincer.daemon imports this module

        grants = {g.environment: g for g in episode.machines}
        if not grants:
            raise ValueError(f"pincer: episode {episode.episode_id} has no machine grants: the server gives them with `pincer serve --grant-machines`")
        if environment is None and len(grants) > 1:
            raise ValueError(f"pincer: episode {episode.episode_id} has several machines ({', '.join(grants)}): name one")
        grant = grants.get(environment) if environment is not None else next(iter(grants.values()))
        if grant is None:
            raise KeyError(f"pincer: episode {episode.episode_id} has no machine {environment!r}; it has {', '.join(grants)}")
        return Machine(self._channel, grant.token, timeout=timeout)

    def shutdown(self, close_episodes: bool = True) -> None:
        """Stops renewing leases, closes the episodes still open (unless ``close_episodes`` is False)
        and the channel."""
        open_ids = self.open_episodes
        if self._renewer is not None:
            self._renewer.stop()
        if close_episodes:
            for eid in open_ids:
                try:
                    self._call("CloseEpisode", episodes_pb2.CloseEpisodeRequest(episode_id=eid))
                except PincerError:
                    pass
        self._channel.close()

    def __enter__(self) -> "Client":
        return self

    def __exit__(self, *exc) -> None:
        self.shutdown()


# Region is re-exported for users that build ObservationOptions messages themselves.
Region = common_pb2.Region
