"""Markdown, ready to paste into a bug report: the error as given (trimmed), the versions, the
model, each diagnosis with its evidence and fix, and what the probes found. Labels follow lang."""
from __future__ import annotations

from kb.termtext import fit_markdown

from diagnoser.renderers.labels import labels
from diagnoser.report import Diagnosis, Report, Triage


def _diagnosis(d: Diagnosis, lang: str) -> list[str]:
    t = labels(lang)
    zh = lang == "zh"
    out = [f"### {d.id}: {d.title_zh if zh else d.title} ({t['confidence']} {d.confidence:.0%})", ""]
    out += [d.summary_zh if zh else d.summary, ""]
    if d.facts:
        out += [f"{t['facts'].capitalize()}: " + ", ".join(f"`{k}={v}`" for k, v in d.facts.items()), ""]
    out += [f"**{t['evidence']}:**", ""]
    for ev in d.evidence:
        detail = (ev.detail_zh or ev.detail) if zh else ev.detail
        against = "" if ev.effect > 0 else (" *（反对）*" if zh else " *(against)*")
        out.append(f"- {t.get(ev.kind, ev.kind)}: {detail}{against}")
    fixes = d.fixes_zh if zh else d.fixes
    out += ["", f"**{t['fix'].capitalize()}:**", ""] + [f"{i}. {fix}" for i, fix in enumerate(fixes, 1)]
    doc = d.doc_zh if zh else d.doc
    out += ["", f"{t['read_more']}: [{d.id}]({doc})" if doc else f"{t['read_more']}: `{d.explain}`", ""]
    return out


def _input(report: Report, lang: str) -> list[str]:
    t = labels(lang)
    out: list[str] = []
    excerpt = report.input.get("text_excerpt")
    if excerpt:
        out += [f"**{t['error_text']}:**", "", "```text", excerpt.replace("```", "'''"), "```", ""]
    versions = report.input.get("versions") or {}
    if versions:
        out += [f"**{t['versions']}:** " + ", ".join(f"{k} {v}" for k, v in versions.items()), ""]
    model = report.input.get("model")
    if model:
        summary = ", ".join(f"{k}={v}" for k, v in report.facts.items() if k in ("ir_version", "opsets", "nodes", "inputs", "outputs"))
        out += [f"**{t['model']}:** `{model}`" + (f" ({summary})" if summary else ""), ""]
    providers = report.input.get("providers")
    if providers:
        out += [f"**{t['providers']}:** " + ", ".join(providers), ""]
    return out


def render(report: Report, lang: str = "en") -> str:
    t = labels(lang)
    zh = lang == "zh"
    lines = [f"## {t['report']}", ""] + _input(report, lang)
    if report.diagnoses:
        for d in report.diagnoses:
            lines += _diagnosis(d, lang)
    elif report.failures:
        lines += [t["failures"], ""]
        for f in report.failures:
            where = f" (`{f.node['node']}`)" if f.node.get("node") else ""
            lines.append(f"- `{f.code}`{where}: {f.error}")
            lines += [f"  - {v}" for k, v in sorted(f.node.items()) if k.startswith("input")][:6]
        lines.append("")
    elif report.environment_only and report.healthy:
        lines += [t["env_ok"], ""]
    else:
        lines += [t["none_md"], ""]
    if report.candidates:
        lines += [f"### {t['less_likely'].rstrip(':：')}", ""]
        lines += [f"- {c.id}: {c.title_zh if zh else c.title} ({c.confidence:.0%})" for c in report.candidates]
        lines.append("")
    if report.findings:
        lines += [f"### {t['findings'].rstrip(':：')}", ""]
        for f in report.findings:
            if zh:
                from diagnoser.notes import finding_zh

                lines.append(f"- `{f.code}`（{t.get(f.severity, f.severity)}）：{finding_zh(f.code, f.message).split('：', 1)[-1]}；原文：{f.message}")
            else:
                lines.append(f"- `{f.code}` ({f.severity}): {f.message}")
        lines.append("")
    if report.triage is not None:
        lines += _triage(report.triage, lang)
    notes = report.notes_zh if zh and len(report.notes_zh) == len(report.notes) else report.notes
    if notes:
        lines += [f"### {t['notes']}", ""] + [f"- {n}" for n in notes] + [""]
    # prose wrapped at 80 columns; the error text in its fence keeps its lines, as pasted
    return fit_markdown("\n".join(lines).rstrip(), 80, fold_code=False) + "\n"


def _triage(t: Triage, lang: str) -> list[str]:
    from diagnoser.renderers.terminal import STAGES_EN, STAGES_ZH

    lab = labels(lang)
    zh = lang == "zh"
    stage = STAGES_ZH.get(t.stage, t.stage) if zh else STAGES_EN.get(t.stage, t.stage)
    out = [f"### {lab['triage'].rstrip(':：')}", ""]
    out.append(f"- {lab['raised_by']}: `{t.component}`; {lab['stage']}: {stage}")
    if t.error:
        out.append(f"- {lab['error']}: `{t.error}`")
    if t.facts:
        out.append(f"- {lab['facts']}: " + ", ".join(f"`{k}={v}`" for k, v in t.facts.items()))
    if t.node:
        out.append(f"- {lab['node_in_model']}: " + "; ".join(f"{k}: `{v}`" for k, v in t.node.items()))
    if t.closest:
        out += ["", f"**{lab['closest']}:**", ""]
        for c in t.closest:
            pct = f" ({c.confidence:.0%})" if c.confidence else ""
            out.append(f"- {c.id}: {c.title_zh if zh else c.title}{pct}" + ("" if zh else f". What tells it apart: {c.tell}"))
    out += ["", f"**{lab['next']}:**", ""]
    out += [f"{i}. {s}" for i, s in enumerate(t.next_steps_zh if zh else t.next_steps, 1)]
    return out + [""]
