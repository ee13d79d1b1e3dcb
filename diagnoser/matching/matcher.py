"""Score every entry against the text, the providers and the probe findings.

Each source of evidence moves an entry's log-odds. Signatures set the starting point (their
weight is the chance that a match alone means this entry); example similarity, context words,
providers and probe findings move it. Entries whose best signature hit the same line are
competing explanations of one error, so their probabilities are shared out between them.
"""
from __future__ import annotations

import math
import re
from collections import defaultdict
from dataclasses import dataclass, field

from diagnoser.matching.index import FUZZY_CHARS, CompiledEntry, CompiledSignature, Index, context_regex, sort_tokens
from diagnoser.notes import finding_zh
from diagnoser.report import Evidence, Finding
from diagnoser.matching.similarity import best_by_entry
from diagnoser.matching.text import _DECISIVE, core_view, unwrapped_views, without_particulars

# A distinctive-word cosine reads higher than a surface ratio for the same closeness: measured on
# the entries' examples (leave-one-out), cosine 0.6 separates own from other entries about as well
# as ratio 0.7, so the cosine is lifted by this much before the two are compared.
_IDF_LIFT = 0.1


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


def decisive_text(text: str, hit_lines: set[int], raw: str | None = None) -> str:
    """The lines that carry the error: signature hits, else lines that look like errors, else the
    last lines. `raw` is the text before its wrappers were stripped (line for line): the wrapper is
    often what says "error" ([ONNXRuntimeError] : 9 : NOT_IMPLEMENTED : Could not find ...)."""
    lines = text.split("\n")
    picked = [lines[i] for i in sorted(hit_lines) if i < len(lines)]
    if not picked:
        looks = raw.split("\n") if raw is not None else lines
        picked = [ln for ln, r in zip(lines, looks) if ln and (_DECISIVE.search(r) or _DECISIVE.search(ln))][-5:]
    if not picked:
        picked = [ln for ln in lines if ln][-3:]
    return without_particulars("\n".join(picked))[-FUZZY_CHARS:].lower()


@dataclass
class _Text:
    """The text in the forms signatures are tried on, lower-cased copies made once."""

    text: str
    views: list[tuple[str, list[int]]]
    index: Index

    def __post_init__(self) -> None:
        # The signatures' required literals found in one pass (diagnoser.matching.prefilter): a regex runs
        # only where every clause of its literals is present.
        self.present = self.index.present("\n".join([self.text, *(v for v, _ in self.views)]))

    def may_contain(self, sig: CompiledSignature) -> bool:
        return sig.may_match(self.present)


def _search(sig: CompiledSignature, t: _Text) -> tuple[re.Match[str] | None, int]:
    """Search the text, then its unwrapped views; return the match and its line in the text."""
    if not t.may_contain(sig):
        return None, -1
    m = sig.regex.search(t.text)
    if m:
        return m, t.text.count("\n", 0, m.start())
    for view, starts in t.views:
        m = sig.regex.search(view)
        if m:
            return m, starts[view.count("\n", 0, m.start())]
    return None, -1


_NO_HIT: tuple[float, dict[str, str], None, list[Evidence], set[int]] = (0.0, {}, None, [], set())

# A log line below error level. A warning the run went on after is not the diagnosis of an error
# reported on a later line (whether or not another entry explains that line): at most a candidate
# beside it. rknn-toolkit prefixes its debug and warning lines with "D " and "W "; Python's
# logging writes " - WARNING - " in its default format.
_WARNING_LINE = re.compile(r"\[W:onnxruntime|^W\d{4} |\bUserWarning\b|^\W{0,3}WARN(?:ING)?\b|warnings\.warn\(|^[DW] (?=[A-Z])| - WARNING - ")
# A line that reports an error: onnxruntime's error log, rknn-toolkit's "E " prefix, a Python
# exception's last line, or a line that starts by saying error.
_ERROR_LINE = re.compile(r"\[E:onnxruntime|^E (?=[A-Z])|^\W{0,3}(?i:error|fatal)\b|^\s*[\w.]{1,100}(?:Error|Exception)\b: \S")


def _is_warning(text_lines: list[str], i: int) -> bool:
    return i < len(text_lines) and bool(_WARNING_LINE.search(text_lines[i]))


