"""The terminal report: most likely diagnosis first, why, the fix, and where to read more.

Wraps to the width it is given (the CLI passes the terminal's), counting a Chinese character as
two columns; with lang="zh" every label is Chinese. Each reason is said once: identical evidence
lines are merged, and a probe finding quoted in a diagnosis's "why" is not listed again below.
"""
from __future__ import annotations

from kb.termtext import cells, wrap

from diagnoser.renderers.labels import labels
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


def _unique(items):
    seen, out = set(), []
    for x in items:
        if x not in seen:
            seen.add(x)
            out.append(x)
    return out


def _failures(report: Report, paint: "_Paint", lang: str, width: int) -> list[str]:
    """A model that fails with no entry to explain it: the failure leads, with its node."""
    t = labels(lang)
    out = [paint(x, "red") for x in wrap(t["failures"], width)]
    for f in report.failures:
        node = f.node.get("node")
        where = f" [{node}{' ' + f.node['op'] if f.node.get('op') else ''}]" if node else (f" [{f.node['op']}]" if f.node.get("op") else "")
        body = wrap(f"{f.code}{where}: {f.error}", width, "  ! ", "    ")
        out += ["  " + paint("!", "red") + body[0][3:]] + body[1:]
        inputs = [v for k, v in sorted(f.node.items()) if k.startswith("input")]
        if inputs:
            out += wrap(f"{t['inputs']}: " + "; ".join(inputs[:6]), width, "    ")
    return out + [""]


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
    for ev in _unique((ev.kind, (ev.detail_zh or ev.detail) if lang == "zh" else ev.detail, ev.effect > 0) for ev in d.evidence):
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
            if lang == "zh":
                from diagnoser.notes import finding_zh

                body = wrap(f"{f.code}（{t.get(f.severity, f.severity)}）：{finding_zh(f.code, f.message).split('：', 1)[-1]}", width, "  * ", "    ")
                body += wrap(f"原文：{f.message}", width, "    ", "    ")
            else:
                body = wrap(f"{f.code} ({t.get(f.severity, f.severity)}): {f.message}", width, "  * ", "    ")
            lines += ["  " + paint("*", sev) + body[0][3:]] + body[1:]
        lines.append("")
    if report.triage is not None:
        lines += _triage(report.triage, paint, lang, width)
    notes = report.notes_zh if lang == "zh" and len(report.notes_zh) == len(report.notes) else report.notes
    for note in notes:
        prefix = f"{t['note']}: "
        body = wrap(prefix + note, width, "", " " * cells(prefix))
        lines += [paint(prefix, "dim") + body[0][len(prefix):]] + body[1:]
    return "\n".join(lines).rstrip() + "\n"


STAGES_ZH = {"export": "导出", "convert": "转换", "quantize": "量化", "load": "加载（含创建会话）", "run": "运行", "install": "安装"}
STAGES_EN = {"load": "load (session creation)"}


def _triage(t: Triage, paint: _Paint, lang: str, width: int) -> list[str]:
    """Who raised the error, at which stage, what it names, the nearest entries, what to do next."""
    zh = lang == "zh"
    lab = labels(lang)
    sep = "：" if zh else ": "
    stage_name = STAGES_ZH.get(t.stage, t.stage) if zh else STAGES_EN.get(t.stage, t.stage)
    out = [paint(x, "bold") for x in wrap(lab["triage"], width)]
    out += wrap(f"{lab['raised_by']}{sep}{t.component}; {lab['stage']}{sep}{stage_name}", width, "  ", "    ")
    if t.error:
        out += wrap(f"{lab['error']}{sep}{t.error}", width, "  ", "    ")
    if t.facts:
        out += wrap(f"{lab['facts']}{sep}" + ", ".join(f"{k}={v}" for k, v in t.facts.items()), width, "  ", "    ")
    if t.node:
        out.append(f"  {lab['node_in_model']}{sep.rstrip()}")
        for k, v in t.node.items():
            out += wrap(f"{k}: {v}", width, "    ", "      ")
    if t.closest:
        out.append(f"  {lab['closest']}{sep.rstrip()}")
        for c in t.closest:
            pct = f"  ({c.confidence:.0%})" if c.confidence else ""
            out += wrap(f"{c.id}  {c.title_zh if zh else c.title}{pct}", width, "    - ", "      ")
            if not zh:  # what tells them apart is written in English only
                out += wrap(f"{lab['tell']}: {c.tell}", width, "      ", "        ")
    out.append(f"  {paint(lab['next'], 'bold')}{sep.rstrip()}")
    for step in (t.next_steps_zh if zh else t.next_steps):
        out += wrap(step, width, "    - ", "      ")
    return out + [""]
