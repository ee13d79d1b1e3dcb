"""Score every entry against the text, the providers and the probe findings.

Each source of evidence moves an entry's log-odds. Signatures set the starting point (their
weight is the chance that a match alone means this entry); example similarity, context words,
providers and probe findings move it. Entries whose best signature hit the same line are
competing explanations of one error, so their probabilities are shared out between them.
"""
from __future__ import annotations

import math
from collections import defaultdict
from dataclasses import dataclass, field

from rapidfuzz import fuzz

from diagnoser.index import CompiledEntry, Index
from diagnoser.report import Evidence, Finding
from diagnoser.text import _DECISIVE

_FUZZY_CHARS = 1200


@dataclass
class Candidate:
    compiled: CompiledEntry
    probability: float = 0.0
    confidence: float = 0.0
    evidence: list[Evidence] = field(default_factory=list)
    facts: dict[str, str] = field(default_factory=dict)
    line: int | None = None  # line of the best signature hit; None if no signature matched

    @property
    def id(self) -> str:
        return self.compiled.entry.id


def _logit(p: float) -> float:
    p = min(max(p, 1e-4), 1 - 1e-4)
    return math.log(p / (1 - p))


def _sigmoid(x: float) -> float:
    return 1.0 / (1.0 + math.exp(-x))


def decisive_text(text: str, hit_lines: set[int]) -> str:
    """The lines that carry the error: signature hits, else lines that look like errors."""
    lines = text.split("\n")
    picked = [lines[i] for i in sorted(hit_lines) if i < len(lines)]
    if not picked:
        picked = [ln for ln in lines if _DECISIVE.search(ln)][-5:]
    return "\n".join(picked)[-_FUZZY_CHARS:].lower()


def _signature_hits(ce: CompiledEntry, text: str) -> tuple[float, dict[str, str], int | None, list[Evidence]]:
    best, facts, line, evidence = 0.0, {}, None, []
    for sig in ce.signatures:
        m = sig.regex.search(text)
        if not m:
            continue
        found = {k: v for k, v in m.groupdict().items() if v}
        quoted = m.group(0) if len(m.group(0)) <= 160 else m.group(0)[:157] + "..."
        evidence.append(Evidence("signature", f'error text matches "{quoted}"' + (f" ({sig.note})" if sig.note else ""), sig.weight))
        for k, v in found.items():
            facts.setdefault(k, v)
        if sig.weight > best:
            best, line = sig.weight, text.count("\n", 0, m.start())
    if len(evidence) > 1:
        best = min(0.98, best + 0.04 * (len(evidence) - 1))
    return best, facts, line, evidence


def _example_similarity(ce: CompiledEntry, decisive: str) -> float:
    if not decisive or not ce.examples:
        return 0.0
    return max(fuzz.token_sort_ratio(decisive, ex[-_FUZZY_CHARS:].lower()) for ex in ce.examples) / 100.0


def score(
    index: Index,
    text: str,
    providers: tuple[str, ...] = (),
    findings: tuple[Finding, ...] = (),
) -> list[Candidate]:
    """Every entry with any support, most likely first, with calibrated-ish confidence."""
    hits = [(ce, _signature_hits(ce, text)) for ce in index.entries]
    hit_lines = {h[2] for _, h in hits if h[2] is not None}
    decisive = decisive_text(text, hit_lines) if text else ""
    given = set(providers)
    found_codes = {f.code: f for f in findings}
    out: list[Candidate] = []
    for ce, (sig, facts, line, evidence) in hits:
        e = ce.entry
        cand = Candidate(compiled=ce, facts=dict(facts), line=line, evidence=list(evidence))
        sim = _example_similarity(ce, decisive) if decisive else 0.0
        if sig > 0:
            logit = _logit(sig) + max(-0.5, min(0.6, 2.0 * (sim - 0.7)))
        else:
            prior = 0.6 * max(0.0, (sim - 0.6) / 0.4) ** 2
            logit = _logit(prior) if prior > 0 else -9.0
        if sim >= 0.6:
            cand.evidence.append(Evidence("example", f"text resembles a known example ({sim:.0%} similar)", round(sim, 2)))
        if text:
            for regex, weight, pattern in ce.context:
                if regex.search(text):
                    logit += 2.0 * weight
                    cand.evidence.append(Evidence("context", f"context /{pattern}/ present", weight))
        for pset in e.provider_sets:
            if set(pset) <= given:
                logit = max(logit, _logit(0.85)) + (2.0 if sig > 0 else 0.0)
                cand.evidence.append(Evidence("providers", f"providers {', '.join(pset)} requested together", 1.0))
                break
        if e.providers and given:
            if given & set(e.providers):
                logit += 0.5
            elif given <= {"CPUExecutionProvider"} or not given & set(e.providers):
                logit -= 1.0
                cand.evidence.append(Evidence("providers", f"none of {', '.join(e.providers)} was requested", -1.0))
        confirms = [found_codes[c] for c in e.findings.confirm if c in found_codes]
        refutes = [found_codes[c] for c in e.findings.refute if c in found_codes]
        if confirms and logit < -2.0:
            # model evidence alone: a prediction, not a diagnosis of a pasted error
            severe = any(f.severity == "error" for f in confirms)
            logit = _logit(0.6 if severe else 0.3)
        for i, f in enumerate(confirms):
            logit += 2.0 if i == 0 else 0.7
            cand.evidence.append(Evidence("finding", f"{f.code}: {f.message}", 1.0))
        for f in refutes:
            logit -= 3.0
            cand.evidence.append(Evidence("finding", f"{f.code}: {f.message}", -1.0))
        cand.probability = _sigmoid(logit)
        if cand.probability >= 0.02:
            out.append(cand)
    _share_between_rivals(out)
    out.sort(key=lambda c: (-c.confidence, c.id))
    return out


def _share_between_rivals(cands: list[Candidate]) -> None:
    """Entries explaining the same error line are alternatives: their probabilities may not add
    up to more than one. (Signature weights are written as P(entry | match), so rivals that were
    weighted with care already sum to one or less and stay as they are.)"""
    groups: dict[object, list[Candidate]] = defaultdict(list)
    for c in cands:
        groups[c.line if c.line is not None else ("nosig", c.id)].append(c)
    for members in groups.values():
        total = sum(c.probability for c in members)
        for c in members:
            c.confidence = round(c.probability / max(1.0, total), 3)
