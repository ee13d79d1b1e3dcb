"""Which signatures can match a text, decided before any regex runs.

Every signature's pattern is read once (when the index cache is built) into the literal strings
every match must contain, as clauses: for each clause, one of its literals is in the match. A
text is folded (fold), the literals present in it are found in one pass (Aho-Corasick, when
pyahocorasick is installed; else one substring test per literal), and a signature is searched only
if each of its clauses has a literal present. This is the scheme of RE2's FilteredRE2 and of
ripgrep's literal extraction, on the parse tree Python's own re module builds.

Why no match is ever dropped (each step keeps a superset of what can match):
- `requirements` walks re's parse tree. A node yields its exact set (the only strings it can
  match, when few) or None, and clauses; a clause is kept only if all its literals are at least
  MIN_LITERAL long. A concatenation joins the exact sets of consecutive parts into runs (a run
  becomes a clause where a part with no exact set breaks it) and pools its parts' clauses; an alternation keeps one clause per branch
  and requires their union (a branch with none drops the requirement); an optional or starred part
  requires nothing; a repeat at least once requires what its body requires; anything the walk does
  not know (a back-reference, a conditional group, a class with ranges) requires nothing and ends
  the exact set. Lookarounds and anchors match the empty string.
- Literals and text are compared folded: `fold` maps each character to one representative of the
  characters re's IGNORECASE treats as equal to it (simple lower case, plus re's extra cases such
  as ı/i and ſ/s), one character for one. So a literal a pattern must match, with or without
  IGNORECASE, is in the folded text whenever the match is in the text. tests/matching/test_prefilter.py
  checks this on every code point and every signature.
"""
from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Any

MIN_LITERAL = 3  # shorter literals are in most texts: requiring them filters nothing
_MAX_EXACT = 16  # strings an exact set may hold before it becomes a clause

try:
    from re import _casefix as _cf  # Python 3.11+
    from re import _constants as _c
    from re import _parser as _p

    _EXTRA = _cf._EXTRA_CASES
except ImportError:  # pragma: no cover - Python 3.10
    import sre_compile as _sc  # type: ignore[no-redef]
    import sre_constants as _c  # type: ignore[no-redef]
    import sre_parse as _p  # type: ignore[no-redef]

    _EXTRA = _sc._ignorecase_fixes  # type: ignore[attr-defined]


def _tables() -> tuple[dict[int, str], dict[int, str]]:
    # before lower(): characters whose full lower case is longer than one character (U+0130)
    import _sre

    pre = {x: chr(_sre.unicode_tolower(x)) for x in (0x130,) if len(chr(x).lower()) != 1}
    # after lower(): each class of re's extra case equivalences to its smallest member; σ and ς
    # (lower() picks one by context) are such a class
    parent: dict[int, int] = {}

    def find(x: int) -> int:
        while parent.get(x, x) != x:
            x = parent[x]
        return x

    for a, others in _EXTRA.items():
        for b in others:
            ra, rb = find(a), find(b)
            if ra != rb:
                parent[max(ra, rb)] = min(ra, rb)
    post = {x: chr(find(x)) for x in {*_EXTRA, *(b for o in _EXTRA.values() for b in o)} if find(x) != x}
    return pre, post


_PRE, _POST = _tables()


def fold(text: str) -> str:
    """text with each character replaced by its IGNORECASE class's representative (same length)."""
    if text.isascii():
        return text.lower()
    return text.translate(_PRE).lower().translate(_POST)


# --- reading a pattern -----------------------------------------------------------------------

Clauses = frozenset[frozenset[str]]
_NONE: Clauses = frozenset()


class _Info:
    """What a part of a pattern can match: `exact` (every string it can match, folded) or None,
    and `clauses` (each: one of these literals is in every match)."""

    __slots__ = ("exact", "clauses")

    def __init__(self, exact: frozenset[str] | None, clauses: Clauses = _NONE) -> None:
        self.exact, self.clauses = exact, clauses

    def all_clauses(self) -> Clauses:
        if self.exact and all(len(s) >= MIN_LITERAL for s in self.exact):
            return self.clauses | {self.exact}
        return self.clauses


_EMPTY = _Info(frozenset({""}))
_UNKNOWN = _Info(None)


def _best(clauses: Clauses) -> frozenset[str] | None:
    """The most selective clause: longest shortest literal, then fewest literals."""
    return max(clauses, key=lambda c: (min(map(len, c)), -len(c), sorted(c)), default=None)


def _alternation(branches: list[_Info]) -> _Info:
    if all(b.exact is not None for b in branches):
        union = frozenset().union(*(b.exact for b in branches))  # type: ignore[misc]
        if len(union) <= _MAX_EXACT:
            # the clauses of one branch need not hold in another: only the exact set survives
            return _Info(union)
    picked = [_best(b.all_clauses()) for b in branches]
    if any(p is None for p in picked):
        return _UNKNOWN
    return _Info(None, frozenset({frozenset().union(*picked)}))  # type: ignore[arg-type]


