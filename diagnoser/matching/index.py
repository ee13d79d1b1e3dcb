"""Entries compiled for matching, and a compact on-disk cache of them.

Parsing Markdown/YAML and validating with pydantic costs more than a whole diagnosis, so the
fields matching needs are cached (marshal, keyed by the entry files' names, sizes and mtimes and
by the code that reads them; diagnoser.diskcache) and a cold `diagnose "text"` never imports kb,
yaml or pydantic. Each signature's required literals (diagnoser.matching.prefilter) are cached with it, so
a regex is compiled only when its literals are in the text.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cached_property, lru_cache
from pathlib import Path
from typing import TYPE_CHECKING, AbstractSet, Any

from diagnoser import diskcache
from diagnoser.matching.prefilter import Literals, fold, requirements
from diagnoser.matching.text import core_view, normalise, without_particulars

if TYPE_CHECKING:
    from diagnoser.matching.similarity import Vectors

CACHE_VERSION = 13  # bump when the cached record format or example keys change
FUZZY_CHARS = 300


@dataclass(frozen=True)
class FixText:
    summary: str
    summary_zh: str


@dataclass(frozen=True)
class FindingLinks:
    confirm: tuple[str, ...]
    refute: tuple[str, ...]


@dataclass(frozen=True)
class SlimEntry:
    """What diagnosis needs of an entry; mirrors the attribute names of kb.Entry."""

    id: str
    title: str
    title_zh: str
    summary: str
    summary_zh: str
    category: str
    providers: tuple[str, ...]
    provider_sets: tuple[tuple[str, ...], ...]
    findings: FindingLinks
    fixes: tuple[FixText, ...]
    distinguish: str | None


@dataclass(frozen=True)
class CompiledSignature:
    source: str  # the pattern
    ignore_case: bool
    weight: float
    note: str | None
    # What every match must contain (prefilter.requirements): each clause is a set of folded
    # literals one of which is in the folded text; no clause at all means "search always".
    clauses: tuple[frozenset[str], ...] = ()

    @cached_property
    def regex(self) -> re.Pattern[str]:
        """Compiled on first use: most signatures are never searched in a given run."""
        return re.compile(self.source, re.I if self.ignore_case else 0)

    def may_match(self, present: AbstractSet[str]) -> bool:
        """False only if the text cannot hold a match: a clause none of whose literals is present."""
        for clause in self.clauses:
            if present.isdisjoint(clause):
                return False
        return True


@dataclass(frozen=True)
class CompiledEntry:
    entry: SlimEntry
    signatures: tuple[CompiledSignature, ...]
    context: tuple[tuple[str, float], ...]  # (pattern, weight), searched case-insensitively
    examples: tuple[str, ...]  # fuzzy keys of the tuning examples (holdout excluded)
    index: int = -1  # position in Index.entries
    sorted_examples: tuple[str, ...] = ()  # sort_tokens of each of examples (cached with them)


@dataclass(frozen=True)
class Index:
    entries: tuple[CompiledEntry, ...]
    cache_key: str = ""  # the disk cache key the entries were read under ("" if not cached)

    @cached_property
    def _literals(self) -> Literals:
        return Literals(lit for ce in self.entries for s in ce.signatures for c in s.clauses for lit in c)

    @cached_property
    def _by_literal(self) -> tuple[dict[str, frozenset[int]], frozenset[int]]:
        """Entries by the literals of their signatures' first (most selective) clause, and the
        entries with a signature that requires nothing (always searched)."""
        by: dict[str, set[int]] = {}
        always: set[int] = set()
        for i, ce in enumerate(self.entries):
            for s in ce.signatures:
                if not s.clauses:
                    always.add(i)
                for lit in s.clauses[0] if s.clauses else ():
                    by.setdefault(lit, set()).add(i)
        return {k: frozenset(v) for k, v in by.items()}, frozenset(always)

    def present(self, text: str) -> set[str]:
        """The signatures' literals that occur in text (see CompiledSignature.may_match)."""
        return self._literals.present(fold(text))

    def searchable(self, present: AbstractSet[str]) -> set[int]:
        """Positions of the entries one of whose signatures may match, given the literals present
        (a superset: each signature is checked again with may_match before its regex runs)."""
        by, always = self._by_literal
        out = set(always)
        for lit in present:
            found = by.get(lit)
            if found:
                out |= found
        return out

    @cached_property
    def vectors(self) -> "Vectors":
        """The examples as distinctive-word vectors (diagnoser.matching.similarity), built on first use.

        Building them reads every example (a third of a cold start). With a cache key, the parts
        that do not depend on the order sets iterate in (idf, postings, owners) are kept in the
        disk cache, and each example's word set and norm are computed when first asked for, by
        the very expressions similarity.build uses (tests/matching/test_index_cache.py holds them equal,
        iteration order included): a cold run reads only the examples it compares with."""
        from diagnoser.matching import similarity

        examples = [ex for ce in self.entries for ex in ce.examples]
        owners = [i for i, ce in enumerate(self.entries) for _ in ce.examples]
        if not self.cache_key:
            return similarity.build(examples, owners)
        key = f"{self.cache_key}|{diskcache.file_key(similarity.__file__)}"
        parts = diskcache.load_marshal("vectors", key)
        if isinstance(parts, dict):
            try:
                return lazy_vectors(similarity, examples, parts)
            except TypeError:  # the cached parts no longer fit Vectors
                pass
        full = similarity.build(examples, owners)
        diskcache.store_marshal("vectors", key, order_free_parts(full))
        return full

    @cached_property
    def _example_owners(self) -> dict[int, tuple[int, ...]]:
        out: dict[int, list[int]] = {}
        for p, owner in enumerate(self.flat_examples[1]):
            out.setdefault(owner, []).append(p)
        return {o: tuple(ps) for o, ps in out.items()}

    def example_positions(self, owners: AbstractSet[int]) -> list[int]:
        """Positions in flat_examples of these entries' examples, in order."""
        by = self._example_owners
        return sorted(p for o in owners for p in by.get(o, ()))

    @cached_property
    def flat_examples(self) -> tuple[list[str], list[int]]:
        """Every example key (token-sorted for fuzz.ratio) with the position of its entry."""
        keys, owners = [], []
        for i, ce in enumerate(self.entries):
            if len(ce.sorted_examples) == len(ce.examples):
                keys.extend(ce.sorted_examples)
            else:
                keys.extend(sort_tokens(ex) for ex in ce.examples)
            owners.extend(i for _ in ce.examples)
        return keys, owners


