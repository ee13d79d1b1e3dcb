"""The on-disk cache shared by the entry index, the runtime snapshot and the data tables: small
JSON files under $XDG_CACHE_HOME/onnx-troubleshooter (or ~/.cache), never required.

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


def _path(folder: Path, kind: str, key: str) -> Path:
    return folder / f"{kind}-{zlib.crc32(key.encode('utf-8', 'surrogatepass')):08x}.json"


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


def store(kind: str, key: str, value: Any) -> None:
    """Store value under key atomically (write, then rename), so a concurrent reader never sees
    half a file; then drop all but the newest KEEP files of this kind."""
    folder = cache_dir()
    if folder is None:
        return
    try:
        folder.mkdir(parents=True, exist_ok=True)
        path = _path(folder, kind, key)
        tmp = path.with_name(f"{path.name}.{os.getpid()}.tmp")
        tmp.write_text(json.dumps({"key": key, "value": value}, ensure_ascii=False), encoding="utf-8")
        os.replace(tmp, path)
        _prune(folder, f"{kind}-")
    except OSError:
        pass


def _prune(folder: Path, prefix: str) -> None:
    same = []
    with os.scandir(folder) as it:
        for entry in it:
            if entry.name.startswith(prefix) and entry.name.endswith(".json") and entry.is_file():
                same.append((entry.stat().st_mtime_ns, entry.path))
    for _, path in sorted(same, reverse=True)[KEEP:]:
        try:
            os.unlink(path)
        except OSError:
            pass  # another process pruned it first


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
