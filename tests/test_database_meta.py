"""Meta-tests over the whole database: coverage, links between findings and entries, sources."""
from __future__ import annotations

import re


def test_every_category_has_an_entry(db):
    used = {d.entry.category for d in db.documents.values() if not d.entry.retired}
    assert sorted(set(db.categories) - used) == []


def test_every_alarming_finding_code_leads_to_an_entry(db):
    """A warning or an error the probes raise must lead the user to an entry (info codes lead to
    their reference page only)."""
    linked = {c for d in db.documents.values() for c in (*d.entry.findings.confirm, *d.entry.findings.refute)}
    # These carry the tool's own error text, which goes back through the matcher (diagnoser/api.py),
    # or describe the tool/model mismatch itself: linking them to one entry would be wrong.
    routed_by_text = {"session.create-failed", "session.run-failed", "checker.invalid", "shape.inference-error",
                      "env.onnxruntime-import-failed", "probe.failed", "session.probe-error", "node.not-found"}
    orphans = sorted(c for c, f in db.findings.items() if f.severity != "info" and c not in linked and c not in routed_by_text)
    assert orphans == []


def test_every_example_names_its_source(db):
    for doc in db.documents.values():
        for ex in doc.entry.examples:
            assert re.match(r"https://|[\w.-]+ \d+\.\d+|shared/reference", ex.source), f"{doc.entry.id}: vague source {ex.source!r}"


def test_holdout_share_is_meaningful(db):
    examples = [ex for d in db.documents.values() for ex in d.entry.examples]
    held = sum(ex.holdout for ex in examples)
    assert 0.15 <= held / len(examples) <= 0.4, f"{held}/{len(examples)} held out"


def test_ids_are_unique_and_permanent_format(db):
    ids = [d.entry.id for d in db.documents.values()]
    assert len(ids) == len(set(ids)) and all(re.fullmatch(r"OT\d{4}", i) for i in ids)
