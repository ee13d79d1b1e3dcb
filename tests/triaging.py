"""What triage answers for a pasted text, as the triage tests compare it: shared by the
tests/test_triage_*.py files so each reads a text the way the CLI does (prepare, then triage)."""
from __future__ import annotations

from diagnoser.report import Triage
from diagnoser.matching.text import prepare
from diagnoser.triage import triage


def triage_of(text: str) -> Triage | None:
    """The triage of a text as pasted (normalised first), or None."""
    return triage(prepare(text).text)


def kind_of(text: str) -> tuple[str, str] | None:
    """(component, stage) of the text's triage, or None when it gets none."""
    t = triage_of(text)
    return None if t is None else (t.component, t.stage)
