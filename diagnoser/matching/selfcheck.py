"""Lint check contributed to `kb lint`: every example text ranks its own entry first.

Scored leave-one-out (the example is removed from its entry's examples first), so an example
cannot vouch for itself through text similarity.
"""
from __future__ import annotations

from collections.abc import Iterator

from diagnoser.matching.index import build, example_key
from diagnoser.matching.leaveout import Holdout
from diagnoser.matching.matcher import score
from diagnoser.matching.text import prepare
from kb import Database, Problem


def rank_of_own_entry(holdout: Holdout, entry_id: str, text: str) -> tuple[int | None, list[str]]:
    """1-based rank of entry_id for text, scored with that example left out; and the ranking."""
    position = next(i for i, ce in enumerate(holdout.index.entries) if ce.entry.id == entry_id)
    ranked = score(holdout.index_without(position, example_key(text)), prepare(text).text)
    ids = [c.id for c in ranked]
    return (ids.index(entry_id) + 1 if entry_id in ids else None), ids


def examples_rank_first(db: Database) -> Iterator[Problem]:
    holdout = Holdout(build(db, include_holdout=True))
    for doc in db.documents.values():
        if doc.entry.retired:
            continue
        for n, ex in enumerate(doc.entry.examples, 1):
            rank, ids = rank_of_own_entry(holdout, doc.entry.id, ex.text)
            if rank != 1:
                got = ", ".join(ids[:3]) or "nothing"
                yield Problem(doc.path, _example_line(db, doc.entry.id, ex.text), f"example {n} ranks {doc.entry.id} {'#' + str(rank) if rank else 'nowhere'} (top: {got})")


def _example_line(db: Database, entry_id: str, text: str) -> int:
    try:
        src = (db.root / f"{entry_id}.md").read_text(encoding="utf-8")
    except OSError:
        return 1
    first = text.strip().splitlines()[0][:40]
    idx = src.find(first)
    return src.count("\n", 0, idx) + 1 if idx >= 0 else 1
