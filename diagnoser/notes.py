"""The sentences a report says besides its entries, each written in English and Chinese where it
is made, so `--lang zh` is Chinese throughout without translating English after the fact.

A Note is one such sentence; api.py keeps `Report.notes` (English, the JSON contract since 1.0)
and `Report.notes_zh` side by side.
"""
from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache


@dataclass(frozen=True)
class Note:
    en: str
    zh: str


def no_match() -> Note:
    return Note("no known problem matches this text with confidence", "没有已知问题能可靠地匹配这段文本")


def nothing_predicted(what: str) -> Note:
    return Note(f"the probes predict no known problem for this {what}",
                f"探针没有发现这个{'模型' if what == 'model' else '环境'}的已知问题")


def same_line(top: str, names: str, tell: str, has_model: bool) -> Note:
    hint_en = "" if has_model else " Run again with --model to let the probes decide."
    hint_zh = "" if has_model else "加上 --model 再运行一次，让探针来判断。"
    return Note(f"{top} and {names} explain the same error line. What tells them apart: {tell}.{hint_en}",
                f"{top} 与 {names} 解释的是同一行错误；二者的区别见 kb show {top} --lang zh。{hint_zh}")


def moved(cid: str, was: float, now: float, why: str) -> Note:
    return Note(f"model evidence moved {cid} from {was:.0%} to {now:.0%}{why}",
                f"模型证据把 {cid} 的置信度从 {was:.0%} 调整为 {now:.0%}{why}")


def ruled_out(cid: str, was: float) -> Note:
    return Note(f"model evidence ruled out {cid} (was {was:.0%})", f"模型证据排除了 {cid}（原为 {was:.0%}）")


def synthesized(ids: str) -> Note:
    return Note(f"the session failed only when run on synthesized inputs: {ids} are candidates, not diagnoses",
                f"会话只在用合成输入运行时失败：{ids} 只列为候选，而不是诊断")


def incomplete(names: str) -> Note:
    return Note(f"the analysis is incomplete: probe(s) {names} failed (a bug in this tool; please report it), so what they check was not checked",
                f"分析不完整：探针 {names} 出错（这是本工具的缺陷，请报告），它们负责的检查没有完成")


_VERDICTS = {
    "tolerated": ("onnxruntime tolerates this complaint (it sorts the graph and infers missing shapes itself)",
                  "onnxruntime 能容忍这类问题（它会自行排序计算图并推断缺失的形状）"),
    "fails": ("onnxruntime fails for its own reason (see the session's finding)", "onnxruntime 因其他原因失败（见会话的探针发现）"),
    "runs": ("onnxruntime loads and runs the model anyway", "onnxruntime 仍能加载并运行该模型"),
}


def checker_only(ids: str, verdict: str) -> Note:
    en, zh = _VERDICTS[verdict]
    return Note(f"{ids}: only onnx.checker or shape inference complain, and {en}: a note, not the diagnosis",
                f"{ids}：只有 onnx.checker 或形状推断报错，而 {zh}；因此只作说明，不作诊断")


def target_not_here(missing: list[str], available: list[str], en: str) -> Note:
    return Note(en, f"本机无法运行 {', '.join(missing)}（本机的 onnxruntime 提供 {', '.join(available)}）："
                    "对它的预测来自其支持表，而不是实际会话")


@lru_cache(maxsize=1)
def _finding_titles() -> dict[str, str]:
    """code -> Chinese title, from entries/findings.yaml (read only when a probe has spoken)."""
    import yaml

    from kb.paths import entries_dir

    try:
        data = yaml.load((entries_dir() / "findings.yaml").read_text(encoding="utf-8"), Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader))
    except (OSError, yaml.YAMLError):
        return {}
    return {code: spec.get("title_zh", "") for code, spec in (data or {}).items() if isinstance(spec, dict)}


def finding_zh(code: str, message: str) -> str:
    """A probe finding in Chinese: its documented Chinese title (the details stay in the English
    message, which the JSON keeps)."""
    title = _finding_titles().get(code)
    return f"{code}：{title}" if title else f"{code}: {message}"
