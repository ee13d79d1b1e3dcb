"""The library API the CLI uses: text, model and providers in; a Report out (data, not text)."""
from __future__ import annotations

import os
from collections.abc import Iterable, Mapping

from diagnoser.matching import facts as facts_mod
from diagnoser.matching import provenance
from diagnoser.matching.index import Index, default_index
from diagnoser import notes as note
from diagnoser.notes import Note
from diagnoser.links import doc_url
from diagnoser.errors import UserInputError
from diagnoser.matching.matcher import Candidate, score
from diagnoser.report import Diagnosis, Finding, Report
from diagnoser.matching.text import prepare

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


def _notes(diagnoses: list[Candidate], candidates: list[Candidate], has_model: bool) -> list[Note]:
    notes = []
    top = diagnoses[0] if diagnoses else (candidates[0] if candidates else None)
    if top is None:
        return [note.no_match()]
    rivals = [c for c in (*diagnoses, *candidates) if c is not top and c.line is not None and c.line == top.line]
    if rivals:
        names = ", ".join(r.id for r in rivals)
        tell = top.compiled.entry.distinguish or "the model's evidence"
        notes.append(note.same_line(top.id, names, tell, has_model))
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

    providers may name a target device as PROVIDER:TARGET (DmlExecutionProvider:npu, see
    diagnoser.model.provider_tables); a provider not installed here is judged from its support tables.
    probes="static" skips the session probe; ort_version names a target runtime the model must
    also load on; shapes fix input shapes for the session probe. Raises UserInputError for
    unusable input.
    """
    if probes not in ("static", "all"):
        raise UserInputError(f"--probes must be 'static' or 'all', not {probes!r}")
    idx = index or default_index()
    prepared = prepare(text or "", binary=binary)
    from diagnoser.model import provider_tables

    provs, targets = provider_tables.parse([p for p in (providers or ()) if p and p.strip()])
    first = score(idx, prepared.text, provs)
    provenance.label(first, provenance.texts(prepared.text, []))
    facts = _merged_facts(prepared.text, first)
    findings: list[Finding] = []
    ranked, weak, lead, failed, graph = first, [], [], [], None
    if model is not None or env:
        from diagnoser.model import failures
        from diagnoser.probes import ProbeContext, environment, registered, run_all, static

        loaded, broken_file = _load(model)
        ctx = ProbeContext(model=loaded, facts=facts, providers=provs, targets=targets, env=env, text=prepared.text, ort_target=ort_version,
                           shapes={k: tuple(int(d) for d in v) for k, v in (shapes or {}).items()}, mode=probes,
                           session_timeout=session_timeout, session_memory_mb=session_memory_mb)
        ctx.findings.extend(broken_file)
        chosen = (registered() if probes == "all" else static()) if loaded is not None else ((environment,) if env else ())
        findings = run_all(ctx, chosen)
        sources = provenance.texts(prepared.text, findings)
        fused = "\n".join(body for _, body in sources)
        ranked = score(idx, fused, provs, tuple(findings))
        provenance.label(ranked, sources)
        if prepared.text.strip():
            _cap_model_only(ranked)
        lead += provenance.runtime_decides(ranked, findings, DIAGNOSIS_THRESHOLD)
        graph = ctx.graph if loaded is not None else None
        failed = failures.failures(findings, graph)
        weak_text = [f.details["error_text"] for f in findings if f.code == "session.run-failed" and f.details.get("error_text")]
        if weak_text:
            seen = {c.id for c in ranked}
            weak = [c for c in score(idx, weak_text[0], provs, tuple(findings)) if c.id not in seen and c.confidence >= CANDIDATE_THRESHOLD]
            for c in weak:
                c.confidence = min(c.confidence, DIAGNOSIS_THRESHOLD - 0.05)  # synthesized inputs: never a confident diagnosis
    sure = [c for c in ranked if c.confidence >= DIAGNOSIS_THRESHOLD]
    maybe = sorted([c for c in ranked if CANDIDATE_THRESHOLD <= c.confidence < DIAGNOSIS_THRESHOLD] + weak, key=lambda c: -c.confidence)[:5]
    leading: tuple = ()
    if failed:
        from diagnoser.model.failures import lead_notes, unexplained

        lead = lead_notes(failed) + lead
        if not sure:
            leading = tuple(f for f in unexplained(failed, maybe, findings) if f.code != "probe.failed")
    if prepared.text.strip() or sure or maybe:
        notes = lead + _notes(sure, maybe, model is not None)
    elif leading or any(f.code == "probe.failed" for f in failed):
        notes = lead
    else:
        notes = lead + [note.nothing_predicted("model" if model is not None else "environment")]
    if findings and prepared.text.strip():
        notes += _moved(first, ranked)
    notes += [note.target_not_here(f.details.get("missing", []), f.details.get("available", []), f.message)
              for f in findings if f.code == "env.target-not-here"]
    if weak:
        notes.append(note.synthesized(", ".join(c.id for c in weak)))
    triaged = None if sure else _triage(prepared.text, findings, ranked, idx, graph, leading[0].code if leading else None)
    return Report(
        diagnoses=tuple(_to_diagnosis(c) for c in sure),
        candidates=tuple(_to_diagnosis(c) for c in maybe),
        findings=tuple(findings),
        facts=facts,
        notes=tuple(n.en for n in notes),
        notes_zh=tuple(n.zh for n in notes),
        failures=leading,
        input={
            "text_chars": prepared.original_chars,
            "text_truncated": prepared.truncated,
            "text_binary": prepared.binary,
            "model": str(model) if model is not None else None,
            "providers": list(provs),
            "targets": dict(targets),
            "entries": len(idx.entries),
            "env": bool(env),
            "probes": probes,
            "ort_version": ort_version,
            "text_excerpt": _excerpt(prepared.text),
            "versions": _versions(),
        },
        triage=triaged,
    )


def _cap_model_only(ranked: list[Candidate]) -> None:
    """With pasted text, an entry supported by model or environment findings alone (no line of the
    text matched it) is a candidate, not a diagnosis: the text may come from another machine or
    another problem of the same model. A broken model file is the exception: it cannot be run
    anywhere."""
    for c in ranked:
        if any(e.kind == "finding" and e.detail.startswith("file.") for e in c.evidence if e.effect > 0):
            continue  # a file that is no usable model is a fact about what the user gave, whatever the text
        if c.line is None and not any(e.kind != "finding" for e in c.evidence if e.effect > 0):
            c.confidence = min(c.confidence, DIAGNOSIS_THRESHOLD - 0.05)
    ranked.sort(key=lambda c: (-c.confidence, c.id))


def _load(model: str | os.PathLike[str] | None) -> tuple[object | None, list[Finding]]:
    """The loaded model, or the file's problem as a finding: an empty, truncated or foreign file
    is the diagnosis the user came for. A path that is no file at all stays a usage error."""
    if model is None:
        return None, []
    from diagnoser.model import failures, modelfile

    try:
        return modelfile.load(model), []
    except UserInputError as exc:
        if exc.code is None:
            raise
        return None, [failures.file_finding(exc)]


def _excerpt(text: str, lines: int = 30, width: int = 300) -> str:
    """The error text as a bug report wants it: its last lines (where the error is), each cut to
    a readable length."""
    kept = [ln if len(ln) <= width else ln[: width - 3] + "..." for ln in text.strip("\n").splitlines()]
    return "\n".join(kept[-lines:])


def _versions() -> dict[str, str]:
    """Python and the packages a maintainer asks for, from the installed distributions' folder
    names (no import of onnxruntime or torch)."""
    import sys

    from diagnoser.probes.environment import installed_versions

    runtimes, others = installed_versions()
    if sys.implementation.name == "cpython":  # what platform.python_version() says, without
        python = sys.version.split()[0]  # importing platform (nine regexes compiled at import)
    else:
        import platform

        python = platform.python_version()
    return {"python": python, **runtimes, **others}


def _moved(before: list[Candidate], after: list[Candidate]) -> list[Note]:
    """Say which entries the model's evidence moved, and by which findings or whose words."""
    old = {c.id: c.confidence for c in before}
    notes = []
    for c in after[:5]:
        was = old.get(c.id, 0.0)
        if abs(c.confidence - was) >= 0.1:
            codes = [ev.detail.split(":", 1)[0] for ev in c.evidence if ev.kind == "finding"]
            voices = sorted({ev.source for ev in c.evidence if ev.effect > 0 and ev.source not in ("", "text", "probe")})
            said = ", ".join(provenance.says(v) for v in voices) or "the probes' error texts"
            why = f" ({', '.join(codes)})" if codes else f" ({said})"
            notes.append(note.moved(c.id, was, c.confidence, why))
    for cid, was in old.items():
        if was >= CANDIDATE_THRESHOLD and cid not in {c.id for c in after}:
            notes.append(note.ruled_out(cid, was))
    return notes


