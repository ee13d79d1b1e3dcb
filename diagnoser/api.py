"""The library API the CLI uses: text, model and providers in; a Report out (data, not text)."""
from __future__ import annotations

import os
from collections.abc import Iterable, Mapping

from diagnoser import facts as facts_mod
from diagnoser.index import Index, default_index
from diagnoser.links import doc_url
from diagnoser.errors import UserInputError
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
        distinguish=e.distinguish, doc=doc_url(e.id), doc_zh=doc_url(e.id, lang="zh"), explain=f"kb show {e.id}",
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
    env: bool = False,
    ort_version: str | None = None,
    probes: str = "all",
    shapes: Mapping[str, Iterable[int]] | None = None,
    session_timeout: float = 120.0,
    session_memory_mb: int | None = None,
) -> Report:
    """Diagnose error text and/or a model, and/or the environment (env=True).

    probes="static" skips the session probe; ort_version names a target runtime the model must
    also load on; shapes fix input shapes for the session probe. Raises UserInputError for
    unusable input.
    """
    if probes not in ("static", "all"):
        raise UserInputError(f"--probes must be 'static' or 'all', not {probes!r}")
    idx = index or default_index()
    prepared = prepare(text or "", binary=binary)
    provs = tuple(p.strip() for p in (providers or ()) if p and p.strip())
    first = score(idx, prepared.text, provs)
    facts = _merged_facts(prepared.text, first)
    findings: list[Finding] = []
    ranked, weak = first, []
    if model is not None or env:
        from diagnoser import modelfile
        from diagnoser.probes import ProbeContext, environment, registered, run_all, static

        loaded = modelfile.load(model) if model is not None else None
        ctx = ProbeContext(model=loaded, facts=facts, providers=provs, text=prepared.text, ort_target=ort_version,
                           shapes={k: tuple(int(d) for d in v) for k, v in (shapes or {}).items()}, mode=probes,
                           session_timeout=session_timeout, session_memory_mb=session_memory_mb)
        chosen = (registered() if probes == "all" else static()) if loaded is not None else (environment,)
        findings = run_all(ctx, chosen)
        extra = [f.details["error_text"] for f in findings if f.code in _TEXT_FINDINGS and f.details.get("error_text")]
        fused = "\n".join([prepared.text, *extra]).strip("\n") if extra else prepared.text
        ranked = score(idx, fused, provs, tuple(findings))
        if prepared.text.strip():
            _cap_model_only(ranked)
        weak_text = [f.details["error_text"] for f in findings if f.code == "session.run-failed" and f.details.get("error_text")]
        if weak_text:
            seen = {c.id for c in ranked}
            weak = [c for c in score(idx, weak_text[0], provs, tuple(findings)) if c.id not in seen and c.confidence >= CANDIDATE_THRESHOLD]
            for c in weak:
                c.confidence = min(c.confidence, DIAGNOSIS_THRESHOLD - 0.05)  # synthesized inputs: never a confident diagnosis
    sure = [c for c in ranked if c.confidence >= DIAGNOSIS_THRESHOLD]
    maybe = sorted([c for c in ranked if CANDIDATE_THRESHOLD <= c.confidence < DIAGNOSIS_THRESHOLD] + weak, key=lambda c: -c.confidence)[:5]
    if prepared.text.strip() or sure or maybe:
        notes = _notes(sure, maybe, model is not None)
    else:
        notes = [f"the probes predict no known problem for this {'model' if model is not None else 'environment'}"]
    if findings and prepared.text.strip():
        notes += _moved(first, ranked)
    if weak:
        notes.append("the session failed only when run on synthesized inputs: " + ", ".join(c.id for c in weak) + " are candidates, not diagnoses")
    triaged = None if sure else _triage(prepared.text, findings, ranked, idx, model)
    return Report(
        diagnoses=tuple(_to_diagnosis(c) for c in sure),
        candidates=tuple(_to_diagnosis(c) for c in maybe),
        findings=tuple(findings),
        facts=facts,
        notes=tuple(notes),
        input={
            "text_chars": prepared.original_chars,
            "text_truncated": prepared.truncated,
            "text_binary": prepared.binary,
            "model": str(model) if model is not None else None,
            "providers": list(provs),
            "entries": len(idx.entries),
            "env": bool(env),
            "probes": probes,
            "ort_version": ort_version,
        },
        triage=triaged,
    )


def _cap_model_only(ranked: list[Candidate]) -> None:
    """With pasted text, an entry supported by model or environment findings alone (no line of the
    text matched it) is a candidate, not a diagnosis: the text may come from another machine or
    another problem of the same model."""
    for c in ranked:
        if c.line is None and not any(e.kind != "finding" for e in c.evidence if e.effect > 0):
            c.confidence = min(c.confidence, DIAGNOSIS_THRESHOLD - 0.05)
    ranked.sort(key=lambda c: (-c.confidence, c.id))


# findings whose error text (the runtime's or checker's own words) is matched like pasted text
_TEXT_FINDINGS = frozenset({"session.create-failed", "session.crashed", "checker.invalid", "shape.inference-error", "env.onnxruntime-import-failed"})


def _moved(before: list[Candidate], after: list[Candidate]) -> list[str]:
    """Say which entries the model's evidence moved, and by which findings."""
    old = {c.id: c.confidence for c in before}
    notes = []
    for c in after[:5]:
        was = old.get(c.id, 0.0)
        if abs(c.confidence - was) >= 0.1:
            codes = [ev.detail.split(":", 1)[0] for ev in c.evidence if ev.kind == "finding"]
            why = f" ({', '.join(codes)})" if codes else " (the runtime's own error text)"
            notes.append(f"model evidence moved {c.id} from {was:.0%} to {c.confidence:.0%}{why}")
    for cid, was in old.items():
        if was >= CANDIDATE_THRESHOLD and cid not in {c.id for c in after}:
            notes.append(f"model evidence ruled out {cid} (was {was:.0%})")
    return notes


def _triage(text: str, findings: list[Finding], ranked: list[Candidate], idx: Index, model: object) -> object:
    """A triage of the pasted text (else of the error a probe met) when no diagnosis stands; with
    a model, the named node is looked up in it."""
    from diagnoser.triage import triage

    if not text.strip():
        texts = [f.details["error_text"] for f in findings if f.severity == "error" and f.details.get("error_text")]
        text = prepare(texts[0]).text if texts else ""
    if not text.strip():
        return None
    graph = None
    if model is not None:
        from diagnoser import modelfile
        from diagnoser.graphinfo import GraphInfo

        try:
            graph = GraphInfo(modelfile.load(model).proto)  # type: ignore[arg-type]
        except Exception:  # a file that is no model: the findings say so, the triage goes without it
            graph = None
    return triage(text, ranked, idx, graph)
