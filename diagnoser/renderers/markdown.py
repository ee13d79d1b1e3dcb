"""Markdown, ready to paste into a bug report."""
from __future__ import annotations

from diagnoser.renderers.labels import labels
from diagnoser.report import Diagnosis, Report


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
        lines += [labels(lang)["fails"], ""]
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
    if report.notes:
        lines += ["### Notes", ""] + [f"- {n}" for n in report.notes] + [""]
    return "\n".join(lines).rstrip() + "\n"
