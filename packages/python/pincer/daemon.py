"""A typed client of one machine's pincer-daemon (gRPC services Input, Screen, Files, Process,
System and Accessibility), for agents that drive a machine directly.

>>> machine = connect("127.0.0.1:50051", token="...")
>>> machine.run("echo hi").stdout
b'hi\\n'
>>> png = machine.screenshot().data

An episode of ``pincer serve --grant-machines`` hands out a grant per environment: reach that
machine through the server with ``client.machine(episode, "desktop")`` (see ``Client.machine``).
Every failed call raises :class:`pincer.PincerError` with the gRPC status code and the daemon's message.
"""
from __future__ import annotations

import hashlib
from dataclasses import dataclass
from typing import Dict, Iterator, List, Mapping, Optional, Sequence, Tuple, Union

import grpc

from ._proto import (
    accessibility_pb2,
    accessibility_pb2_grpc,
    common_pb2,
    files_pb2,
    files_pb2_grpc,
    input_pb2,
    input_pb2_grpc,
    process_pb2,
    process_pb2_grpc,
    screen_pb2,
    screen_pb2_grpc,
    system_pb2,
    system_pb2_grpc,
)
from .client import PincerError

__all__ = ["connect", "Machine", "MachineInfo", "Screenshot", "RunResult", "FileInfo", "Window", "AccessibleNode", "AccessibilityTree"]

_CHUNK = 1024 * 1024
_BUTTONS = {"left": input_pb2.MOUSE_BUTTON_LEFT, "right": input_pb2.MOUSE_BUTTON_RIGHT, "middle": input_pb2.MOUSE_BUTTON_MIDDLE}
_FORMATS = {"png": screen_pb2.IMAGE_FORMAT_PNG, "jpeg": screen_pb2.IMAGE_FORMAT_JPEG, "jpg": screen_pb2.IMAGE_FORMAT_JPEG, "webp": screen_pb2.IMAGE_FORMAT_WEBP}
_FORMAT_NAMES = {screen_pb2.IMAGE_FORMAT_PNG: "png", screen_pb2.IMAGE_FORMAT_JPEG: "jpeg", screen_pb2.IMAGE_FORMAT_WEBP: "webp"}
_FILE_TYPES = {files_pb2.FILE_TYPE_FILE: "file", files_pb2.FILE_TYPE_DIRECTORY: "directory", files_pb2.FILE_TYPE_SYMLINK: "symlink"}

Point = Tuple[int, int]


@dataclass(frozen=True)
class MachineInfo:
    hostname: str
    os: str
    arch: str
    display: str
    daemon_version: str
    protocol_version: str
    capabilities: Tuple[str, ...]


@dataclass(frozen=True)
class Screenshot:
    """An encoded image (``format`` "png", "jpeg" or "webp") of ``width`` x ``height`` pixels, of the
    screen region ``source`` (x, y, width, height) scaled by ``scale``."""

    data: bytes
    format: str
    width: int
    height: int
    source: Tuple[int, int, int, int]
    scale: float


@dataclass(frozen=True)
class RunResult:
    """How a command ended: ``exit_code`` (None when a signal ended it: ``signal``), its output."""

    exit_code: Optional[int]
    signal: str
    stdout: bytes
    stderr: bytes
    timed_out: bool
    pid: int
    duration_ms: int

    @property
    def ok(self) -> bool:
        return self.exit_code == 0


@dataclass(frozen=True)
class FileInfo:
    path: str
    name: str
    type: str  # "file", "directory", "symlink" or "other"
    size: int
    mode: int
    modified_ms: int
    symlink_target: str

    @classmethod
    def from_proto(cls, m) -> "FileInfo":
        return cls(m.path, m.name, _FILE_TYPES.get(m.file_type, "other"), m.size, m.mode, m.modified_ms, m.symlink_target)


@dataclass(frozen=True)
class Window:
    id: int
    title: str
    instance: str
    class_name: str
    pid: int
    geometry: Tuple[int, int, int, int]
    visible: bool
    focused: bool

    @classmethod
    def from_proto(cls, m) -> "Window":
        g = m.geometry
        return cls(m.id, m.title, m.instance, m.class_name, m.pid, (g.x, g.y, g.width, g.height), m.visible, m.focused)