# A Python RuntimeWarning (numpy's "invalid value encountered in cast" on a session's NaN output,
# "overflow encountered"): the run went on and reports a problem of its own. Deprecation and future
# warnings are notices, not problems.
_PY_WARNING_LINE = re.compile(r"\bRuntimeWarning: \S")


def _error_after(text_lines: list[str], lines: set[int], excused: set[int], idf: dict[str, float],
                 warnings: bool = False) -> bool:
    """Whether an error line (not a warning) about something else follows the last of lines. None
    does when a later line is excused: the words of an entry the text itself speaks against are on
    it, and the warning is what explains that error (an app that fell back to another engine, then
    that engine failed). An error line that shares a rare word with the warning (the provider it
    named) is about the same thing. With `warnings`, a Python warning that reports a problem of
    its own (_PY_WARNING_LINE) counts as well."""
    from diagnoser.matching.similarity import tokens

    start = max(lines) + 1
    if any(i >= start for i in excused):
        return False
    said = {w for i in lines if i < len(text_lines) for w in tokens(text_lines[i]) if idf.get(w, 0.0) >= _RARE_IDF}

    def reports(ln: str) -> bool:
        if _ERROR_LINE.search(ln) and not _WARNING_LINE.search(ln):
            return True
        return warnings and bool(_PY_WARNING_LINE.search(ln))

    return any(reports(ln) and not said & tokens(ln) for ln in text_lines[start:])


def _refuted(ce: CompiledEntry, text: str) -> bool:
    """Whether one of the entry's negative-context phrases is in the text."""
    return any(weight < 0 and context_regex(pattern).search(text) for pattern, weight in ce.context)


def _signature_hits(ce: CompiledEntry, t: _Text) -> tuple[float, dict[str, str], int | None, list[Evidence], set[int]]:
    best, facts, line, evidence = 0.0, {}, None, []
    lines: set[int] = set()
    for sig in ce.signatures:
        m, at = _search(sig, t)
        if not m:
            continue
        lines.add(at)
        found = {k: v for k, v in m.groupdict().items() if v}
        quoted = m.group(0) if len(m.group(0)) <= 160 else m.group(0)[:157] + "..."
        evidence.append(Evidence("signature", f'error text matches "{quoted}"' + (f" ({sig.note})" if sig.note else ""), sig.weight,
                                 detail_zh=f'错误文本含有 "{quoted}"'))
        for k, v in found.items():
            facts.setdefault(k, v)
        if sig.weight > best:
            best, line = sig.weight, at
    if len(evidence) > 1:
        best = min(0.98, best + 0.04 * (len(evidence) - 1))
    return best, facts, line, evidence, lines


# The wrappers every kernel or load failure shares. A text that is nothing more than these (the
# runtime's status line with no message after it) resembles every example of every entry that
# starts the same way; likeness there says nothing about which problem it is.
_GENERIC = re.compile(
    r"non-zero status code returned while running \w{1,80} node\.?(?: name: ?'[^'\n]{0,300}')?(?: status message:?)?|"
    r"load model from \S{1,300}? failed:?|exception during initialization:?|this is an invalid model\.?|"
    r"\[onnxruntimeerror\] : \d{1,2} : \w{1,30} :?|"
    # the executor's log location and a binding's exception class name
    r"\S{0,60}sequential_?executor\S{0,60}(?: \w{0,40}\])?|\b[\w.]{0,100}(?:exception|error)\b:?",
    re.I,
)


# A signature weighted below this is, by its weight, not a diagnosis alone: a wording other stacks
# share or a log line, which context or a finding must confirm.
_WEAK = 0.5


# A word in fewer than about one entry in ten. Words more common than that ("load", "model",
# "failed") can make a short text look just like a short example without saying which problem it is.
_RARE_IDF = math.log(10)


def _linked_by_content(index: Index, decisive: str, candidates: set[int]) -> set[int]:
    """The entries among candidates whose examples share a rare word (_RARE_IDF) with the text once
    the generic wrappers (_GENERIC) are taken out of it: the rest is linked by the wrapper alone."""
    from diagnoser.matching.similarity import tokens

    vectors = index.vectors
    rest = {w for w in tokens(_GENERIC.sub(" ", decisive)) if vectors.idf.get(w, 0.0) >= _RARE_IDF}
    if not rest:
        return set()
    return {i for i in candidates if any(rest & vectors.words[p] for p in vectors.by_owner.get(i, ()))}