def _seq(items: Iterable[tuple[Any, Any]]) -> _Info:
    """A concatenation. `run` is the exact set of the parts since the last part with no exact set
    (or since a cross product grew too big): the match holds one of its strings there."""
    clauses: set[frozenset[str]] = set()
    run: frozenset[str] = frozenset({""})
    whole = True  # no break yet: run is the exact set of everything so far

    def flush() -> None:
        if run and all(len(s) >= MIN_LITERAL for s in run):
            clauses.add(run)

    for op, av in items:
        part = _node(op, av)
        clauses.update(part.clauses)
        if part.exact is not None and len(run) * len(part.exact) <= _MAX_EXACT:
            run = frozenset(x + y for x in run for y in part.exact)
            continue
        flush()
        whole = False
        run = part.exact if part.exact is not None else frozenset({""})
    if whole:
        return _Info(run, frozenset(clauses))
    flush()
    return _Info(None, frozenset(clauses))


def _node(op: Any, av: Any) -> _Info:
    if op is _c.LITERAL:
        return _Info(frozenset({fold(chr(av))}))
    if op is _c.SUBPATTERN:
        return _seq(av[-1])  # (group, add_flags, del_flags, pattern): flags do not matter folded
    if op is getattr(_c, "ATOMIC_GROUP", None):
        return _seq(av)
    if op is _c.BRANCH:
        return _alternation([_seq(b) for b in av[1]])
    if op in (_c.MAX_REPEAT, _c.MIN_REPEAT, getattr(_c, "POSSESSIVE_REPEAT", _c.MAX_REPEAT)):
        lo, hi, body = av
        inner = _seq(body)
        if lo == hi == 1:
            return inner
        if lo == 0:
            if hi == 1 and inner.exact is not None and len(inner.exact) < _MAX_EXACT:
                return _Info(inner.exact | {""})
            return _UNKNOWN  # any number of its strings, or none
        return _Info(None, inner.all_clauses())
    if op in (_c.AT, _c.ASSERT, _c.ASSERT_NOT):
        return _EMPTY  # zero-width: the match has nothing there
    if op is _c.IN:
        if all(o is _c.LITERAL for o, _ in av) and len(av) <= 8:
            return _Info(frozenset(fold(chr(v)) for _, v in av))
        return _UNKNOWN
    return _UNKNOWN  # ANY, NOT_LITERAL, GROUPREF, GROUPREF_EXISTS, CATEGORY, ...


def requirements(pattern: str, ignore_case: bool = False) -> tuple[tuple[str, ...], ...]:
    """The clauses every match of pattern satisfies (each sorted, most selective first); () if
    nothing can be required or the pattern does not parse."""
    try:
        parsed = _p.parse(pattern, re.I if ignore_case else 0)
    except (re.error, RecursionError, OverflowError):
        return ()
    try:
        clauses = _seq(parsed).all_clauses()
    except RecursionError:  # pragma: no cover - absurdly nested
        return ()
    ordered = sorted(clauses, key=lambda c: (-min(map(len, c)), len(c), sorted(c)))
    return tuple(tuple(sorted(c)) for c in ordered)


# --- finding literals in a text --------------------------------------------------------------

class Literals:
    """Finds which of a fixed set of folded literals occur in a text."""

    # Substring tests cost about 0.3 ns per character per literal (with 3,532 literals: 0.3 ms for
    # a 200-character message, 0.9 s for a 1 MB log); building the automaton 5-15 ms, once. So the
    # automaton is built when the texts read so far (characters x literals) pass this much: never
    # for the few short texts of one `diagnose` run, soon for a long log or a stream of messages.
    _AUTOMATON_AFTER = 20_000_000

    def __init__(self, literals: Iterable[str]) -> None:
        self.literals = tuple(sorted(set(literals)))
        self._automaton: Any = None
        self._work = 0

    def _build(self) -> Any:
        try:
            import ahocorasick
        except ImportError:
            return False
        automaton = ahocorasick.Automaton()
        for lit in self.literals:
            automaton.add_word(lit, lit)
        automaton.make_automaton()
        return automaton

    def present(self, folded: str) -> set[str]:
        """The literals that occur in folded (a text already passed through fold)."""
        self._work += len(folded) * len(self.literals)
        if self._automaton is None and self._work > self._AUTOMATON_AFTER:
            self._automaton = self._build() if self.literals else False
        if self._automaton:
            return {lit for _, lit in self._automaton.iter(folded)}
        return {lit for lit in self.literals if lit in folded}
