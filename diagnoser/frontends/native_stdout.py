"""Keep what native code prints on file descriptor 1 out of the report, and hand it to the caller.

onnx's C++ checker writes "Warning: Model contains experimental ops: ..." with std::cout. In a
terminal that is an unexplained line above the report; with --format json it corrupts the JSON.
Probes run in threads, so the swap of fd 1 is serialised by a lock; nothing else writes to stdout
while the probes run (only the CLI prints, after them).
"""
from __future__ import annotations

import os
import sys
import tempfile
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager

_LOCK = threading.Lock()


@contextmanager
def captured() -> Iterator[Callable[[], str]]:
    """Run the body with fd 1 sent to a temporary file; the yielded callable returns what was
    written (call it after the block). Where fd 1 cannot be swapped, the body runs as it is."""
    text: list[str] = []
    with _LOCK, tempfile.TemporaryFile() as tmp:
        try:
            sys.stdout.flush()
            saved = os.dup(1)
        except (OSError, ValueError, AttributeError):
            yield lambda: ""
            return
        os.dup2(tmp.fileno(), 1)
        try:
            yield lambda: "".join(text)
        finally:
            os.dup2(saved, 1)
            os.close(saved)
            tmp.seek(0)
            text.append(tmp.read(64 * 1024).decode("utf-8", "replace"))
