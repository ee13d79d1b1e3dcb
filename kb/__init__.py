"""The knowledge base: entry schema, loading, validation, search and page generation.

`kb` never imports `diagnoser`; data flows entries -> kb -> diagnoser.
"""
from kb.database import Database, Finding, load, normalise_id
from kb.problems import EntryError, Problem
from kb.schema import Document, Entry

__all__ = ["Database", "Document", "Entry", "EntryError", "Finding", "Problem", "load", "normalise_id"]
