"""Where the database lives: the source tree in a checkout, `kb/_entries` in a wheel."""
from __future__ import annotations

import os
from pathlib import Path

_HERE = Path(__file__).resolve().parent


def entries_dir() -> Path:
    """The entries folder. `ONNX_KB_ENTRIES` overrides it (tests, out-of-tree databases)."""
    override = os.environ.get("ONNX_KB_ENTRIES")
    if override:
        return Path(override)
    packaged = _HERE / "_entries"
    if packaged.is_dir():
        return packaged
    return _HERE.parent / "entries"


def project_root() -> Path:
    """The checkout holding mkdocs.yml and docs/. `ONNX_KB_PROJECT` overrides it (tests)."""
    override = os.environ.get("ONNX_KB_PROJECT")
    return Path(override) if override else _HERE.parent