def _about_onnx(text: str) -> bool:
    """Whether the text names a component of the ONNX family (triage's test, its phrase table,
    the family named, not inferred from what the text does not name).
    Likeness to an example is evidence only inside the family: the same debugger line, allocator
    message or Python error about another library's file resembles an example just as much."""
    from diagnoser.triage.classify import is_onnx_family

    return is_onnx_family(text, named_only=True)


def _example_similarity(index: Index, decisive: str, only: set[int] | None = None, coverage: bool = True) -> dict[int, float]:
    """Best similarity of the decisive text to each entry's examples: the higher of the
    distinctive-word cosine (diagnoser.matching.similarity; with `coverage`, or the share of the text's
    words the entry's examples cover together) and the token-sorted surface ratio; with `only`,
    to those entries' examples alone."""
    if not decisive:
        return {}
    best = {i: min(1.0, c + _IDF_LIFT) for i, c in best_by_entry(index.vectors, decisive, only, coverage).items()}
    for i, r in _surface_similarity(index, decisive, only).items():
        if r > best.get(i, 0.0):
            best[i] = r
    return best


def _surface_similarity(index: Index, decisive: str, only: set[int] | None = None) -> dict[int, float]:
    """Best token-sorted ratio of the decisive text to each entry's examples."""
    keys, owners = index.flat_examples
    if only is not None:
        picked = index.example_positions(only)
        keys, owners = [keys[p] for p in picked], [owners[p] for p in picked]
        if not keys:
            return {}
    from rapidfuzz import fuzz, process  # only text needs it; a model-only run never imports it

    best: dict[int, float] = {}
    # process.extract, not cdist: cdist would import numpy, a third of a cold start
    for _, sim, pos in process.extract(sort_tokens(decisive), keys, scorer=fuzz.ratio, limit=None, score_cutoff=60):
        owner = owners[pos]
        if sim / 100.0 > best.get(owner, 0.0):
            best[owner] = sim / 100.0
    return best


