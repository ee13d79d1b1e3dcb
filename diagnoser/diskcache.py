"""The on-disk cache shared by the entry index, the runtime snapshot and the data tables: small
JSON files (and, for the entry index and the example vectors, marshal files, which load several
times faster) under $XDG_CACHE_HOME/onnx-troubleshooter (or ~/.cache), never required.

Each value is stored with the full key it was computed from (file names, sizes, mtimes,
versions) and read back only when that key matches exactly, so a stale or colliding file is
never used; the file name only spreads keys (`<kind>-<crc32 of key>.json`). ONNX_KB_CACHE=0
turns the cache off; a read-only or missing home only means the slow path runs every time.
"""
from __future__ import annotations

import json
import os
import zlib
from pathlib import Path
from typing import Any

KEEP = 8  # files kept per kind; older ones belong to keys that no longer exist


def cache_dir() -> Path | None:
    if os.environ.get("ONNX_KB_CACHE", "1") == "0":
        return None
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "onnx-troubleshooter"


def _path(folder: Path, kind: str, key: str, suffix: str = ".json") -> Path:
    return folder / f"{kind}-{zlib.crc32(key.encode('utf-8', 'surrogatepass')):08x}{suffix}"


def load(kind: str, key: str) -> Any | None:
    """The value stored for exactly this key, or None (no cache, another key, unreadable file)."""
    folder = cache_dir()
    if folder is None:
        return None
    try:
        record = json.loads(_path(folder, kind, key).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    if not isinstance(record, dict) or record.get("key") != key:
        return None
    return record.get("value")


def load_marshal(kind: str, key: str) -> Any | None:
    """Like load, for a value stored with store_marshal (Python's own fast format for plain data:
    int-keyed dicts, tuples and sets survive it; it is this interpreter's, so the key says which)."""
    folder = cache_dir()
    if folder is None:
        return None
    import marshal

    try:
        record = marshal.loads(_path(folder, kind, _versioned(key), ".bin").read_bytes())
    except (OSError, ValueError, EOFError, TypeError):
        return None
    if not isinstance(record, tuple) or len(record) != 2 or record[0] != _versioned(key):
        return None
    return record[1]


def store_marshal(kind: str, key: str, value: Any) -> None:
    folder = cache_dir()
    if folder is None:
        return
    import marshal

    try:
        data = marshal.dumps((_versioned(key), value))
    except ValueError:  # not plain data: not cached
        return
    _write(folder, _path(folder, kind, _versioned(key), ".bin"), data, kind)


def _versioned(key: str) -> str:
    import sys

    return f"{sys.implementation.cache_tag}|{key}"


def store(kind: str, key: str, value: Any) -> None:
    """Store value under key atomically (write, then rename), so a concurrent reader never sees
    half a file; then drop all but the newest KEEP files of this kind."""
    folder = cache_dir()
    if folder is None:
        return
    data = json.dumps({"key": key, "value": value}, ensure_ascii=False).encode("utf-8")
    _write(folder, _path(folder, kind, key), data, kind)


def _write(folder: Path, path: Path, data: bytes, kind: str) -> None:
    try:
        folder.mkdir(parents=True, exist_ok=True)
        tmp = path.with_name(f"{path.name}.{os.getpid()}.tmp")
        tmp.write_bytes(data)
        os.replace(tmp, path)
        _prune(folder, f"{kind}-", path.suffix)
    except OSError:
        pass


def _prune(folder: Path, prefix: str, suffix: str = ".json") -> None:
    same = []
    with os.scandir(folder) as it:
        for entry in it:
            if entry.name.startswith(prefix) and entry.name.endswith(suffix) and entry.is_file():
                same.append((entry.stat().st_mtime_ns, entry.path))
    for _, path in sorted(same, reverse=True)[KEEP:]:
        try:
            os.unlink(path)
        except OSError:
            pass  # another process pruned it first


def file_key(path: str | os.PathLike[str]) -> str:
    """name:size:mtime_ns of one file (its path, unreadable, if it cannot be read)."""
    try:
        st = os.stat(path)
    except OSError:
        return f"{os.fspath(path)}:unreadable"
    return f"{os.fspath(path)}:{st.st_size}:{st.st_mtime_ns}"


def stat_key(folder: str | os.PathLike[str], suffixes: tuple[str, ...] | None = None) -> str:
    """name:size:mtime_ns of every file directly in folder (only those ending in suffixes, if
    given), sorted: a key that changes when any of them is replaced, edited or touched."""
    parts = []
    try:
        with os.scandir(folder) as it:
            for e in it:
                if e.is_file() and (suffixes is None or e.name.endswith(suffixes)):
                    st = e.stat()
                    parts.append(f"{e.name}:{st.st_size}:{st.st_mtime_ns}")
    except OSError:
        return f"{os.fspath(folder)}:unreadable"
    return ";".join(sorted(parts))