def _triage(text: str, findings: list[Finding], ranked: list[Candidate], idx: Index, graph: object, lead: str | None = None) -> object:
    """A triage of the pasted text (else of the error a probe met: the failure that leads the
    report, the runtime's words before the checker's) when no diagnosis stands; with a model,
    the named node is looked up in the graph the probes already read."""
    from diagnoser.triage import triage

    if not text.strip():
        texts = [f.details["error_text"] for f in findings if f.code == lead and f.details.get("error_text")]
        texts += [f.details["error_text"] for f in findings if f.severity == "error" and f.details.get("error_text")]
        text = prepare(texts[0]).text if texts else ""
    if not text.strip():
        return None
    return triage(text, ranked, idx, graph)


def fix(
    text: str | None = None,
    model: str | os.PathLike[str] | None = None,
    output: str | os.PathLike[str] | None = None,
    providers: Iterable[str] | None = None,
    *,
    unsafe: bool = False,
    remedies: Iterable[str] | None = None,
    ort_version: str | None = None,
    shapes: Mapping[str, Iterable[int]] | None = None,
    probes: str = "all",
    keep_io_types: bool = True,
    fp16_block: Iterable[str] = (),
    index: Index | None = None,
    binary: bool = False,
    session_timeout: float = 120.0,
    session_memory_mb: int | None = None,
) -> Report:
    """Diagnose, then apply the remedies the diagnosed entries name (or `remedies`, by name) to a
    copy of the model, verify each, and write the result to `output` (default: m.fixed.onnx beside
    the input; never the input). The Report's `fixes` says what was done and how it was checked."""
    from dataclasses import replace
    from pathlib import Path

    from diagnoser.model import modelfile
    from diagnoser.remedies import FixContext, by_name, engine
    from diagnoser.remedies.declared import declared_remedies, target_limits

    if model is None:
        raise UserInputError("--fix needs the model: give --model M.onnx")
    report = diagnose(text=text, model=model, providers=providers, index=index, binary=binary, ort_version=ort_version,
                      probes=probes, shapes=shapes, session_timeout=session_timeout, session_memory_mb=session_memory_mb)
    src = Path(model)
    loaded = modelfile.load(src)
    known = by_name()
    if remedies is not None:
        wanted = {r: () for r in remedies}
        unknown = [r for r in wanted if r not in known]
        if unknown:
            raise UserInputError(f"unknown remedy {', '.join(unknown)}; known: {', '.join(known)}")
    else:
        wanted = declared_remedies(tuple(d.id for d in report.diagnoses))
    hostile = [f for f in report.findings if f.code == "external-data.escapes-folder"]
    if hostile:
        raise UserInputError(f"refused to fix {src.name}: {hostile[0].message}", code=hostile[0].code)
    ext = next((f for f in report.findings if f.code == "external-data.present"), None)
    out = Path(output) if output is not None else engine.default_output(src)
    from diagnoser.model.weights import external_tensors, resolve

    data = {resolve(src.parent, e.value) for t in external_tensors(loaded.proto.graph, loaded.raw) for e in t.external_data if e.key == "location"}
    engine.check_output(src, out, external=bool(ext or any(f.code.startswith("external-data.") for f in report.findings)),
                        data_files=tuple(p for p in data if p is not None))
    max_ir, max_opset = target_limits(ort_version)
    ctx = FixContext(path=src, findings=report.findings, ort_target=ort_version, max_opset=max_opset, max_ir=max_ir,
                     providers=tuple(p for p in (providers or ()) if p),
                     shapes={k: tuple(int(d) for d in v) for k, v in (shapes or {}).items()},
                     keep_io_types=keep_io_types, fp16_block=tuple(fp16_block))
    outcome = engine.run(src, loaded.proto, ctx, wanted, out, unsafe=unsafe, timeout=session_timeout, memory_mb=session_memory_mb,
                         weights_bytes=int(ext.details.get("bytes", 0)) if ext else 0)
    return replace(report, fixes=outcome)
