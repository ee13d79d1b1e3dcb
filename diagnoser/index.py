"""Entries compiled for matching, and a compact on-disk cache of them.

Parsing Markdown/YAML and validating with pydantic costs more than a whole diagnosis, so the
fields matching needs are cached as JSON (keyed by the entry files' names, sizes and mtimes; diagnoser.diskcache) and
a cold `diagnose "text"` never imports kb, yaml or pydantic.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cached_property, lru_cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

from diagnoser import diskcache
from diagnoser.text import core_view, normalise, without_particulars

if TYPE_CHECKING:
    from diagnoser.similarity import Vectors

CACHE_VERSION = 11  # bump when the cached record format or example keys change
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
    literal: str  # a substring every match contains ("" if none): a cheap test before the regex
    folded: bool  # literal is lower-case, to be looked up in lower-cased text

    @cached_property
    def regex(self) -> re.Pattern[str]:
        """Compiled on first use: most signatures are never searched in a given run."""
        return re.compile(self.source, re.I if self.ignore_case else 0)


def required_literal(pattern: str, ignore_case: bool = False) -> tuple[str, bool]:
    """The longest run of plain characters that every match of pattern must contain.

    Only top-level literals count (not inside alternations, optional parts or groups), so the
    answer is always safe: if the literal is absent, the regex cannot match.
    """
    try:
        import re._constants as c
        import re._parser as p
    except ImportError:  # pragma: no cover - Python 3.10
        import sre_constants as c  # type: ignore[no-redef]
        import sre_parse as p  # type: ignore[no-redef]
    try:
        parsed = p.parse(pattern, re.I if ignore_case else 0)
    except re.error:
        return "", False
    folded = ignore_case or bool(parsed.state.flags & re.I)
    best, run = "", []
    for op, av in parsed:
        if op == c.LITERAL:
            run.append(chr(av))
            continue
        if len(run) > len(best):
            best = "".join(run)
        run = []
    if len(run) > len(best):
        best = "".join(run)
    if len(best) < 4:
        return "", False
    return (best.lower(), True) if folded else (best, False)


@dataclass(frozen=True)
class CompiledEntry:
    entry: SlimEntry
    signatures: tuple[CompiledSignature, ...]
    context: tuple[tuple[str, float], ...]  # (pattern, weight), searched case-insensitively
    examples: tuple[str, ...]  # fuzzy keys of the tuning examples (holdout excluded)
    index: int = -1  # position in Index.entries


@dataclass(frozen=True)
class Index:
    entries: tuple[CompiledEntry, ...]

    @cached_property
    def literals(self) -> tuple[tuple[str, bool], ...]:
        """Distinct (literal, folded) pairs the signatures require (see required_literal)."""
        return tuple(sorted({(s.literal, s.folded) for ce in self.entries for s in ce.signatures if s.literal}))

    @cached_property
    def _by_literal(self) -> tuple[dict[tuple[str, bool], frozenset[int]], frozenset[int]]:
        by: dict[tuple[str, bool], set[int]] = {}
        always: set[int] = set()
        for i, ce in enumerate(self.entries):
            for s in ce.signatures:
                if s.literal:
                    by.setdefault((s.literal, s.folded), set()).add(i)
                else:
                    always.add(i)
        return {k: frozenset(v) for k, v in by.items()}, frozenset(always)

    def searchable(self, present: set[tuple[str, bool]]) -> set[int]:
        """Positions of the entries one of whose signatures can match, given the literals present."""
        by, always = self._by_literal
        out = set(always)
        for key in present:
            out |= by.get(key, frozenset())
        return out

    @cached_property
    def vectors(self) -> "Vectors":
        """The examples as distinctive-word vectors (diagnoser.similarity), built on first use."""
        from diagnoser.similarity import build as build_vectors

        owners = [i for i, ce in enumerate(self.entries) for _ in ce.examples]
        return build_vectors([ex for ce in self.entries for ex in ce.examples], owners)

    @cached_property
    def flat_examples(self) -> tuple[list[str], list[int]]:
        """Every example key (token-sorted for fuzz.ratio) with the position of its entry."""
        keys, owners = [], []
        for i, ce in enumerate(self.entries):
            for ex in ce.examples:
                keys.append(sort_tokens(ex))
                owners.append(i)
        return keys, owners


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
        "signatures": [[s.pattern, s.weight, s.ignore_case, s.note, *required_literal(s.pattern, s.ignore_case)] for s in entry.signatures],
        "context": [[c.pattern, c.weight] for c in entry.context],
        "examples": [[example_key(e.text), e.holdout] for e in entry.examples],
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
        CompiledSignature(p, ic, w, note, lit, folded) for p, w, ic, note, lit, folded in rec["signatures"]
    )
    ctx = tuple((p, w) for p, w in rec["context"])
    examples = tuple(key for key, holdout in rec["examples"] if include_holdout or not holdout)
    return CompiledEntry(entry=slim, signatures=sigs, context=ctx, examples=examples)


def build(db: Any, include_holdout: bool = False) -> Index:
    """Compile a loaded kb.Database (retired entries are left out)."""
    records = [_slim(d.entry) for d in db.documents.values() if not d.entry.retired]
    return Index(entries=tuple(_compile(r, include_holdout) for r in records))


def _records(root: Path) -> list[dict[str, Any]]:
    # the entries, and the kb code that reads them (a schema change changes what loading yields)
    kb_code = Path(__file__).resolve().parent.parent / "kb"
    key = (f"{CACHE_VERSION}:{FUZZY_CHARS}:{root.resolve()}|{diskcache.stat_key(root, ('.md', '.yaml'))}"
           f"|{diskcache.stat_key(kb_code, ('.py',))}")
    cached = diskcache.load("index", key)
    if cached is not None:
        return cached
    from kb import load  # the slow path: parse and validate every entry

    db = load(root, strict=False)
    records = [_slim(d.entry) for d in db.documents.values() if not d.entry.retired]
    diskcache.store("index", key, records)
    return records


@lru_cache(maxsize=1)
def default_index() -> Index:
    """The installed database. Entries that fail to load are skipped (the linter gates releases)."""
    from kb.paths import entries_dir

    return Index(entries=tuple(_compile(r, False) for r in _records(entries_dir())))