@dataclass(frozen=True)
class AccessibleNode:
    role: str
    name: str
    description: str
    states: Tuple[str, ...]
    text: str
    value: str
    attributes: Dict[str, str]
    bounds: Optional[Tuple[int, int, int, int]]
    app: str
    children: Tuple["AccessibleNode", ...]

    @classmethod
    def from_proto(cls, m: accessibility_pb2.AccessibleNode) -> "AccessibleNode":
        b = m.bounds if m.HasField("bounds") else None
        return cls(
            m.role, m.name, m.description, tuple(m.states), m.text, m.value, dict(m.attributes),
            (b.x, b.y, b.width, b.height) if b is not None else None, m.app, tuple(cls.from_proto(c) for c in m.children),
        )


@dataclass(frozen=True)
class AccessibilityTree:
    """The applications' accessibility trees; ``linearized`` is OSWorld's text form when asked for."""

    applications: Tuple[AccessibleNode, ...]
    truncated: bool
    node_count: int
    linearized: str


def _point(p) -> Point:
    return (p.x, p.y)


def _button(name: str) -> int:
    b = _BUTTONS.get(name.lower())
    if b is None:
        raise ValueError(f"pincer: unknown mouse button {name!r}: give left, right or middle")
    return b


def connect(
    address: str,
    token: Optional[str] = None,
    *,
    root_certificates: Optional[bytes] = None,
    tls: bool = False,
    timeout: Optional[float] = 30.0,
    max_message_bytes: int = 80 * 1024 * 1024,
) -> "Machine":
    """A client of the pincer-daemon at ``address`` ("host:port"; ``unix:/path`` for a socket), sending
    ``token`` as ``authorization: Bearer TOKEN``. TLS when ``tls`` or ``root_certificates`` (PEM bytes)
    is given. ``timeout`` bounds each call in seconds. Close it with ``close()`` or a ``with`` block."""
    options = [("grpc.max_receive_message_length", max_message_bytes), ("grpc.max_send_message_length", 8 * 1024 * 1024)]
    if tls or root_certificates is not None:
        channel = grpc.secure_channel(address, grpc.ssl_channel_credentials(root_certificates), options=options)
    else:
        channel = grpc.insecure_channel(address, options=options)
    return Machine(channel, token, timeout=timeout, owns_channel=True)


