"""The terminal report: most likely diagnosis first, why, the fix, and where to read more.

Wraps to the width it is given (the CLI passes the terminal's), counting a Chinese character as
two columns; with lang="zh" every label is Chinese. Each reason is said once: identical evidence
lines are merged, and a probe finding quoted in a diagnosis's "why" is not listed again below.
"""
from __future__ import annotations

from kb.termtext import cells, wrap

from diagnoser.renderers.labels import labels
from diagnoser.report import Diagnosis, Report

_STYLES = {"bold": "1", "dim": "2", "red": "31", "green": "32", "yellow": "33", "cyan": "36"}


class _Paint:
    def __init__(self, color: bool):
        self.color = color

    def __call__(self, text: str, *styles: str) -> str:
        if not self.color or not styles:
            return text
        codes = ";".join(_STYLES[s] for s in styles)
        return f"\x1b[{codes}m{text}\x1b[0m"


def _unique(items):
    seen, out = set(), []
    for x in items:
        if x not in seen:
            seen.add(x)
            out.append(x)
    return out


def _diagnosis(d: Diagnosis, n: int, paint: _Paint, lang: str, width: int) -> list[str]:
    t = labels(lang)
    title = d.title_zh if lang == "zh" else d.title
    head = wrap(f"{n}. {d.id}  {title}", width, "", "   ")
    conf = f"{t['confidence']} {d.confidence:.0%}"
    colour = "green" if d.confidence >= 0.75 else "yellow"
    if cells(head[-1]) + 2 + cells(conf) <= width:
        out = [paint(x, "bold") for x in head[:-1]] + [paint(head[-1], "bold") + "  " + paint(conf, colour)]
    else:
        out = [paint(x, "bold") for x in head] + ["   " + paint(conf, colour)]
    out += wrap(d.summary_zh if lang == "zh" else d.summary, width, "   ")
    if d.facts:
        out += wrap(f"{t['facts']}: " + ", ".join(f"{k}={v}" for k, v in d.facts.items()), width, "   ", "     ")
    out.append("   " + paint(f"{t['why']}:", "dim"))
    for ev in _unique((ev.kind, ev.detail, ev.effect > 0) for ev in d.evidence):
        kind, detail, positive = ev
        mark = paint("+", "green") if positive else paint("-", "red")
        out += wrap(f"{t.get(kind, kind)}: {detail}", width, f"     {mark} ", "       ")
    out.append("   " + paint(f"{t['fix']}:", "bold"))
    fixes = d.fixes_zh if lang == "zh" else d.fixes
    for fix in fixes:
        out += wrap(fix, width, "     ") if len(fixes) == 1 else wrap(fix, width, "     - ", "       ")
    doc = d.doc_zh if lang == "zh" else d.doc
    read = f"{doc}  ({t['or']}: {d.explain})" if doc else d.explain
    prefix = f"   {t['read']}: "
    body = wrap(prefix + read, width, prefix[:3], "     ")
    out += ["   " + paint(prefix[3:], "dim") + paint(body[0][len(prefix):], "cyan")] + [paint(x, "cyan") for x in body[1:]]
    return out


def _failures(report: Report, paint: _Paint, lang: str, width: int) -> list[str]:
    """A model that fails with no entry to explain it: the failure leads, with its node."""
    t = labels(lang)
    out = [paint(x, "red") for x in wrap(t["fails"], width)]
    for f in report.failures:
        node, op = f.node.get("node"), f.node.get("op")
        where = f" [{node}{' ' + op if op else ''}]" if node else (f" [{op}]" if op else "")
        body = wrap(f"{f.code}{where}: {f.error}", width, "  ! ", "    ")
        out += ["  " + paint("!", "red") + body[0][3:]] + body[1:]
        inputs = [v for k, v in sorted(f.node.items()) if k.startswith("input")]
        if inputs:
            out += wrap(f"{t['inputs']}: " + "; ".join(inputs[:6]), width, "    ", "      ")
    return out + [""]


def render(report: Report, color: bool = False, lang: str = "en", width: int = 80) -> str:
    t = labels(lang)
    paint = _Paint(color)
    lines: list[str] = []
    if report.diagnoses:
        for i, d in enumerate(report.diagnoses, 1):
            lines += _diagnosis(d, i, paint, lang, width) + [""]
    elif report.failures:
        lines += _failures(report, paint, lang, width)
    elif report.environment_only and report.healthy:
        lines += [paint(x, "green") for x in wrap(t["env_ok"], width)] + [""]
    else:
        lines += [paint(x, "yellow") for x in wrap(t["none"], width)] + [""]
    if report.candidates:
        lines.append(paint(t["less_likely"], "dim"))
        for c in report.candidates:
            lines += wrap(f"{c.id}  {c.title_zh if lang == 'zh' else c.title}  ({c.confidence:.0%})", width, "  - ", "    ")
        lines.append("")
    quoted = {ev.detail for d in report.diagnoses for ev in d.evidence if ev.kind == "finding"}
    rest = [f for f in report.findings if f"{f.code}: {f.message}" not in quoted]
    if rest:
        lines.append(paint(t["findings"], "bold"))
        for f in rest:
            sev = {"error": "red", "warning": "yellow"}.get(f.severity, "dim")
            body = wrap(f"{f.code} ({t.get(f.severity, f.severity)}): {f.message}", width, "  * ", "    ")
            lines += ["  " + paint("*", sev) + body[0][3:]] + body[1:]
        lines.append("")
    for note in report.notes:
        prefix = f"{t['note']}: "
        body = wrap(prefix + note, width, "", " " * cells(prefix))
        lines += [paint(prefix, "dim") + body[0][len(prefix):]] + body[1:]
    return "\n".join(lines).rstrip() + "\n"
