"""Lint problems, reported as `path:line: message` like a compiler."""
from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, order=True)
class Problem:
    path: str
    line: int
    message: str

    def __str__(self) -> str:
        return f"{self.path}:{self.line}: {self.message}"


class EntryError(Exception):
    """Raised when the database cannot be loaded; carries every problem found."""

    def __init__(self, problems: list[Problem]):
        self.problems = sorted(problems)
        super().__init__("\n".join(str(p) for p in self.problems))


def id_normaliser(prefix: str, digits: int):
    """A function that reads an ID in any case, with or without prefix or zeros (`ot1` -> OT0001),
    like `rustc --explain E308`; None for anything else."""
    import re

    pattern = re.compile(rf"^\s*(?:{prefix})?-?0*(\d{{1,{digits}}})\s*$", re.I)

    def normalise(text: str) -> str | None:
        m = pattern.match(text)
        return f"{prefix}{int(m.group(1)):0{digits}d}" if m else None

    return normalise
