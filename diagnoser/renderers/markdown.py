"""Markdown, ready to paste into a bug report."""
from __future__ import annotations

from diagnoser.report import Diagnosis, Report, Triage


def _diagnosis(d: Diagnosis, lang: str) -> list[str]:
    title = d.title_zh if lang == "zh" else d.title
    out = [f"### {d.id}: {title} ({d.confidence:.0%})", ""]
    out.append(d.summary_zh if lang == "zh" else d.summary)
    out.append("")
    if d.facts:
        out.append("Facts: " + ", ".join(f"`{k}={v}`" for k, v in d.facts.items()))
        out.append("")
    out.append("Evidence:")
    out.extend(f"- {'+' if ev.effect > 0 else '-'} {ev.kind}: {ev.detail}" for ev in d.evidence)
    fixes = d.fixes_zh if lang == "zh" else d.fixes
    out += ["", "**Fix:**", ""] + [f"{i}. {fix}" for i, fix in enumerate(fixes, 1)]
    doc = d.doc_zh if lang == "zh" else d.doc
    out += ["", f"Read more: [{d.id}]({doc})" if doc else f"Read more: `{d.explain}`", ""]
    return out


def render(report: Report, lang: str = "en") -> str:
    lines = ["## ONNX troubleshooting report", ""]
    if report.diagnoses:
        for d in report.diagnoses:
            lines += _diagnosis(d, lang)
    elif report.failures:
        lines += ["模型出错，尚无条目能解释：" if lang == "zh" else "The model fails, and no entry explains it yet:", ""]
        for f in report.failures:
            where = f" (`{f.node['node']}`)" if f.node.get("node") else ""
            lines.append(f"- `{f.code}`{where}: {f.error}")
            lines += [f"  - {v}" for k, v in sorted(f.node.items()) if k.startswith("input")][:6]
        lines.append("")
    else:
        lines += ["No known problem matches with confidence.", ""]
    if report.candidates:
        lines += ["### Less likely", ""]
        lines += [f"- {c.id}: {c.title_zh if lang == 'zh' else c.title} ({c.confidence:.0%})" for c in report.candidates]
        lines.append("")
    if report.findings:
        lines += ["### Findings (model and environment probes)", ""]
        lines += [f"- `{f.code}` ({f.severity}): {f.message}" for f in report.findings]
        lines.append("")
    if report.triage is not None:
        lines += _triage(report.triage, lang)
    if report.notes:
        lines += ["### Notes", ""] + [f"- {n}" for n in report.notes] + [""]
    return "\n".join(lines).rstrip() + "\n"


def _triage(t: Triage, lang: str) -> list[str]:
    from diagnoser.renderers.terminal import STAGES_EN, STAGES_ZH

    zh = lang == "zh"
    stage = STAGES_ZH.get(t.stage, t.stage) if zh else STAGES_EN.get(t.stage, t.stage)
    out = ["### 分诊（没有条目能解释这个错误）" if zh else "### Triage (no entry explains this error)", ""]
    out.append(f"- {'出错组件' if zh else 'Raised by'}: `{t.component}`; {'阶段' if zh else 'stage'}: {stage}")
    if t.error:
        out.append(f"- {'错误' if zh else 'Error'}: `{t.error}`")
    if t.facts:
        out.append(f"- {'事实' if zh else 'Facts'}: " + ", ".join(f"`{k}={v}`" for k, v in t.facts.items()))
    if t.node:
        out.append(f"- {'模型中的该节点' if zh else 'Node in the model'}: " + "; ".join(f"{k}: `{v}`" for k, v in t.node.items()))
    if t.closest:
        out += ["", "**最接近的条目：**" if zh else "**Closest entries:**", ""]
        for c in t.closest:
            pct = f" ({c.confidence:.0%})" if c.confidence else ""
            out.append(f"- {c.id}: {c.title_zh if zh else c.title}{pct}" + ("" if zh else f". What tells it apart: {c.tell}"))
    out += ["", "**下一步：**" if zh else "**Next:**", ""]
    out += [f"{i}. {s}" for i, s in enumerate(t.next_steps_zh if zh else t.next_steps, 1)]
    return out + [""]
