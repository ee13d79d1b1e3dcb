"""The words around a report, in each language the renderers speak. Entry text (titles,
summaries, fixes) comes translated from the entries; these are the labels between them."""
from __future__ import annotations

LABELS: dict[str, dict[str, str]] = {
    "en": {
        "confidence": "confidence", "facts": "facts", "why": "why", "fix": "fix", "read": "read", "or": "or",
        "none": "No known problem matches this input with confidence.",
        "env_ok": "The environment looks healthy: no probe found a problem.",
        "failures": "The model fails, and no entry explains it yet:", "inputs": "inputs",
        "triage": "Triage (no entry explains this error):", "raised_by": "raised by", "stage": "stage",
        "node_in_model": "node in the model", "closest": "closest entries", "tell": "tells it apart", "next": "next",
        "less_likely": "Less likely:", "findings": "Findings (model and environment probes):", "note": "note",
        "report": "ONNX troubleshooting report", "none_md": "No known problem matches with confidence.",
        "evidence": "Evidence", "read_more": "Read more", "notes": "Notes", "input": "Input",
        "error_text": "Error text", "versions": "Versions", "model": "Model",
        "signature": "known message", "example": "similar example", "context": "context", "providers": "providers",
        "finding": "probe finding", "error": "error", "warning": "warning", "info": "info",
    },
    "zh": {
        "confidence": "置信度", "facts": "事实", "why": "依据", "fix": "修复", "read": "阅读", "or": "或",
        "none": "没有已知问题能可靠地匹配此输入。",
        "env_ok": "环境检查正常：探针没有发现问题。",
        "failures": "模型运行出错，目前没有条目能解释（以下为运行时与探针的原话）：", "inputs": "输入",
        "triage": "分诊（没有条目能解释这个错误）：", "raised_by": "出错组件", "stage": "阶段",
        "node_in_model": "模型中的该节点", "closest": "最接近的条目", "tell": "区别", "next": "下一步",
        "less_likely": "可能性较低：", "findings": "探针发现（模型与环境）：", "note": "说明",
        "report": "ONNX 问题排查报告", "none_md": "没有已知问题能可靠地匹配。",
        "evidence": "依据", "read_more": "延伸阅读", "notes": "说明", "input": "输入",
        "error_text": "错误文本", "versions": "版本", "model": "模型",
        "signature": "已知报错", "example": "相似示例", "context": "上下文", "providers": "执行提供器",
        "finding": "探针发现", "error": "错误", "warning": "警告", "info": "信息",
    },
}


def labels(lang: str) -> dict[str, str]:
    return LABELS.get(lang, LABELS["en"])
