"""A scratch entries folder holding copies of a few real entries (with the categories and
finding codes they need), for tests that edit or measure entries without touching the database."""
from __future__ import annotations

import shutil
from pathlib import Path

from kb.paths import entries_dir


def entry_tree(tmp_path: Path, *ids: str) -> Path:
    real = entries_dir()
    root = tmp_path / "entries"
    root.mkdir()
    for name in ("categories.yaml", "findings.yaml"):
        shutil.copy(real / name, root / name)
    for i in ids:
        shutil.copy(real / f"{i}.md", root / f"{i}.md")
    return root
