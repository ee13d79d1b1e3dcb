"""Catch an error where it happens: run a command with its output streamed through unchanged,
keep a bounded tail of what it printed, and find the model file the output names.

Used by `diagnose run -- CMD` (the CLI prints the diagnosis) and by the exception hooks
(diagnoser.frontends.hook), which need the same model-path extraction. No heavy import here.
"""
from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import threading
from collections import deque
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO

TAIL_BYTES = 256 * 1024  # what the matcher sees of a long log: its end, where the error is

# Ways a model path appears in what users' programs print: onnxruntime's own "Load model from X
# failed", a call in a traceback's source line, or any quoted/bare token ending in .onnx.
_PATH_PATTERNS = (
    re.compile(r"Load model from (?P<p>.+?\.onnx) failed"),
    re.compile(r"""(?:InferenceSession|onnx\.load(?:_model)?|check_model|load_model)\(\s*(?:r|f)?["'](?P<p>[^"'\n]+?\.onnx)["']"""),
    re.compile(r"""["'](?P<p>[^"'\n]+?\.onnx)["']"""),
    re.compile(r"""(?:^|[\s=(\[])(?P<p>[^\s"'=()\[\],;]+?\.onnx)\b(?!\w|\.\w)"""),
)


def model_paths(text: str, cwd: str | os.PathLike[str] | None = None) -> list[Path]:
    """Existing .onnx files the text names, most telling first (onnxruntime's own words, then a
    call in a traceback, then any mention; later mentions before earlier ones: nearer the error)."""
    base = Path(cwd) if cwd is not None else Path.cwd()
    seen: set[Path] = set()
    out: list[Path] = []
    for pattern in _PATH_PATTERNS:
        for m in reversed(list(pattern.finditer(text))):
            raw = m.group("p").strip()
            p = Path(raw).expanduser()
            p = p if p.is_absolute() else base / p
            try:
                if p.is_file() and p.resolve() not in seen:
                    seen.add(p.resolve())
                    out.append(p)
            except OSError:  # a name too long or unreadable: not a model we can use
                continue
    return out


class Tail:
    """The last `limit` bytes written to it, in order, from any thread."""

    def __init__(self, limit: int = TAIL_BYTES):
        self.limit = limit
        self._chunks: deque[bytes] = deque()
        self._size = 0
        self._lock = threading.Lock()
        self.truncated = False

    def add(self, chunk: bytes) -> None:
        with self._lock:
            self._chunks.append(chunk)
            self._size += len(chunk)
            while self._size - len(self._chunks[0]) >= self.limit:
                self._size -= len(self._chunks.popleft())
                self.truncated = True

    def bytes(self) -> bytes:
        with self._lock:
            data = b"".join(self._chunks)
        if len(data) > self.limit:
            self.truncated = True
        return data[-self.limit:]


@dataclass(frozen=True)
class Outcome:
    returncode: int  # as a shell reports it: 128 + N when killed by signal N
    signal: str | None
    output: bytes  # the tail of stdout and stderr, interleaved as they arrived
    truncated: bool

    @property
    def failed(self) -> bool:
        return self.returncode != 0


def _pump(src: BinaryIO, dst: BinaryIO, tail: Tail) -> None:
    fd = src.fileno()
    while True:
        try:
            chunk = os.read(fd, 65536)
        except OSError:
            break
        if not chunk:
            break
        tail.add(chunk)
        try:
            dst.write(chunk)
            dst.flush()
        except (OSError, ValueError):  # our own output closed (a pipe to `head`): keep the child going
            pass


def run(argv: list[str], *, stdout: BinaryIO | None = None, stderr: BinaryIO | None = None,
        tail_bytes: int = TAIL_BYTES) -> Outcome:
    """Run argv with stdout and stderr passed through as they come; raise FileNotFoundError or
    PermissionError when it cannot start. Python children are told not to buffer their output
    (PYTHONUNBUFFERED), so a pipe does not hold their lines back until they exit."""
    out = stdout or sys.stdout.buffer
    err = stderr or sys.stderr.buffer
    env = {**os.environ}
    env.setdefault("PYTHONUNBUFFERED", "1")
    tail = Tail(tail_bytes)
    proc = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env)
    pumps = [threading.Thread(target=_pump, args=(proc.stdout, out, tail), daemon=True),
             threading.Thread(target=_pump, args=(proc.stderr, err, tail), daemon=True)]
    for t in pumps:
        t.start()
    # Ctrl-C reaches the child (same process group); we wait for it to end and then report.
    old_int = signal.signal(signal.SIGINT, signal.SIG_IGN) if threading.current_thread() is threading.main_thread() else None
    old_term = None
    if old_int is not None:
        old_term = signal.signal(signal.SIGTERM, lambda signum, frame: proc.send_signal(signum))
    try:
        code = proc.wait()
        for t in pumps:
            t.join()
    finally:
        if old_int is not None:
            signal.signal(signal.SIGINT, old_int)
            signal.signal(signal.SIGTERM, old_term)
    name = None
    if code < 0:
        try:
            name = signal.Signals(-code).name
        except ValueError:
            name = f"signal {-code}"
        code = 128 - code
    data = tail.bytes()
    return Outcome(returncode=code, signal=name, output=data, truncated=tail.truncated)
