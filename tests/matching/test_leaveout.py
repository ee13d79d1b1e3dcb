"""Leaving examples out without a rebuild gives exactly what a rebuild gives.

diagnoser.matching.leaveout adjusts the full vectors for the removed examples (the idf of the words
their entry no longer uses, the norms of the examples with those words). These tests compare it
with similarity.build on the reduced examples, field by field and float by float, for the removals
that exercise each branch (a word that leaves the vocabulary, one that crosses MIN_IDF, one the
entry still uses elsewhere), and compare the rankings the lint's self-check gets both ways.
"""
from __future__ import annotations

import math
from dataclasses import replace

import pytest

from diagnoser.matching import similarity
from diagnoser.matching.index import default_index, example_key
from diagnoser.matching.leaveout import Holdout
from diagnoser.matching.matcher import score
from diagnoser.matching.text import prepare


@pytest.fixture(scope="module")
def holdout() -> Holdout:
    return Holdout(replace(default_index(), cache_key=""))


def _removals(h: Holdout) -> dict[str, tuple[int, set[int]]]:
    """One removal of each kind: (entry position, example positions) by what it exercises."""
    found: dict[str, tuple[int, set[int]]] = {}
    idf = h.vectors.idf
    for owner, ps in h.vectors.by_owner.items():
        if len(ps) < 2:
            continue
        for p in ps:
            gone = {q for q in ps if h.index.entries[owner].examples[q - ps[0]] == h.index.entries[owner].examples[p - ps[0]]}
            if len(gone) == len(ps):
                continue
            others = set().union(*(h.toks[q] for q in ps if q not in gone))
            lost = h.toks[p] - others
            if any(h.df[w] == 1 for w in lost):
                found.setdefault("leaves the vocabulary", (owner, gone))
            if any(w not in idf and h.df[w] > 1 and math.log((h.n + 1) / (h.df[w] - 0.5)) >= similarity.MIN_IDF for w in lost):
                found.setdefault("crosses MIN_IDF", (owner, gone))
            if any(w in idf and h.df[w] > 1 for w in lost):
                found.setdefault("rarer, still shared", (owner, gone))
            if h.toks[p] & others:
                found.setdefault("still the entry's", (owner, gone))
            if len(gone) > 1:
                found.setdefault("duplicate keys", (owner, gone))
    return found


def test_every_branch_is_exercised(holdout: Holdout) -> None:
    assert set(_removals(holdout)) >= {"leaves the vocabulary", "rarer, still shared", "still the entry's"}


def _small() -> Holdout:
    """Six real entries with made-up examples: "shared" is in half of them (idf ln(7/3.5) < MIN_IDF);
    taking it from entry 0 makes it rarer than MIN_IDF allows, so it joins the vocabulary."""
    entries = default_index().entries[:6]
    texts = [("shared alpha kernel", "beta gamma kernel"), ("shared delta",), ("shared epsilon",), ("zeta",), ("eta",), ("theta",)]
    small = replace(default_index(), cache_key="", entries=tuple(replace(ce, examples=t) for ce, t in zip(entries, texts)))
    return Holdout(small)


def test_a_word_that_crosses_min_idf_joins_the_vocabulary() -> None:
    small = _small()
    assert "shared" not in small.vectors.idf
    assert "shared" in small.vectors_without({0}).idf
    _assert_equal_to_rebuild(small, 0, {0})


@pytest.mark.parametrize("kind", ["leaves the vocabulary", "crosses MIN_IDF", "rarer, still shared", "still the entry's", "duplicate keys"])
def test_vectors_without_equal_a_rebuild(holdout: Holdout, kind: str) -> None:
    removals = _removals(holdout)
    if kind not in removals:
        pytest.skip(f"no removal of kind {kind!r} in this database (test_a_word_that_crosses_min_idf... covers it)")
    _assert_equal_to_rebuild(holdout, *removals[kind])


def _assert_equal_to_rebuild(holdout: Holdout, owner: int, gone: set[int]) -> None:
    fast = holdout.vectors_without(gone)
    examples = [ex for ce in holdout.index.entries for ex in ce.examples]
    keep = [p for p in range(len(examples)) if p not in gone]
    new = {p: i for i, p in enumerate(keep)}
    slow = similarity.build([examples[p] for p in keep], [holdout.owners[p] for p in keep])
    assert fast.idf == slow.idf  # values to the last bit (the order words were met in does not count)
    assert {w: tuple(new[p] for p in ps) for w, ps in fast.postings.items()} == slow.postings
    assert fast.entry_postings == slow.entry_postings
    assert {o: tuple(new[p] for p in ps) for o, ps in fast.by_owner.items()} == slow.by_owner
    for p in keep:
        assert list(fast.words[p]) == list(slow.words[new[p]]), p
        assert fast.norms[p] == slow.norms[new[p]], p
    for p in gone:
        assert fast.words[p] == frozenset() and all(p not in ps for ps in fast.postings.values())


def test_rankings_equal_the_rebuilt_index(holdout: Holdout) -> None:
    """The self-check's question, answered both ways for examples of every removal kind and a spread
    of others: the ranked ids and their confidences are the same."""
    index = holdout.index
    cases = {(owner, min(gone)) for owner, gone in _removals(holdout).values()}
    cases |= {(o, ps[0]) for o, ps in list(holdout.vectors.by_owner.items())[::25]}
    for owner, p in sorted(cases):
        ce = index.entries[owner]
        key = ce.examples[p - holdout.start[owner]]
        rebuilt = replace(index, entries=tuple(replace(e, examples=tuple(x for x in e.examples if x != key)) if e is ce else e
                                               for e in index.entries))
        text = prepare(key).text
        fast = [(c.id, c.confidence) for c in score(holdout.index_without(owner, key), text)]
        slow = [(c.id, c.confidence) for c in score(rebuilt, text)]
        assert fast == slow, (ce.entry.id, key)


def test_examples_of_several_entries_left_out_at_once(holdout: Holdout) -> None:
    """bench/accuracy.py holds out a whole thread's or repository's examples, from every entry."""
    removals = list(_removals(holdout).values())
    (a, gone_a), (b, gone_b) = next(((x, y) for x, y in zip(removals, removals[1:]) if x[0] != y[0]))
    _assert_equal_to_rebuild(holdout, a, gone_a | gone_b)
    index = holdout.index
    keys = {index.entries[o].examples[min(g) - holdout.start[o]] for o, g in ((a, gone_a), (b, gone_b))}
    rebuilt = replace(index, entries=tuple(replace(e, examples=tuple(x for x in e.examples if x not in keys)) for e in index.entries))
    for key in keys:
        text = prepare(key).text
        assert ([(c.id, c.confidence) for c in score(holdout.index_without_keys(keys), text)]
                == [(c.id, c.confidence) for c in score(rebuilt, text)])
