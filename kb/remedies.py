"""The list of automatic repairs (entries/remedies.yaml) that entries may name.

Kept as data so `kb` can check entries' `remedies:` and show them on pages without importing
the diagnoser, which implements them (a test keeps the two in step).
"""
from __future__ import annotations

from pathlib import Path

GRADES = ("safe", "numerics", "review")


def load_remedies(root: Path) -> dict[str, dict[str, str]]:
    """name -> {grade, title, title_zh}; empty when the file is absent."""
    import yaml

    path = Path(root) / "remedies.yaml"
    if not path.is_file():
        return {}
    data = yaml.safe_load(path.read_text(encoding="utf-8")) or {}
    return {str(k): dict(v or {}) for k, v in data.items()}