@lru_cache(maxsize=None)
def context_regex(pattern: str) -> re.Pattern[str]:
    """A context pattern, compiled case-insensitively once: there are more of them than re's own
    cache keeps (512), so re.search(pattern, ...) would compile them again and again."""
    return re.compile(pattern, re.I)


_PER_EXAMPLE = ("words", "norms")  # the Vectors fields computed per example on demand


def order_free_parts(vectors: "Vectors") -> dict[str, Any]:
    """The fields of Vectors that are kept in the disk cache (all but _PER_EXAMPLE)."""
    from dataclasses import fields

    return {f.name: getattr(vectors, f.name) for f in fields(vectors) if f.name not in _PER_EXAMPLE}


class _PerExample:
    """A sequence computed one item at a time, on first access (then kept)."""

    def __init__(self, n: int, compute: Any) -> None:
        self._items: list[Any] = [None] * n
        self._compute = compute

    def __len__(self) -> int:
        return len(self._items)

    def __getitem__(self, pos: int) -> Any:
        item = self._items[pos]
        if item is None:
            item = self._items[pos] = self._compute(pos)
        return item


def lazy_vectors(similarity: Any, examples: list[str], parts: dict[str, Any]) -> "Vectors":
    """Vectors from the cached parts; words and norms as similarity.build computes them."""
    idf = parts["idf"]
    tokens = similarity.tokens
    # as similarity.build computes them, from t = tokens(example)
    words = _PerExample(len(examples), lambda pos: similarity.kept_words(tokens(examples[pos]), idf))
    norms = _PerExample(len(examples), lambda pos: similarity.norm(words[pos], idf))
    return similarity.Vectors(words=words, norms=norms, **parts)


