"""The terminal report: most likely diagnosis first, why, the fix, and where to read more."""
from __future__ import annotations

import textwrap

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


def _wrap(text: str, indent: str, width: int, hang: str | None = None) -> list[str]:
    """Wrap text; continuation lines get `hang` (default: the indent) instead of a repeated marker."""
    return textwrap.wrap(text, width=width, initial_indent=indent, subsequent_indent=indent if hang is None else hang) or [indent]


def _diagnosis(d: Diagnosis, n: int, paint: _Paint, lang: str, width: int) -> list[str]:
    title = d.title_zh if lang == "zh" else d.title
    colour = "green" if d.confidence >= 0.75 else "yellow"
    out = [paint(f"{n}. {d.id}  {title}", "bold") + "  " + paint(f"confidence {d.confidence:.0%}", colour)]
    out += _wrap(d.summary_zh if lang == "zh" else d.summary, "   ", width)
    if d.facts:
        out.append("   " + paint("facts: ", "dim") + ", ".join(f"{k}={v}" for k, v in d.facts.items()))
    out.append("   " + paint("why:", "dim"))
    for ev in d.evidence:
        mark = paint("+", "green") if ev.effect > 0 else paint("-", "red")
        out += _wrap(f"{ev.kind}: {ev.detail}", f"     {mark} ", width, hang="       ")
    out.append("   " + paint("fix:", "bold"))
    fixes = d.fixes_zh if lang == "zh" else d.fixes
    for fix in fixes:
        out += _wrap(fix, "     ", width) if len(fixes) == 1 else _wrap(fix, "     - ", width, hang="       ")
    out.append("   " + paint("read: ", "dim") + paint(d.doc_zh if lang == "zh" else d.doc, "cyan") + paint(f"  (or: {d.explain})", "dim"))
    return out


def _failures(report: Report, paint: "_Paint", lang: str, width: int) -> list[str]:
    """A model that fails with no entry to explain it: the failure leads, with its node."""
    head = "模型出错，尚无条目能解释（以下为工具自身的报错）：" if lang == "zh" else "The model fails, and no entry explains it yet:"
    out = [paint(head, "red")]
    for f in report.failures:
        node = f.node.get("node")
        where = f" [{node}{' ' + f.node['op'] if f.node.get('op') else ''}]" if node else (f" [{f.node['op']}]" if f.node.get("op") else "")
        out += _wrap(f"{f.code}{where}: {f.error}", "  " + paint("!", "red") + " ", width, hang="    ")
        inputs = [v for k, v in sorted(f.node.items()) if k.startswith("input")]
        if inputs:
            out += _wrap(("输入：" if lang == "zh" else "inputs: ") + "; ".join(inputs[:6]), "    ", width, hang="    ")
    return out + [""]


def render(report: Report, color: bool = False, lang: str = "en", width: int = 100) -> str:
    paint = _Paint(color)
    lines: list[str] = []
    if report.diagnoses:
        for i, d in enumerate(report.diagnoses, 1):
            lines += _diagnosis(d, i, paint, lang, width) + [""]
    elif report.failures:
        lines += _failures(report, paint, lang, width)
    else:
        lines += [paint("No known problem matches this input with confidence.", "yellow"), ""]
    if report.candidates:
        lines.append(paint("Less likely:", "dim"))
        for c in report.candidates:
            lines.append(f"  - {c.id}  {c.title_zh if lang == 'zh' else c.title}  ({c.confidence:.0%})")
        lines.append("")
    if report.findings:
        lines.append(paint("Findings (model and environment probes):", "bold"))
        for f in report.findings:
            sev = {"error": "red", "warning": "yellow"}.get(f.severity, "dim")
            lines += _wrap(f"{f.code} ({f.severity}): {f.message}", "  " + paint("*", sev) + " ", width, hang="    ")
        lines.append("")
    for note in report.notes:
        lines += _wrap(note, paint("note: ", "dim"), width)
    return "\n".join(lines).rstrip() + "\n"
