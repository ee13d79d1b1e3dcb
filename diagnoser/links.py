"""Where a diagnosis points the user: the built site if present, else the configured base URL."""
from __future__ import annotations

import os
from pathlib import Path

DEFAULT_BASE = "https://onnx-troubleshooter.github.io/"
_SITE = Path(__file__).resolve().parent.parent / "site"


def doc_url(entry_id: str) -> str:
    base = os.environ.get("ONNX_KB_DOCS_URL")
    if not base:
        local = _SITE / "entries" / entry_id / "index.html"
        if local.is_file():
            return local.as_uri()
        base = DEFAULT_BASE
    return base.rstrip("/") + f"/entries/{entry_id}/"
