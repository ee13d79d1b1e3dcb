"""Where a diagnosis points the user: a configured public URL, else the locally built page, else
nothing (the report then says `kb show ID`, which always works offline).

The paths mirror what `kb docs build` generates: one page per entry at `entries/<ID>/`, the
Chinese site under `zh/`. `ONNX_KB_DOCS_URL` (a published copy of the site, or a `kb docs serve`
address) takes precedence, so links are predictable in scripts and tests. No default public URL:
a link must never point to a site that does not exist.
"""
from __future__ import annotations

import os
from pathlib import Path


def page_path(entry_id: str, lang: str = "en") -> str:
    """The page's path relative to the site root, e.g. `zh/entries/OT0001/`."""
    prefix = "" if lang == "en" else f"{lang}/"
    return f"{prefix}entries/{entry_id}/"


def doc_url(entry_id: str, lang: str = "en", site: Path | None = None) -> str | None:
    base = os.environ.get("ONNX_KB_DOCS_URL")
    if base:
        return base.rstrip("/") + "/" + page_path(entry_id, lang)
    from kb.paths import built_sites

    for folder in [site] if site is not None else built_sites():
        local = folder / page_path(entry_id, lang) / "index.html"
        if local.is_file():
            return local.as_uri()
    return None
