"""Leave-one-out without rebuilding: the index as it would be with some examples left out.

The lint's self-check scores every example against the database with that example removed (so an
example cannot vouch for itself). Building the distinctive-word vectors again for each of ~1,800
examples took four minutes; removing one example changes the inverse document frequency of only
the words that no other example of its entry uses, and through them the norms of the examples
that use those words. `Holdout.index_without` applies just that change, and gives the same vectors
`similarity.build` would give for the reduced examples (tests/matching/test_leaveout.py holds them
equal, floats included), keeping the removed examples' positions as empty ones.
"""
from __future__ import annotations

from collections import Counter
from dataclasses import replace

from diagnoser.matching import similarity
from diagnoser.matching.index import Index
from diagnoser.matching.similarity import MIN_IDF, Vectors

# The Index's cached parts that depend on the signatures alone, not on the examples: shared by
# every reduced index instead of being derived again for each.
_SIGNATURE_PARTS = ("_literals", "_by_literal")


class Holdout:
    """An index and what is needed to take examples out of it cheaply."""

    def __init__(self, index: Index) -> None:
        self.index = index
        for name in _SIGNATURE_PARTS:  # derived once here, shared by every reduced index
            getattr(index, name)
        examples = [ex for ce in index.entries for ex in ce.examples]
        self.owners = [i for i, ce in enumerate(index.entries) for _ in ce.examples]
        self.vectors = similarity.build(examples, self.owners)
        self.toks = [similarity.tokens(e) for e in examples]
        self.start = {}  # entry position -> position of its first example
        for pos, owner in enumerate(self.owners):
            self.start.setdefault(owner, pos)
        self.counts: dict[int, Counter[str]] = {}  # entry -> word -> how many of its examples use it
        for t, owner in zip(self.toks, self.owners):
            self.counts.setdefault(owner, Counter()).update(t)
        self.df: Counter[str] = Counter()
        for c in self.counts.values():
            self.df.update(c.keys())
        self.n = max(1, len(self.counts))
        self.uses: dict[str, list[int]] = {}  # word -> every example whose tokens hold it
        for pos, t in enumerate(self.toks):
            for w in t:
                self.uses.setdefault(w, []).append(pos)

    def index_without(self, entry: int, key: str) -> Index:
        """The index with the entry's examples equal to key left out (as selfcheck compares them)."""
        return self._reduced({entry: {key}})

    def index_without_keys(self, keys: set[str]) -> Index:
        """The index with every example equal to one of keys left out, from every entry (a whole
        thread's, repository's or binding's examples, as bench/accuracy.py holds them out)."""
        return self._reduced({i: keys for i, ce in enumerate(self.index.entries) if not keys.isdisjoint(ce.examples)})

    def _reduced(self, drop: dict[int, set[str]]) -> Index:
        entries = list(self.index.entries)
        gone: set[int] = set()
        emptied = False
        for i, keys in drop.items():
            ce = entries[i]
            entries[i] = replace(ce, examples=tuple(x for x in ce.examples if x not in keys))
            emptied |= bool(ce.examples) and not entries[i].examples
            gone |= {self.start.get(i, 0) + k for k, x in enumerate(ce.examples) if x in keys}
        reduced = replace(self.index, entries=tuple(entries))
        for name in _SIGNATURE_PARTS:
            reduced.__dict__[name] = self.index.__dict__[name]
        if not emptied:  # else an entry leaves the idf's count of entries: every weight moves, build anew
            reduced.__dict__["vectors"] = self.vectors_without(gone)
        return reduced

    def vectors_without(self, gone: set[int]) -> Vectors:
        """similarity.build's result without the examples at `gone` (no entry losing all of its
        examples); their positions stay, empty, so no other position moves."""
        full = self.vectors
        if not gone:
            return full
        by_entry: dict[int, list[int]] = {}
        for p in gone:
            by_entry.setdefault(self.owners[p], []).append(p)
        dropped: Counter[str] = Counter()  # word -> how many entries no longer use it
        met: set[str] = set()
        for owner, ps in by_entry.items():
            left = Counter(self.counts[owner])
            for p in ps:
                left.subtract(self.toks[p])
            words = set().union(*(self.toks[p] for p in ps))
            met |= words
            dropped.update(w for w in words if left[w] <= 0)
        idf = dict(full.idf)
        postings = dict(full.postings)
        entry_postings = dict(full.entry_postings)
        for w in met - dropped.keys():  # every entry that used it still does
            if w in postings:
                postings[w] = tuple(p for p in postings[w] if p not in gone)
        for w, k in dropped.items():
            d = self.df[w] - k
            v = similarity.word_weight(self.n, d) if d > 0 else None
            if v is None or v < MIN_IDF:
                idf.pop(w, None)
                postings.pop(w, None)
                entry_postings.pop(w, None)
                continue
            idf[w] = v
            ps = tuple(p for p in self.uses[w] if p not in gone)
            postings[w] = ps
            entry_postings[w] = tuple(sorted({self.owners[p] for p in ps}))
        words, norms = list(full.words), list(full.norms)
        touched = {p for w in dropped for p in self.uses[w]} - gone
        for pos in touched:  # as similarity.build computes them
            words[pos] = similarity.kept_words(self.toks[pos], idf)
            norms[pos] = similarity.norm(words[pos], idf)
        for p in gone:
            words[p], norms[p] = frozenset(), 1.0
        by_owner = dict(full.by_owner)
        for owner in by_entry:
            by_owner[owner] = tuple(p for p in by_owner[owner] if p not in gone)
        return Vectors(idf=idf, norms=tuple(norms), owners=full.owners, postings=postings, words=tuple(words),
                       by_owner=by_owner, entry_postings=entry_postings)
