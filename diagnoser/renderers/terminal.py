"""The terminal report: most likely diagnosis first, why, the fix, and where to read more."""
from __future__ import annotations

import textwrap

from diagnoser.report import Diagnosis, Report, Triage

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
    doc = d.doc_zh if lang == "zh" else d.doc
    read = paint(doc, "cyan") + paint(f"  (or: {d.explain})", "dim") if doc else paint(d.explain, "cyan")
    out.append("   " + paint("read: ", "dim") + read)
    return out


def render(report: Report, color: bool = False, lang: str = "en", width: int = 100) -> str:
    paint = _Paint(color)
    lines: list[str] = []
    if report.diagnoses:
        for i, d in enumerate(report.diagnoses, 1):
            lines += _diagnosis(d, i, paint, lang, width) + [""]
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
    if report.triage is not None:
        lines += _triage(report.triage, paint, lang, min(width, 80))
    for note in report.notes:
        lines += _wrap(note, paint("note: ", "dim"), width)
    return "\n".join(lines).rstrip() + "\n"


STAGES_ZH = {"export": "导出", "convert": "转换", "quantize": "量化", "load": "加载（含创建会话）", "run": "运行", "install": "安装"}
STAGES_EN = {"load": "load (session creation)"}
_LABELS = {
    "en": ("Triage (no entry explains this error):", "raised by", "stage", "error", "facts", "node in the model",
           "closest entries", "tells it apart", "next"),
    "zh": ("分诊（没有条目能解释这个错误）：", "出错组件", "阶段", "错误", "事实", "模型中的该节点",
           "最接近的条目", "区别", "下一步"),
}


def _cols(text: str) -> int:
    from unicodedata import east_asian_width

    return sum(2 if east_asian_width(ch) in "WF" else 1 for ch in text)


def _wrap_cols(text: str, indent: str, width: int, hang: str | None = None) -> list[str]:
    """textwrap counts characters; Chinese characters take two columns. Break at a space where
    one is near, else between any two characters (Chinese has no spaces)."""
    hang = indent if hang is None else hang
    out, line, prefix = [], "", indent
    for ch in text:
        if _cols(prefix + line + ch) > width:
            cut = line.rfind(" ")
            if cut > len(line) // 2:
                out.append(prefix + line[:cut])
                line = line[cut + 1:]
            else:
                out.append(prefix + line)
                line = ""
            prefix = hang
            line = line.lstrip()
            if ch == " " and not line:
                continue
        line += ch
    out.append(prefix + line)
    return out


def _triage(t: Triage, paint: _Paint, lang: str, width: int) -> list[str]:
    """Who raised the error, at which stage, what it names, the nearest entries, what to do next."""
    zh = lang == "zh"
    _wrap = _wrap_cols if zh else globals()["_wrap"]  # noqa: N806 - the column-aware wrap for Chinese
    head, by, stage, error, facts, node, closest, tell, nxt = _LABELS["zh" if zh else "en"]
    sep = "：" if zh else ": "
    stage_name = STAGES_ZH.get(t.stage, t.stage) if zh else STAGES_EN.get(t.stage, t.stage)
    out = [paint(head, "bold")]
    out.append(f"  {by}{sep}{t.component}; {stage}{sep}{stage_name}")
    if t.error:
        out += _wrap(t.error, f"  {error}{sep}", width, hang="    ")
    if t.facts:
        out += _wrap(", ".join(f"{k}={v}" for k, v in t.facts.items()), f"  {facts}{sep}", width, hang="    ")
    if t.node:
        out.append(f"  {node}{sep.rstrip()}")
        for k, v in t.node.items():
            out += _wrap(f"{k}: {v}", "    ", width, hang="      ")
    if t.closest:
        out.append(f"  {closest}{sep.rstrip()}")
        for c in t.closest:
            pct = f"  ({c.confidence:.0%})" if c.confidence else ""
            out += _wrap(f"{c.id}  {c.title_zh if zh else c.title}{pct}", "    - ", width, hang="      ")
            if not zh:
                out += _wrap(c.tell, f"      {tell}: ", width, hang="        ")
    out.append(f"  {paint(nxt, 'bold')}{sep.rstrip()}")
    for step in (t.next_steps_zh if zh else t.next_steps):
        out += _wrap(step, "    - ", width, hang="      ")
    return out + [""]
