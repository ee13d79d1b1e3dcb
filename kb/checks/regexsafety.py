"""Static check for regular expressions that can backtrack catastrophically.

Python's `re` backtracks; a pattern with an unbounded repeat nested inside another unbounded
repeat (`(a+)+`, `(\\w+\\s?)*`) can take exponential time on a near-miss. We reject those
outright (star height above one), the way safe-regex does for JavaScript.
"""
from __future__ import annotations

try:  # Python 3.11+
    import re._constants as _c
    import re._parser as _p
except ImportError:  # pragma: no cover - Python 3.10
    import sre_constants as _c  # type: ignore[no-redef]
    import sre_parse as _p  # type: ignore[no-redef]

_REPEATS = {_c.MAX_REPEAT, _c.MIN_REPEAT}
_UNBOUNDED_ABOVE = 64  # {0,1000} backtracks like *


def _height(items: object) -> int:
    best = 0
    for op, av in items:  # type: ignore[attr-defined]
        if op in _REPEATS:
            lo, hi, sub = av
            inner = _height(sub)
            unbounded = hi == _c.MAXREPEAT or hi > _UNBOUNDED_ABOVE
            best = max(best, inner + (1 if unbounded else 0))
        elif op == _c.SUBPATTERN:
            best = max(best, _height(av[-1]))
        elif op == _c.BRANCH:
            best = max(best, *(_height(b) for b in av[1]))
        elif op in (_c.ASSERT, _c.ASSERT_NOT):
            best = max(best, _height(av[1]))
    return best


def star_height(pattern: str) -> int:
    """How deeply unbounded repeats nest in pattern (possessive/atomic parts count zero)."""
    return _height(_p.parse(pattern))


def backtracking_problem(pattern: str) -> str | None:
    """A reason the pattern is unsafe, or None."""
    height = star_height(pattern)
    if height > 1:
        return f"nested unbounded repeats (star height {height}) can backtrack catastrophically"
    return None
