"""Where a diagnosis points the user: the configured base URL, else the locally built page, else
the public site.

The paths mirror what `kb docs build` generates: one page per entry at `entries/<ID>/`, the
Chinese site under `zh/`. `ONNX_KB_DOCS_URL` (e.g. a mirror, or a `kb docs serve` address)
takes precedence so links are predictable in scripts and tests.
"""
from __future__ import annotations

import os
from pathlib import Path

DEFAULT_BASE = "https://onnx-troubleshooter.github.io/"
_SITE = Path(__file__).resolve().parent.parent / "site"


def page_path(entry_id: str, lang: str = "en") -> str:
    """The page's path relative to the site root, e.g. `zh/entries/OT0001/`."""
    prefix = "" if lang == "en" else f"{lang}/"
    return f"{prefix}entries/{entry_id}/"


def doc_url(entry_id: str, lang: str = "en", site: Path | None = None) -> str:
    base = os.environ.get("ONNX_KB_DOCS_URL")
    if not base:
        local = (site or _SITE) / page_path(entry_id, lang) / "index.html"
        if local.is_file():
            return local.as_uri()
        base = DEFAULT_BASE
    return base.rstrip("/") + "/" + page_path(entry_id, lang)
