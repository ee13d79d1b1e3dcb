"""Entries compiled for matching: regexes compiled once, examples normalised once."""
from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

from diagnoser.text import normalise
from kb import Database, Entry, load


@dataclass(frozen=True)
class CompiledSignature:
    regex: re.Pattern[str]
    weight: float
    source: str
    note: str | None


@dataclass(frozen=True)
class CompiledEntry:
    entry: Entry
    signatures: tuple[CompiledSignature, ...]
    context: tuple[tuple[re.Pattern[str], float, str], ...]
    examples: tuple[str, ...]  # normalised, tuning examples only (holdout excluded)


@dataclass(frozen=True)
class Index:
    db: Database
    entries: tuple[CompiledEntry, ...]


def compile_entry(entry: Entry, include_holdout: bool = False) -> CompiledEntry:
    sigs = tuple(
        CompiledSignature(re.compile(s.pattern, re.I if s.ignore_case else 0), s.weight, s.pattern, s.note)
        for s in entry.signatures
    )
    ctx = tuple((re.compile(c.pattern, re.I), c.weight, c.pattern) for c in entry.context)
    examples = tuple(normalise(e.text) for e in entry.examples if include_holdout or not e.holdout)
    return CompiledEntry(entry=entry, signatures=sigs, context=ctx, examples=examples)


def build(db: Database, include_holdout: bool = False) -> Index:
    live = (d.entry for d in db.documents.values() if not d.entry.retired)
    return Index(db=db, entries=tuple(compile_entry(e, include_holdout) for e in live))


@lru_cache(maxsize=1)
def default_index() -> Index:
    """The installed database. Entries that fail to load are skipped (the linter gates releases)."""
    return build(load(strict=False))
