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
    "line file most recent call last traceback self py in of to on at is be by or an as it if".split()
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


@dataclass(frozen=True)
class Vectors:
    """Each example as {word: idf}, with its norm, and the idf of every word the entries use."""

    idf: dict[str, float]
    norms: tuple[float, ...]  # per example
    owners: tuple[int, ...]  # per example: the entry's position
    postings: dict[str, tuple[int, ...]]  # word -> the examples that use it


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
    idf = {w: math.log((n + 1) / (d + 0.5)) for w, d in df.items()}
    postings: dict[str, list[int]] = {}
    norms = []
    for pos, t in enumerate(toks):
        for w in t:
            postings.setdefault(w, []).append(pos)
        norms.append(math.sqrt(sum(idf[w] ** 2 for w in t)) or 1.0)
    return Vectors(idf=idf, norms=tuple(norms), owners=tuple(owners),
                   postings={w: tuple(p) for w, p in postings.items()})


def best_by_entry(vectors: Vectors, text: str, only: set[int] | None = None) -> dict[int, float]:
    """Cosine of the text's known words with each example; the best per entry."""
    q = {w: vectors.idf[w] for w in tokens(text) if w in vectors.idf}
    if not q:
        return {}
    qn = math.sqrt(sum(x * x for x in q.values()))
    dots: dict[int, float] = {}
    for w, x in q.items():  # only the examples sharing a word are touched
        for pos in vectors.postings[w]:
            dots[pos] = dots.get(pos, 0.0) + x * x
    best: dict[int, float] = {}
    owners, norms = vectors.owners, vectors.norms
    for pos, dot in dots.items():
        owner = owners[pos]
        if only is not None and owner not in only:
            continue
        cos = dot / (qn * norms[pos])
        if cos > best.get(owner, 0.0):
            best[owner] = cos
    return best