def score(
    index: Index,
    text: str,
    providers: tuple[str, ...] = (),
    findings: tuple[Finding, ...] = (),
) -> list[Candidate]:
    """Every entry with any support, most likely first, with calibrated-ish confidence."""
    # Signatures anchor on the message's core and read the text as pasted; the similarity
    # fallback reads the message without its binding's wrappers (core_view, line for line).
    core = core_view(text)
    t = _Text(text, unwrapped_views(text), index)
    entries = index.entries
    hits = {i: h for i in index.searchable(t.present) if (h := _signature_hits(entries[i], t))[0] > 0}
    hit_lines = {h[2] for h in hits.values() if h[2] is not None}
    decisive = decisive_text(core, hit_lines, text) if text else ""
    # Example similarity is the fallback for wordings no signature knows: scan every example only
    # when no signature speaks with some confidence, else just the matched entries' examples.
    strong = any(h[0] >= 0.5 for h in hits.values())
    similarity = {} if strong else _example_similarity(index, decisive)
    # An entry a signature matched is moved by its likeness to one example (how close the wording
    # is to one seen); the entry's vocabulary as a whole (coverage) only ranks the fallback, where
    # no signature speaks: it is never enough to lift a weak signature into a diagnosis.
    if hits:
        similarity.update({i: 0.0 for i in hits})
        similarity.update(_example_similarity(index, decisive, set(hits), coverage=False))
    given = set(providers)
    found_codes = {f.code: f for f in findings}
    # Only entries something supports are scored: a signature, a similar example, the providers
    # asked for, or a confirming finding. Most entries, most of the time, are none of these.
    relevant = set(hits) | {i for i, s in similarity.items() if s >= 0.6}
    if given:
        relevant |= {i for i, ce in enumerate(entries) if ce.entry.provider_sets}
    if found_codes:
        relevant |= {i for i, ce in enumerate(entries) if not found_codes.keys().isdisjoint(ce.entry.findings.confirm)}
    sim_only = {i for i in relevant if i not in hits and similarity.get(i, 0.0) >= 0.6}
    linked = _linked_by_content(index, decisive, sim_only) if sim_only else set()
    if linked and not _about_onnx(text):
        linked = set()  # likeness alone, in a text that names no ONNX component: a candidate at most
    rival_sim = max((similarity.get(i, 0.0) for i in hits), default=0.0)
    about: list[bool] = []

    def about_onnx() -> bool:  # asked only for a weak signature's likeness; computed once
        if not about:
            about.append(_about_onnx(text))
        return about[0]

    out: list[Candidate] = []
    text_lines = text.split("\n")
    # error lines that a signature of some weight explains, unless that entry's own negative context
    # speaks against it (an app's warning that it fell back to another engine explains that
    # engine's error: the warning's entry must not be capped by it)
    refuted = {pos for pos in hits if _refuted(entries[pos], text)}
    explained = {i for pos, h in hits.items() if h[0] >= 0.5 and pos not in refuted
                 for i in h[4] if not _is_warning(text_lines, i)}
    excused = {i for pos in refuted for i in hits[pos][4]}  # errors a refuted entry's words are on
    for pos in sorted(relevant):
        ce = entries[pos]
        sig, facts, line, evidence, sig_lines = hits.get(pos, _NO_HIT)
        e = ce.entry
        sim = similarity.get(pos, 0.0)
        cand = Candidate(compiled=ce, facts=dict(facts), line=line, evidence=list(evidence))
        sim_term = max(-0.5, min(0.6, 2.0 * (sim - 0.7))) if sig > 0 else 0.0
        if 0 < sig < _WEAK and sim_term > 0 and not about_onnx():
            # a weak signature is a wording other libraries share (Python's "forward() missing 1
            # required positional argument"); likeness to an example in the same wording says
            # nothing more when the text names no ONNX component: only context may lift it
            sim_term = 0.0
        if sig > 0:
            logit = _logit(sig) + sim_term
        else:
            prior = 0.6 * max(0.0, (sim - 0.6) / 0.4) ** 2
            if pos not in linked:  # like its examples only in the shared wrapper: a candidate at most
                prior = min(prior, 0.3)
            elif sim <= rival_sim:  # an entry whose signature matched resembles the text as much:
                prior = min(prior, 0.45)  # the signature, not the likeness, tells them apart
            logit = _logit(prior) if prior > 0 else -9.0
        if sim >= 0.6:
            cand.evidence.append(Evidence("example", f"text resembles a known example ({sim:.0%} similar)", round(sim, 2),
                                          detail_zh=f"与一条已知示例相似（{sim:.0%}）"))
        if text and sig > 0:  # context moves entries a signature supports; it never makes one alone
            for pattern, weight in ce.context:
                hit = context_regex(pattern).search(text)  # compiled once (re's own cache holds 512)
                if hit:
                    logit += 2.0 * weight
                    said = " ".join(hit.group(0).split())[:60]
                    cand.evidence.append(Evidence("context", f'the text mentions "{said}"', weight, detail_zh=f'文本提到 "{said}"'))
            if pos in refuted:
                # A phrase that speaks against the entry outweighs looking like its examples: the
                # likeness is mostly the shared wrapper (the same binding, the same kernel prefix).
                logit -= max(0.0, sim_term)
        for pset in e.provider_sets:
            if set(pset) <= given:
                logit = max(logit, _logit(0.85)) + (2.0 if sig > 0 else 0.0)
                cand.evidence.append(Evidence("providers", f"providers {', '.join(pset)} requested together", 1.0,
                                              detail_zh=f"同时请求了执行提供器 {', '.join(pset)}"))
                break
        if e.providers and not given and line is not None:
            named = _providers_on_line(text, line) - {"CPUExecutionProvider"}  # CPU is named by every fallback
            if named and not named & set(e.providers):
                logit -= 2.5
                cand.evidence.append(Evidence("providers", f"the error names {', '.join(sorted(named))}, not {', '.join(e.providers)}", -1.0,
                                              detail_zh=f"错误提到的是 {', '.join(sorted(named))}，而不是 {', '.join(e.providers)}"))
        if e.providers and given:
            if given & set(e.providers):
                logit += 0.5
            elif given <= {"CPUExecutionProvider"} or not given & set(e.providers):
                logit -= 1.0
                cand.evidence.append(Evidence("providers", f"none of {', '.join(e.providers)} was requested", -1.0,
                                              detail_zh=f"没有请求 {', '.join(e.providers)} 中的任何一个"))
        if sig > 0 and sig_lines and all(_is_warning(text_lines, i) for i in sig_lines):
            if explained - sig_lines:
                logit = min(logit, _logit(0.45))
                cand.evidence.append(Evidence("context", "the matched line is a warning; another entry explains the error line", -1.0,
                                              detail_zh="匹配到的是一条警告；另一个条目解释了报错的那一行"))
            elif _error_after(text_lines, sig_lines, excused, index.vectors.idf):
                logit = min(logit, _logit(0.45))
                cand.evidence.append(Evidence("context", "the matched line is a warning; the error is reported on a later line", -1.0,
                                              detail_zh="匹配到的是一条警告；错误报告在后面的另一行"))
        elif pos in refuted and sig_lines and explained - sig_lines:
            # the text speaks against this entry, and another entry's signature explains an error
            # line of its own (a load that went past the opset check failed on an op)
            logit = min(logit, _logit(0.45))
            cand.evidence.append(Evidence("context", "the text speaks against this entry; another entry explains the error line", -1.0,
                                          detail_zh="文本中有否定该条目的内容；另一个条目解释了报错的那一行"))
        elif 0 < sig < _WEAK and sig_lines and _error_after(text_lines, sig_lines, excused, index.vectors.idf, warnings=True):
            # a weak signature's line (an application's log of the providers it applied) does not
            # explain an error or a warning about something else reported after it
            logit = min(logit, _logit(0.45))
            cand.evidence.append(Evidence("context", "the matched line only logs; a later line reports another problem", -1.0,
                                          detail_zh="匹配到的只是一条日志；后面的另一行报告了别的问题"))
        confirms = [found_codes[c] for c in e.findings.confirm if c in found_codes]
        refutes = [found_codes[c] for c in e.findings.refute if c in found_codes]
        if confirms and logit < -2.0 and _asked_for(e.providers, given, text):
            # model evidence alone: a prediction, not a diagnosis of a pasted error. An error
            # finding predicts (~0.8 after the confirm bonus below), a warning only suggests
            # (~0.35, a candidate), an info finding alone predicts nothing.
            severe = any(f.severity == "error" for f in confirms)
            if severe or any(f.severity == "warning" for f in confirms):
                logit = _logit(0.8 if severe else 0.35) - 2.0
        for i, f in enumerate(confirms):
            logit += 2.0 if i == 0 else 0.7
            cand.evidence.append(Evidence("finding", f"{f.code}: {f.message}", 1.0, detail_zh=finding_zh(f.code, f.message)))
        for f in refutes:
            logit -= 3.0
            cand.evidence.append(Evidence("finding", f"{f.code}: {f.message}", -1.0, detail_zh=finding_zh(f.code, f.message)))
        cand.probability = _sigmoid(logit)
        if cand.probability >= 0.02:
            out.append(cand)
    _share_between_rivals(out)
    out.sort(key=lambda c: (-c.confidence, c.id))
    return out


_PROVIDER = re.compile(r"\b([A-Z][A-Za-z]{1,30}ExecutionProvider)\b")


def _asked_for(providers: tuple[str, ...], given: set[str], text: str) -> bool:
    """May model evidence alone predict an entry of these providers? Only when one of them was
    requested or the text names it: a model finding (shapes missing, say) says nothing about a
    provider nobody asked about."""
    if not providers or "CPUExecutionProvider" in providers or given & set(providers):
        return True  # the CPU provider is the default and every session's fallback
    low = text.lower()
    return any(p.removesuffix("ExecutionProvider").lower() in low for p in providers)


def _providers_on_line(text: str, line: int) -> set[str]:
    """Execution providers the error line (and the two after it, where a wrap may fall) names."""
    lines = text.split("\n")[line:line + 3]
    return {m.group(1) for ln in lines for m in _PROVIDER.finditer(ln)}


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
