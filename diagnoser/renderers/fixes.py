"""The `diagnose --fix` section, as plain lines shared by the terminal and Markdown renderers:
each remedy, its grade, what it changed, the verification and where the file was written."""
from __future__ import annotations

from diagnoser.report import FixOutcome, RemedyRecord, Verification

WORDS = {
    "en": {"head": "Fixes (diagnose --fix)", "safe": "safe", "numerics": "changes numerics", "review": "needs review",
           "applied": "applied", "failed": "not applied", "not-needed": "nothing to change", "needs-unsafe": "needs --unsafe-fixes",
           "error": "remedy error", "changed": "changed", "more": "more", "verified": "verified", "not_verified": "verification failed",
           "checker": "checker + strict shape inference", "session": "CPU session", "ref": "compared with", "noref": "no reference: the original runs nowhere",
           "tol": "tolerance", "out": "output", "abs": "max abs", "rel": "rel", "ok": "ok", "over": "OVER", "written": "written",
           "nothing": "nothing written (no remedy passed); the input is unchanged",
           "none": "no diagnosed problem has an automatic remedy: nothing written", "for": "for", "unsafe_hint": "",
           "not_gated": "shown for review, not gated", "sep": ": ", "open": " (", "close": ")", "semi": "; ", "comma": ", "},
    "zh": {"head": "自动修复（diagnose --fix）", "safe": "安全", "numerics": "改变数值", "review": "需审阅",
           "applied": "已应用", "failed": "未应用", "not-needed": "无需修改", "needs-unsafe": "需加 --unsafe-fixes",
           "error": "修复出错", "changed": "修改", "more": "另有", "verified": "已验证", "not_verified": "验证未通过",
           "checker": "检查器与严格形状推断", "session": "CPU 会话", "ref": "对照", "noref": "无对照：原模型在任何引擎上都无法运行",
           "tol": "容差", "out": "输出", "abs": "最大绝对误差", "rel": "相对", "ok": "通过", "over": "超出", "written": "已写入",
           "nothing": "未写入任何文件（没有修复通过验证）；输入文件未改动",
           "none": "诊断出的问题都没有自动修复：未写入任何文件", "for": "对应", "unsafe_hint": "",
           "not_gated": "仅供审阅，不作判定", "sep": "：", "open": "（", "close": "）", "semi": "；", "comma": "，", "ran": "已运行", "not run": "未运行", "ok!": "通过",
           "initializer": "权重", "node-added": "新增节点", "node-removed": "删除节点", "node-retyped": "节点改类型",
           "node-changed": "节点修改", "output": "输出", "input": "输入", "external-data": "外部数据"},
}


def _num(x: float | None) -> str:
    return "-" if x is None else f"{x:.3g}"


def _verification(v: Verification, w: dict[str, str]) -> list[str]:
    checker = w.get("ok!", v.checker) if v.checker == "ok" else v.checker
    sep = w["sep"]
    out = [f"{w['verified'] if v.passed else w['not_verified']}{sep}{w['checker']} {checker}{w['semi']}{w['session']} {w.get(v.session, v.session)}"
           + (" [" + ", ".join(f"{k}={'x'.join(map(str, s))}" for k, s in v.shapes.items()) + "]" if v.shapes else "")]
    if v.reference:
        tol = v.tolerance if v.atol is None else f"{v.tolerance}, atol {_num(v.atol)}, rtol {_num(v.rtol)}"
        out.append(f"{w['ref']} {v.reference}{w['comma']}{w['tol']} {tol}" + (f" ({w['not_gated']})" if v.tolerance == "report" else ""))
    elif v.session == "ran":
        out.append(w["noref"])
    for o in v.outputs:
        mark = w["ok"] if o.ok else w["over"]
        out.append(f"{w['out']} {o.name}{sep}{w['abs']} {_num(o.max_abs)}{w['comma']}{w['rel']} {_num(o.rel)}  {mark}" + (f" ({o.note})" if o.note else ""))
    return out


def remedy_lines(r: RemedyRecord, lang: str) -> tuple[str, list[str]]:
    """The remedy's heading and its detail lines (unindented)."""
    w = WORDS[lang]
    title = r.title_zh if lang == "zh" and r.title_zh else r.title
    entries = f"{w['open']}{w['for']} {', '.join(r.entries)}{w['close']}" if r.entries else ""
    head = f"{r.name} [{w.get(r.grade, r.grade)}] {w.get(r.status, r.status)}{entries}"
    lines = [title] if title else []
    if lang == "zh":  # the status and verification lines say it in Chinese; a remedy's own reason stays as written
        if r.status in ("failed", "error") and r.verification is None:
            lines.append(f"原因：{r.message}")
    elif r.message != "applied and verified":
        lines.append(r.message)
    if r.changes:
        lines.append(f"{w['changed']}{w['sep'].rstrip()}")
        lines += [f"  {w.get(c.kind, c.kind)} {c.name}" + (f"{w['sep']}{c.detail}" if c.detail else "") for c in r.changes[:8]]
        if len(r.changes) > 8:
            lines.append(f"  ... {w['more']} {len(r.changes) - 8}")
    if r.verification is not None:
        lines += _verification(r.verification, w)
    return head, lines


def footer(fx: FixOutcome, lang: str) -> str:
    w = WORDS[lang]
    if fx.output:
        return f"{w['written']}{w['sep']}{fx.output}"
    return w["nothing"] if fx.remedies else w["none"]