def sort_tokens(text: str) -> str:
    """What rapidfuzz's token_sort_ratio compares: words sorted, so order differences do not count."""
    return " ".join(sorted(text.split()))


def example_key(text: str) -> str:
    """The form an example is compared in: normalised, without its particulars (paths, addresses),
    lower-case, its last FUZZY_CHARS."""
    return without_particulars(core_view(normalise(text)))[-FUZZY_CHARS:].lower()


def _slim(entry: Any) -> dict[str, Any]:
    """A JSON-able record of a kb.Entry (everything matching and reports use)."""
    return {
        "id": entry.id, "title": entry.title, "title_zh": entry.title_zh, "summary": entry.summary,
        "summary_zh": entry.summary_zh, "category": entry.category, "providers": list(entry.providers),
        "provider_sets": [list(s) for s in entry.provider_sets],
        "confirm": list(entry.findings.confirm), "refute": list(entry.findings.refute),
        "fixes": [[f.summary, f.summary_zh] for f in entry.fixes], "distinguish": entry.distinguish,
        "signatures": [[s.pattern, s.weight, s.ignore_case, s.note, requirements(s.pattern, s.ignore_case)] for s in entry.signatures],
        "context": [[c.pattern, c.weight] for c in entry.context],
        "examples": [[key := example_key(e.text), e.holdout, sort_tokens(key)] for e in entry.examples],
    }


def _compile(rec: dict[str, Any], include_holdout: bool) -> CompiledEntry:
    slim = SlimEntry(
        id=rec["id"], title=rec["title"], title_zh=rec["title_zh"], summary=rec["summary"],
        summary_zh=rec["summary_zh"], category=rec["category"], providers=tuple(rec["providers"]),
        provider_sets=tuple(tuple(s) for s in rec["provider_sets"]),
        findings=FindingLinks(tuple(rec["confirm"]), tuple(rec["refute"])),
        fixes=tuple(FixText(en, zh) for en, zh in rec["fixes"]), distinguish=rec["distinguish"],
    )
    sigs = tuple(
        CompiledSignature(p, ic, w, note, tuple(frozenset(c) for c in clauses)) for p, w, ic, note, clauses in rec["signatures"]
    )
    ctx = tuple((p, w) for p, w in rec["context"])
    kept = [ex for ex in rec["examples"] if include_holdout or not ex[1]]
    return CompiledEntry(entry=slim, signatures=sigs, context=ctx, examples=tuple(ex[0] for ex in kept),
                         sorted_examples=tuple(ex[2] for ex in kept))


def build(db: Any, include_holdout: bool = False) -> Index:
    """Compile a loaded kb.Database (retired entries are left out)."""
    records = [_slim(d.entry) for d in db.documents.values() if not d.entry.retired]
    return Index(entries=tuple(_compile(r, include_holdout) for r in records))


def _records(root: Path) -> tuple[list[dict[str, Any]], str]:
    """The entries' records and the cache key they are stored under."""
    # the entries, the kb code that reads them (a schema change changes what loading yields), and
    # the code that turns them into records (example keys, signature requirements)
    here = Path(__file__).resolve().parent
    key = (f"{CACHE_VERSION}:{FUZZY_CHARS}:{root.resolve()}|{diskcache.stat_key(root, ('.md', '.yaml'))}"
           f"|{diskcache.stat_key(here.parents[1] / 'kb', ('.py',))}"
           f"|{diskcache.file_key(here / 'text.py')}|{diskcache.file_key(here / 'prefilter.py')}")
    cached = diskcache.load_marshal("index", key)
    if isinstance(cached, list):
        return cached, key
    from kb import load  # the slow path: parse and validate every entry

    db = load(root, strict=False)
    records = [_slim(d.entry) for d in db.documents.values() if not d.entry.retired]
    diskcache.store_marshal("index", key, records)
    return records, key


@lru_cache(maxsize=1)
def default_index() -> Index:
    """The installed database. Entries that fail to load are skipped (the linter gates releases)."""
    from kb.paths import entries_dir

    records, key = _records(entries_dir())
    return Index(entries=tuple(_compile(r, False) for r in records), cache_key=key)
