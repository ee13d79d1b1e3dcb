"""Curated tables shipped in diagnoser/data (version matrix, provider support), read once."""
from __future__ import annotations

import os
from functools import lru_cache
from typing import Any

from diagnoser import diskcache


@lru_cache(maxsize=None)
def table(name: str) -> dict[str, Any]:
    """Load diagnoser/data/<name>.yaml; packaged with the wheel, so read through importlib.resources.

    The parsed table is cached as JSON (diagnoser.diskcache, keyed by the file's path, size and
    mtime), so a probe run does not import yaml once the cache is warm.
    """
    from importlib import resources  # imports tempfile, shutil...: only when a table is read

    resource = resources.files("diagnoser").joinpath("data", f"{name}.yaml")
    key = None
    try:
        st = os.stat(os.fspath(resource))  # a real file in every install we ship; zipimport has none
        key = f"{name}:{os.fspath(resource)}:{st.st_size}:{st.st_mtime_ns}"
    except (OSError, TypeError):
        pass
    if key is not None:
        cached = diskcache.load("table", key)
        if cached is not None:
            return cached
    import yaml

    value = yaml.load(resource.read_text(encoding="utf-8"), Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader))  # libyaml when present
    if key is not None:
        diskcache.store("table", key, value)
    return value


def parse_version(text: str) -> tuple[int, ...]:
    """'1.20.1' -> (1, 20, 1); stops at the first non-numeric part ('1.24.0.dev' -> (1, 24, 0))."""
    out = []
    for part in str(text).split("."):
        digits = "".join(ch for ch in part if ch.isdigit()) if part[:1].isdigit() else ""
        if not digits:
            break
        out.append(int(digits))
        if not part.isdigit():
            break
    return tuple(out)


def row_for(kind: str, version: str) -> tuple[str, dict[str, int]] | None:
    """The table row of `kind` (onnx / onnxruntime) for a release: exact major.minor, else the newest below."""
    rows = table("versions")[kind]
    want = parse_version(version)[:2]
    best = None
    for key, row in rows.items():
        k = parse_version(key)
        if k <= want and (best is None or k > parse_version(best[0])):
            best = (key, row)
    return best
