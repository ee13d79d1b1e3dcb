"""Similarity by distinctive words: which entry's examples share the rare words of a message.

A surface ratio (rapidfuzz) rewards one example's exact wording: a paths-and-names-heavy message
from another binding, or a newer library name, falls below its cut-off. Here each word counts by
how few entries use it (inverse document frequency over the entries' examples), so "error",
"failed" or "onnxruntime" count little and "loadlibrary", "memcpy" or "cublaslt" a lot. Numbers
are dropped (cublasLt64_12 and cublasLt64_11 are one word), camelCase is split, and Chinese text
is read as character pairs so a translated message can meet its translated examples.
"""
from __future__ import annotations

import math
import re
from collections.abc import Sequence
from dataclasses import dataclass

_CAMEL = re.compile(r"(?<=[a-z])(?=[A-Z])")
_ASCII = re.compile(r"[a-z]{2,}")
_CJK = re.compile(r"[\u4e00-\u9fff]+")
# Words of the wrappers and of every Python traceback: never evidence for one problem.
_STOP = frozenset(
    "the and for with was not but are has have this that from into its can when while none "
    "line file most recent call last traceback self py in of to on at is be by or an as it if "
    # Python's own arity template ("f() takes 2 positional arguments but 3 were given"): the same
    # words whichever function was called wrongly; the function's and argument's names tell which
    "takes positional arguments argument given were".split()
)


def tokens(text: str) -> frozenset[str]:
    """The distinct words of text (lower-case, no digits), CJK runs as character pairs."""
    if not text.islower():
        text = _CAMEL.sub(" ", text).lower()
    out = set(_ASCII.findall(text))
    out -= _STOP
    if not text.isascii():
        for run in _CJK.findall(text):
            out.update(run[i:i + 2] for i in range(max(1, len(run) - 1)))
    return frozenset(out)


MIN_IDF = 0.7  # ln((n+1)/(df+0.5)) < 0.7: the word is in about half the entries or more


@dataclass(frozen=True)
class Vectors:
    """Each example as {word: idf}, with its norm, and the idf of every word the entries use."""

    idf: dict[str, float]
    norms: tuple[float, ...]  # per example
    owners: tuple[int, ...]  # per example: the entry's position
    postings: dict[str, tuple[int, ...]]  # word -> the examples that use it
    words: tuple[frozenset[str], ...]  # per example: its words that count
    by_owner: dict[int, tuple[int, ...]]  # entry position -> its examples
    entry_postings: dict[str, tuple[int, ...]]  # word -> the entries one of whose examples uses it


def word_weight(entries: int, df: int) -> float:
    """A word's idf: `entries` entries have examples, `df` of them use the word."""
    return math.log((entries + 1) / (df + 0.5))


def kept_words(words: frozenset[str], idf: dict[str, float]) -> frozenset[str]:
    """An example's words that count (those in the vocabulary), in the order `words` iterates."""
    return frozenset(w for w in words if w in idf)


def norm(words: frozenset[str], idf: dict[str, float]) -> float:
    """An example's norm (1.0 when none of its words counts); a float sum, so the set's order counts."""
    return math.sqrt(sum(idf[w] ** 2 for w in words)) or 1.0


def build(examples: Sequence[str], owners: Sequence[int]) -> Vectors:
    """IDF over entries (a word in every example of one entry is still that entry's word)."""
    toks = [tokens(e) for e in examples]
    by_entry: dict[int, set[str]] = {}
    for t, o in zip(toks, owners):
        by_entry.setdefault(o, set()).update(t)
    n = max(1, len(by_entry))
    df: dict[str, int] = {}
    for words in by_entry.values():
        for w in words:
            df[w] = df.get(w, 0) + 1
    # A word in most entries says nothing about which one (and its long postings list would
    # cost more than all the rare words together): below MIN_IDF it is not a word here.
    idf = {w: v for w, d in df.items() if (v := word_weight(n, d)) >= MIN_IDF}
    postings: dict[str, list[int]] = {}
    by_owner: dict[int, list[int]] = {}
    norms, words = [], []
    for pos, (t, owner) in enumerate(zip(toks, owners)):
        kept = kept_words(t, idf)
        for w in kept:
            postings.setdefault(w, []).append(pos)
        by_owner.setdefault(owner, []).append(pos)
        words.append(kept)
        norms.append(norm(kept, idf))
    entry_postings: dict[str, set[int]] = {}
    for w, ps in postings.items():
        entry_postings[w] = {owners[p] for p in ps}
    return Vectors(idf=idf, norms=tuple(norms), owners=tuple(owners),
                   postings={w: tuple(p) for w, p in postings.items()}, words=tuple(words),
                   by_owner={o: tuple(p) for o, p in by_owner.items()},
                   entry_postings={w: tuple(sorted(o)) for w, o in entry_postings.items()})


# How far the entry's examples together may stand in for one example: the share of the text's
# distinctive weight that words of the entry's examples cover, scaled down by this much. A new
# wording of a known problem often shares one rare word with one example and another with a
# second (the library's new name, the binding's own verb); no single example then resembles it.
# Measured with bench/accuracy.py's source-held-out fallback (0.9 was best of 0.8, 0.9 and a geometric mean).
COVERAGE_SCALE = 0.9
# ... and never more than this: coverage ranks the fallback's candidates; it never reaches a
# diagnosis (diagnoser.matching.matcher lifts it by 0.1 to 0.85, a prior of about 0.23, while likeness
# alone needs about 0.97) nor outranks an entry a signature matched (lint: every example first).
# By repository 57.9% at 0.75 (58.3% at 0.8, which let likeness outrank a 0.4 signature).
COVERAGE_CAP = 0.75


def best_by_entry(vectors: Vectors, text: str, only: set[int] | None = None, coverage: bool = True) -> dict[int, float]:
    """Per entry, the better of: the best cosine of the text's known words with one of its
    examples, and (with `coverage`) the scaled share of the text's weight its examples' words
    cover together."""
    q = {w: vectors.idf[w] for w in tokens(text) if w in vectors.idf}
    if not q:
        return {}
    qn = math.sqrt(sum(x * x for x in q.values()))
    dots: dict[int, float] = {}
    if only is not None:  # a few entries' examples: intersect their words with the text's
        for owner in only:
            for pos in vectors.by_owner.get(owner, ()):
                dot = sum(q[w] * q[w] for w in vectors.words[pos] & q.keys())
                if dot:
                    dots[pos] = dot
    else:  # every entry: only the examples sharing a word are touched
        for w, x in q.items():
            for pos in vectors.postings[w]:
                dots[pos] = dots.get(pos, 0.0) + x * x
    best: dict[int, float] = {}
    owners, norms = vectors.owners, vectors.norms
    for pos, dot in dots.items():
        owner = owners[pos]
        cos = dot / (qn * norms[pos])
        if cos > best.get(owner, 0.0):
            best[owner] = cos
    if not coverage:
        return best
    covered: dict[int, float] = {}
    for w, x in q.items():
        for owner in vectors.entry_postings.get(w, ()):
            if only is None or owner in only:
                covered[owner] = covered.get(owner, 0.0) + x * x
    qn2 = qn * qn
    for owner, mass in covered.items():
        share = min(COVERAGE_CAP, COVERAGE_SCALE * mass / qn2)
        if share > best.get(owner, 0.0):
            best[owner] = share
    return best
