"""Where each text the matcher read came from, and which voice decides.

The matcher reads one text: the user's paste followed by the error texts the probes collected
(the session's, the checker's, shape inference's). Evidence must say whose words matched, and
when onnxruntime has spoken (it loaded the model, or refused it in its own words), complaints of
the checker that the runtime tolerates (node order, missing value_info shapes) are notes, not
the lead diagnosis.
"""
from __future__ import annotations

import dataclasses
import re
from typing import Any

from diagnoser import notes
from diagnoser.notes import Note
from diagnoser.report import Finding

# finding code -> the source of its error_text (session.run-failed is not here: a failure on
# synthesized inputs is matched apart, as candidates only)
SOURCES = {
    "session.create-failed": "session", "session.crashed": "session",
    "session.fixed-size": "session", "checker.invalid": "checker", "shape.inference-error": "shape-inference",
    "env.onnxruntime-import-failed": "environment",
}
_SAYS = {"text": "your text", "session": "onnxruntime's own error", "checker": "onnx.checker's message",
         "shape-inference": "onnx shape inference's message", "environment": "the environment probe's error",
         "file": "the file check"}
_SAYS_ZH = {"text": "你的文本", "session": "onnxruntime 自身的报错", "checker": "onnx.checker 的报错",
            "shape-inference": "onnx 形状推断的报错", "environment": "环境探针的报错", "file": "文件检查"}
_STATIC_VOICES = frozenset({"checker", "shape-inference"})
_RUNTIME_SPOKE = frozenset({"session.create-failed", "session.run-failed", "session.ok", "session.fixed-size"})
# checker complaints onnxruntime is known to tolerate: it sorts the graph itself, and it infers
# the shapes a value_info leaves out
_TOLERATED = ("topologically sorted", "is required but missing")
_QUOTE = re.compile(r'^error text matches "(?P<q>.*?)"(?P<rest>(?: \(.*\))?)$', re.S)


def texts(user_text: str, findings: list[Finding]) -> list[tuple[str, str]]:
    """(source, text) in the order the matcher reads them."""
    out = [("text", user_text)] if user_text.strip() else []
    for f in findings:
        if f.code in SOURCES and f.details.get("error_text"):
            out.append((SOURCES[f.code], str(f.details["error_text"])))
    return out


def _source_of(quote: str, sources: list[tuple[str, str]]) -> str | None:
    q = quote[:-3] if quote.endswith("...") else quote
    for ws in (False, True):
        for src, body in sources:
            hay = " ".join(body.split()) if ws else body
            needle = " ".join(q.split()) if ws else q
            if needle and needle.lower() in hay.lower():
                return src
    return None


def _source_of_line(line: int | None, sources: list[tuple[str, str]]) -> str | None:
    if line is None:
        return None
    start = 0
    for src, body in sources:
        n = body.count("\n") + 1
        if start <= line < start + n:
            return src
        start += n
    return None


def says(source: str) -> str:
    return _SAYS.get(source, source)


def label(cands: list[Any], sources: list[tuple[str, str]]) -> None:
    """Say on each text evidence whose words matched (Evidence.source, and in its detail when
    the user's text is not the only text read)."""
    mixed = any(src != "text" for src, _ in sources)
    for c in cands:
        best = _source_of_line(c.line, sources)
        out = []
        for ev in c.evidence:
            if ev.kind == "signature":
                m = _QUOTE.match(ev.detail)
                src = (_source_of(m.group("q"), sources) if m else None) or best or "text"
                detail = f'{_SAYS[src]} matches "{m.group("q")}"{m.group("rest")}' if m and mixed else ev.detail
                detail_zh = f'{_SAYS_ZH[src]}含有 "{m.group("q")}"' if m and mixed else ev.detail_zh
                ev = dataclasses.replace(ev, detail=detail, detail_zh=detail_zh, source=src)
            elif ev.kind in ("example", "context"):
                ev = dataclasses.replace(ev, source=best or "text")
            elif ev.kind == "finding":
                ev = dataclasses.replace(ev, source="probe")
            out.append(ev)
        c.evidence = out


def _static_only(c: Any, checker_codes: set[str]) -> bool:
    """True when all that supports c is the checker's or shape inference's voice."""
    support = [ev for ev in c.evidence if ev.effect > 0]
    if not support:
        return False
    for ev in support:
        if ev.kind in ("signature", "example", "context") and ev.source in _STATIC_VOICES:
            continue
        if ev.kind == "finding" and ev.detail.split(":", 1)[0] in checker_codes:
            continue
        return False
    return True


def _tolerated(c: Any) -> bool:
    return any(ev.kind == "signature" and any(t in ev.detail for t in _TOLERATED) for ev in c.evidence if ev.effect > 0)


def runtime_decides(ranked: list[Any], findings: list[Finding], threshold: float) -> list[Note]:
    """When onnxruntime has spoken, entries supported only by the checker or shape inference drop
    below the diagnosis line; without a session, so do the checker complaints the runtime is
    known to tolerate (node order, missing shapes). Say so in a note."""
    spoke = any(f.code in _RUNTIME_SPOKE for f in findings)
    checker_codes = {f.code for f in findings if f.probe in ("checker", "shape_inference")}
    demoted = []
    for c in ranked:
        if c.confidence >= threshold and _static_only(c, checker_codes) and (spoke or _tolerated(c)):
            c.confidence = min(c.confidence, threshold - 0.05)
            demoted.append(c)
    if not demoted:
        return []
    ranked.sort(key=lambda c: (-c.confidence, c.id))
    failed = next((f for f in findings if f.code in ("session.create-failed", "session.run-failed", "session.fixed-size")), None)
    verdict = "tolerated" if not spoke else "fails" if failed else "runs"
    return [notes.checker_only(", ".join(c.id for c in demoted), verdict)]
