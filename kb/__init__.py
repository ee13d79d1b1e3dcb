"""The knowledge base: entry schema, loading, validation, search and page generation.

`kb` never imports `diagnoser`; data flows entries -> kb -> diagnoser. Names are re-exported
lazily (PEP 562) so that `kb.paths` can be imported without pydantic or yaml.
"""
from __future__ import annotations

from importlib import import_module
from typing import Any

_EXPORTS = {
    "Database": "kb.database", "Finding": "kb.database", "load": "kb.database", "normalise_id": "kb.database",
    "EntryError": "kb.checks.problems", "Problem": "kb.checks.problems", "Document": "kb.schema", "Entry": "kb.schema",
    "Faq": "kb.faq", "load_faq": "kb.faq", "FaqDocument": "kb.schema", "FaqQuestion": "kb.schema",
}
__all__ = sorted(_EXPORTS)


def __getattr__(name: str) -> Any:
    if name in _EXPORTS:
        return getattr(import_module(_EXPORTS[name]), name)
    raise AttributeError(f"module 'kb' has no attribute {name!r}")
