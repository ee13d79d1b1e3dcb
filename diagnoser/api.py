"""The library API the CLI uses: text, model and providers in; a Report out (data, not text)."""
from __future__ import annotations

import os
from collections.abc import Iterable

from diagnoser import facts as facts_mod
from diagnoser.index import Index, default_index
from diagnoser.links import doc_url
from diagnoser.matcher import Candidate, score
from diagnoser.report import Diagnosis, Finding, Report
from diagnoser.text import prepare

DIAGNOSIS_THRESHOLD = 0.5  # below this the tool does not stand behind a diagnosis
CANDIDATE_THRESHOLD = 0.1


def _to_diagnosis(c: Candidate) -> Diagnosis:
    e = c.compiled.entry
    return Diagnosis(
        id=e.id, title=e.title, title_zh=e.title_zh, category=e.category, confidence=c.confidence,
        summary=e.summary, summary_zh=e.summary_zh, evidence=tuple(c.evidence), facts=dict(c.facts),
        fix=e.fixes[0].summary, fix_zh=e.fixes[0].summary_zh, fixes=tuple(f.summary for f in e.fixes), fixes_zh=tuple(f.summary_zh for f in e.fixes),
        distinguish=e.distinguish, doc=doc_url(e.id), explain=f"kb show {e.id}",
    )


def _merged_facts(text: str, cands: list[Candidate]) -> dict[str, str]:
    merged = {}
    for c in cands:
        if c.line is not None:
            for k, v in c.facts.items():
                merged.setdefault(k, v)
    for k, v in facts_mod.extract(text).items():
        merged.setdefault(k, v)
    return merged


def _notes(diagnoses: list[Candidate], candidates: list[Candidate], has_model: bool) -> list[str]:
    notes = []
    top = diagnoses[0] if diagnoses else (candidates[0] if candidates else None)
    if top is None:
        return ["no known problem matches this text with confidence"]
    rivals = [c for c in (*diagnoses, *candidates) if c is not top and c.line is not None and c.line == top.line]
    if rivals:
        names = ", ".join(r.id for r in rivals)
        tell = top.compiled.entry.distinguish or "the model's evidence"
        hint = "" if has_model else " Run again with --model to let the probes decide."
        notes.append(f"{top.id} and {names} explain the same error line. What tells them apart: {tell}.{hint}")
    return notes


def diagnose(
    text: str | None = None,
    model: str | os.PathLike[str] | None = None,
    providers: Iterable[str] | None = None,
    *,
    index: Index | None = None,
    binary: bool = False,
) -> Report:
    """Diagnose error text and/or a model. Raises UserInputError for unusable input."""
    idx = index or default_index()
    prepared = prepare(text or "", binary=binary)
    provs = tuple(p.strip() for p in (providers or ()) if p and p.strip())
    first = score(idx, prepared.text, provs)
    facts = _merged_facts(prepared.text, first)
    findings: list[Finding] = []
    if model is not None:
        from diagnoser import modelfile
        from diagnoser.probes import ProbeContext, run_all

        loaded = modelfile.load(model)
        findings = run_all(ProbeContext(model=loaded, facts=facts, providers=provs, text=prepared.text))
        ranked = score(idx, prepared.text, provs, tuple(findings))
    else:
        ranked = first
    sure = [c for c in ranked if c.confidence >= DIAGNOSIS_THRESHOLD]
    maybe = [c for c in ranked if CANDIDATE_THRESHOLD <= c.confidence < DIAGNOSIS_THRESHOLD][:5]
    return Report(
        diagnoses=tuple(_to_diagnosis(c) for c in sure),
        candidates=tuple(_to_diagnosis(c) for c in maybe),
        findings=tuple(findings),
        facts=facts,
        notes=tuple(_notes(sure, maybe, model is not None)),
        input={
            "text_chars": prepared.original_chars,
            "text_truncated": prepared.truncated,
            "text_binary": prepared.binary,
            "model": str(model) if model is not None else None,
            "providers": list(provs),
            "entries": len(idx.entries),
        },
    )