class Machine:
    """One machine's daemon over ``channel``. Coordinates are screen pixels; keys are named as the
    daemon names them ("ctrl", "shift", "Return", "a"); chords are "ctrl+shift+t" or a list of keys."""

    def __init__(self, channel: grpc.Channel, token: Optional[str] = None, *, timeout: Optional[float] = 30.0, owns_channel: bool = False):
        self._channel = channel
        self._owns_channel = owns_channel
        self.timeout = timeout
        self._metadata: Tuple[Tuple[str, str], ...] = (("authorization", f"Bearer {token}"),) if token else ()
        self._input = input_pb2_grpc.InputStub(channel)
        self._screen = screen_pb2_grpc.ScreenStub(channel)
        self._files = files_pb2_grpc.FilesStub(channel)
        self._process = process_pb2_grpc.ProcessStub(channel)
        self._system = system_pb2_grpc.SystemStub(channel)
        self._accessibility = accessibility_pb2_grpc.AccessibilityStub(channel)

    def _call(self, stub, method: str, request, timeout: Optional[float] = None):
        try:
            return getattr(stub, method)(request, metadata=self._metadata, timeout=timeout if timeout is not None else self.timeout)
        except grpc.RpcError as e:
            raise PincerError.from_rpc_error(e, f"{type(stub).__name__[:-4]}/{method}") from None

    # --- System -----------------------------------------------------------------------------

    def info(self) -> MachineInfo:
        m = self._call(self._system, "GetInfo", system_pb2.GetInfoRequest())
        return MachineInfo(m.hostname, m.os, m.arch, m.display, m.daemon_version, m.protocol_version, tuple(m.capabilities))

    def get_clipboard(self) -> str:
        return self._call(self._system, "GetClipboard", system_pb2.GetClipboardRequest()).text

    def set_clipboard(self, text: str) -> None:
        self._call(self._system, "SetClipboard", system_pb2.SetClipboardRequest(text=text))

    def list_windows(self, include_hidden: bool = False) -> List[Window]:
        return [Window.from_proto(w) for w in self._call(self._system, "ListWindows", system_pb2.ListWindowsRequest(include_hidden=include_hidden)).windows]

    def focus_window(self, window_id: int) -> Window:
        return Window.from_proto(self._call(self._system, "FocusWindow", system_pb2.FocusWindowRequest(id=window_id)))

    def close_window(self, window_id: int, force: bool = False) -> None:
        self._call(self._system, "CloseWindow", system_pb2.CloseWindowRequest(id=window_id, force=force))

    # --- Screen -----------------------------------------------------------------------------

    def screenshot(self, format: str = "png", *, max_width: int = 0, max_height: int = 0, quality: int = 0, include_cursor: bool = False) -> Screenshot:
        """The screen, encoded as ``format``, downscaled to fit ``max_width`` x ``max_height`` when given."""
        fmt = _FORMATS.get(format.lower())
        if fmt is None:
            raise ValueError(f"pincer: unknown screenshot format {format!r}: give one of png, jpeg, webp")
        req = screen_pb2.ScreenshotRequest(format=fmt, max_width=max_width, max_height=max_height, quality=quality, include_cursor=include_cursor)
        m = self._call(self._screen, "Screenshot", req)
        s = m.source
        return Screenshot(bytes(m.data), _FORMAT_NAMES.get(m.format, "png"), m.width, m.height, (s.x, s.y, s.width, s.height), m.scale)

    def watch_screen(self, format: str = "jpeg", *, max_width: int = 0, max_fps: int = 0, quality: int = 0) -> Iterator[Tuple[int, float, Screenshot]]:
        """The screen as a stream (Screen/Watch): ``(seq, captured_at_ms, frame)`` for the first frame at
        once, then one per change, at most ``max_fps`` (default 10) a second; no timeout. Closing the
        generator (or leaving the loop) cancels the stream."""
        req = screen_pb2.WatchRequest(format=_FORMATS.get(format.lower(), 0), max_width=max_width, max_fps=max_fps, quality=quality)
        call = self._screen.Watch(req, metadata=self._metadata)
        try:
            for m in call:
                source = (0, 0, m.screen.width, m.screen.height)
                frame = Screenshot(bytes(m.data), _FORMAT_NAMES.get(m.format, "jpeg"), m.width, m.height, source, m.width / max(1, m.screen.width))
                yield (m.seq, m.captured_at_ms, frame)
        except grpc.RpcError as e:
            raise PincerError.from_rpc_error(e, "Screen/Watch") from None
        finally:
            call.cancel()

    def screen_size(self) -> Tuple[int, int]:
        m = self._call(self._screen, "GetScreenSize", screen_pb2.GetScreenSizeRequest())
        return (m.width, m.height)

    # --- Input ------------------------------------------------------------------------------

    def cursor_position(self) -> Point:
        return _point(self._call(self._input, "GetCursorPosition", input_pb2.GetCursorPositionRequest()).cursor)

    def move(self, x: int, y: int) -> Point:
        """Moves the pointer; returns where it is."""
        return _point(self._call(self._input, "Move", input_pb2.MoveRequest(to=common_pb2.Point(x=x, y=y))).cursor)

    def click(self, x: Optional[int] = None, y: Optional[int] = None, button: str = "left", clicks: int = 1, modifiers: Sequence[str] = ()) -> Point:
        """Clicks at (x, y), or where the pointer is; ``clicks`` 2 double-clicks."""
        req = input_pb2.ClickRequest(button=_button(button), count=clicks, modifiers=list(modifiers))
        if x is not None and y is not None:
            req.at.CopyFrom(common_pb2.Point(x=x, y=y))
        return _point(self._call(self._input, "Click", req).cursor)

    def mouse_down(self, button: str = "left") -> Point:
        return _point(self._call(self._input, "ButtonDown", input_pb2.ButtonDownRequest(button=_button(button))).cursor)

    def mouse_up(self, button: str = "left") -> Point:
        return _point(self._call(self._input, "ButtonUp", input_pb2.ButtonUpRequest(button=_button(button))).cursor)

    def scroll(self, dy: int = 0, dx: int = 0, *, x: Optional[int] = None, y: Optional[int] = None, modifiers: Sequence[str] = ()) -> Point:
        """Scrolls ``dy`` notches down (negative: up) and ``dx`` right, at (x, y) when given."""
        req = input_pb2.ScrollRequest(dx=dx, dy=dy, modifiers=list(modifiers))
        if x is not None and y is not None:
            req.at.CopyFrom(common_pb2.Point(x=x, y=y))
        return _point(self._call(self._input, "Scroll", req).cursor)

    def drag(self, path: Sequence[Point], button: str = "left", *, step_delay_ms: int = 0, modifiers: Sequence[str] = ()) -> Point:
        """Presses at the first point of ``path``, moves through the others and releases at the last."""
        points = [common_pb2.Point(x=x, y=y) for x, y in path]
        req = input_pb2.DragRequest(path=points, button=_button(button), step_delay_ms=step_delay_ms, modifiers=list(modifiers))
        return _point(self._call(self._input, "Drag", req).cursor)

    def type_text(self, text: str, char_delay_ms: int = 0) -> None:
        self._call(self._input, "TypeText", input_pb2.TypeTextRequest(text=text, char_delay_ms=char_delay_ms))

    def press_keys(self, chord: Union[str, Sequence[str]], repeat: int = 1) -> None:
        """Presses a chord ("ctrl+c", "Return", or ["ctrl", "shift", "t"]) ``repeat`` times."""
        req = input_pb2.PressKeysRequest(chord=chord, repeat=repeat) if isinstance(chord, str) else input_pb2.PressKeysRequest(keys=list(chord), repeat=repeat)
        self._call(self._input, "PressKeys", req)

    def key_down(self, key: str) -> List[str]:
        """Holds ``key`` down; returns the keys held now."""
        return list(self._call(self._input, "KeyDown", input_pb2.KeyDownRequest(key=key)).held_keys)

    def key_up(self, key: str) -> List[str]:
        return list(self._call(self._input, "KeyUp", input_pb2.KeyUpRequest(key=key)).held_keys)

    # --- Process ----------------------------------------------------------------------------

    def run(
        self,
        command: Union[str, Sequence[str]],
        *,
        cwd: str = "",
        env: Optional[Mapping[str, str]] = None,
        stdin: bytes = b"",
        timeout: Optional[float] = None,
    ) -> RunResult:
        """Runs ``command`` (a string: through ``sh -c``; a list: as argv) and waits for it; ``timeout``
        (seconds) kills it after that long (``timed_out``). A non-zero exit is not an error."""
        req = process_pb2.RunRequest(cwd=cwd, env=dict(env or {}), stdin=stdin, timeout_ms=int((timeout or 0) * 1000))
        if isinstance(command, str):
            req.shell = command
        else:
            req.argv.extend(command)
        deadline = None if self.timeout is None else max(self.timeout, (timeout or 0) + 10)
        m = self._call(self._process, "Run", req, timeout=deadline)
        return RunResult(
            m.exit_code if m.HasField("exit_code") else None, m.signal, bytes(m.stdout), bytes(m.stderr), m.timed_out, m.pid, m.duration_ms
        )

    def launch(
        self,
        command: Union[str, Sequence[str]],
        *,
        cwd: str = "",
        env: Optional[Mapping[str, str]] = None,
        wait_for_title: str = "",
        wait_for_class: str = "",
        wait_timeout: float = 10.0,
    ) -> Tuple[int, Optional[Window]]:
        """Starts a program that outlives the call (an application) and returns its pid, and the window
        waited for when ``wait_for_title`` (part of its title) or ``wait_for_class`` (its WM_CLASS) is given."""
        req = process_pb2.LaunchRequest(
            cwd=cwd, env=dict(env or {}), wait_for_title=wait_for_title, wait_for_class=wait_for_class, wait_timeout_ms=int(wait_timeout * 1000)
        )
        if isinstance(command, str):
            req.shell = command
        else:
            req.argv.extend(command)
        deadline = None if self.timeout is None else max(self.timeout, wait_timeout + 10)
        m = self._call(self._process, "Launch", req, timeout=deadline)
        return m.pid, Window.from_proto(m.window) if m.HasField("window") else None

    def kill(self, pid: int, signal: str = "SIGTERM") -> None:
        """Sends ``signal`` to a process the daemon started."""
        self._call(self._process, "Signal", process_pb2.SignalRequest(pid=pid, signal=signal))

    # --- Files ------------------------------------------------------------------------------

    def read_file(self, path: str, timeout: Optional[float] = None) -> bytes:
        """The file's bytes (streamed in chunks, checked against the daemon's sha256)."""
        try:
            parts: List[bytes] = []
            digest = hashlib.sha256()
            trailer = None
            deadline = timeout if timeout is not None else self.timeout
            stream = self._files.Download(files_pb2.DownloadRequest(path=path), metadata=self._metadata, timeout=deadline)
            for m in stream:
                kind = m.WhichOneof("message")
                if kind == "chunk":
                    parts.append(m.chunk)
                    digest.update(m.chunk)
                elif kind == "trailer":
                    trailer = m.trailer
        except grpc.RpcError as e:
            raise PincerError.from_rpc_error(e, "Files/Download") from None
        if trailer is not None and trailer.sha256 and trailer.sha256 != digest.hexdigest():
            raise PincerError(grpc.StatusCode.DATA_LOSS, f"{path}: the bytes read do not match the daemon's sha256", "Files/Download")
        return b"".join(parts)

    def write_file(
        self, path: str, data: Union[bytes, str], *, mode: int = 0, overwrite: bool = True, create_parents: bool = True, timeout: Optional[float] = None
    ) -> int:
        """Writes ``data`` (str as UTF-8) to ``path`` (streamed in 1 MiB chunks, checked by sha256); returns its size."""
        body = data.encode("utf-8") if isinstance(data, str) else bytes(data)
        sha = hashlib.sha256(body).hexdigest()

        def messages() -> Iterator[files_pb2.UploadRequest]:
            header = files_pb2.UploadHeader(path=path, mode=mode, overwrite=overwrite, create_parents=create_parents, size=len(body), sha256=sha)
            yield files_pb2.UploadRequest(header=header)
            for i in range(0, len(body), _CHUNK):
                yield files_pb2.UploadRequest(chunk=body[i : i + _CHUNK])
            yield files_pb2.UploadRequest(trailer=files_pb2.UploadTrailer(size=len(body), sha256=sha))

        try:
            reply = self._files.Upload(messages(), metadata=self._metadata, timeout=timeout if timeout is not None else self.timeout)
        except grpc.RpcError as e:
            raise PincerError.from_rpc_error(e, "Files/Upload") from None
        return reply.size

    def stat(self, path: str) -> FileInfo:
        return FileInfo.from_proto(self._call(self._files, "Stat", files_pb2.StatRequest(path=path)))

    def exists(self, path: str) -> bool:
        try:
            self.stat(path)
            return True
        except PincerError as e:
            if e.code == grpc.StatusCode.NOT_FOUND:
                return False
            raise

    def list_dir(self, path: str, *, recursive: bool = False, limit: int = 0) -> List[FileInfo]:
        m = self._call(self._files, "List", files_pb2.ListRequest(path=path, recursive=recursive, limit=limit))
        return [FileInfo.from_proto(e) for e in m.entries]

    def make_dir(self, path: str, *, parents: bool = True) -> bool:
        """Creates the folder; returns False when it was there already."""
        return self._call(self._files, "MakeDir", files_pb2.MakeDirRequest(path=path, parents=parents)).created

    def remove(self, path: str, *, recursive: bool = False, missing_ok: bool = False) -> bool:
        return self._call(self._files, "Remove", files_pb2.RemoveRequest(path=path, recursive=recursive, missing_ok=missing_ok)).removed

    # --- Accessibility ----------------------------------------------------------------------

    def accessibility_tree(
        self, app: str = "", *, max_depth: int = 0, max_nodes: int = 0, include_hidden: bool = False, linearized: bool = False
    ) -> AccessibilityTree:
        """The accessibility trees of the applications (those whose name contains ``app``)."""
        req = accessibility_pb2.GetTreeRequest(app=app, max_depth=max_depth, max_nodes=max_nodes, include_hidden=include_hidden, linearized=linearized)
        m = self._call(self._accessibility, "GetTree", req)
        return AccessibilityTree(tuple(AccessibleNode.from_proto(a) for a in m.applications), m.truncated, m.node_count, m.linearized)

    # --- Lifetime ---------------------------------------------------------------------------

    def close(self) -> None:
        """Closes the channel when this machine opened it (``connect``); a shared one stays open."""
        if self._owns_channel:
            self._channel.close()

    def __enter__(self) -> "Machine":
        return self

    def __exit__(self, *exc) -> None:
        self.close()
