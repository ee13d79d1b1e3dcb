"""Every Python snippet in every entry runs: reproductions fail with their documented error (which
`diagnose` must rank first), fixed versions and examples succeed. Skipped where a dependency is absent."""
from __future__ import annotations

import pytest

from diagnoser import diagnose
from kb import load
from tests.snippets import run_or_skip

_DB = load(strict=False)
CASES = [
    pytest.param(doc, snip, id=f"{doc.entry.id}-{snip.role}-L{snip.line}")
    for doc in _DB.documents.values()
    for snip in doc.snippets
]


@pytest.mark.parametrize(("doc", "snip"), CASES)
def test_snippet(doc, snip, tmp_path):
    outcome = run_or_skip(snip.code, tmp_path)
    if snip.role == "reproduce":
        assert outcome.returncode != 0, f"reproduction succeeded instead of failing:\n{outcome.output[-2000:]}"
        model = tmp_path / "model.onnx"
        report = diagnose(text=outcome.output, model=model if model.exists() else None)
        ranked = [d.id for d in (*report.diagnoses, *report.candidates)]
        assert ranked and ranked[0] == doc.entry.id, (
            f"captured message ranks {ranked[:3]} instead of {doc.entry.id}:\n{outcome.output[-2000:]}"
        )
        assert report.diagnoses and report.diagnoses[0].id == doc.entry.id, "own entry is only a weak candidate"
    else:
        assert outcome.returncode == 0, f"{snip.role} snippet failed:\n{outcome.output[-3000:]}"
