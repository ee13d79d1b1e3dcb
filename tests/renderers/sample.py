"""A fixed, hand-built report: renderer tests must not move when the database grows."""
from __future__ import annotations

from diagnoser.report import Diagnosis, Evidence, Finding, Report


def sample_report() -> Report:
    d1 = Diagnosis(
        id="OT0001", title="NOT_IMPLEMENTED: no kernel for the node's input types", title_zh="没有可用的算子实现",
        category="ort.not-implemented", confidence=0.97,
        summary="onnxruntime found the operator but no kernel for the dtypes that reach it.",
        summary_zh="onnxruntime 找到了算子，但没有对应数据类型的实现。",
        evidence=(
            Evidence("signature", "error text matches \"Could not find an implementation for Add(14) node with name '/a/Add'\"", 0.75, "text",
                     detail_zh="错误文本含有 \"Could not find an implementation for Add(14) node with name '/a/Add'\""),
            Evidence("finding", "node.no-kernel-bfloat16: onnxruntime 1.31.1 registers no CPU kernel for Add(14) with T=bfloat16", 1.0, "probe",
                     detail_zh="node.no-kernel-bfloat16：该节点的 bfloat16 输入没有 CPU 实现"),
        ),
        facts={"op": "Add", "opset": "14", "node": "/a/Add"},
        fix="Export BF16 models as FP32.", fix_zh="以 FP32 导出 BF16 模型。",
        fixes=("Export BF16 models as FP32.", "Insert an explicit Cast."), fixes_zh=("以 FP32 导出 BF16 模型。", "插入显式 Cast。"),
        distinguish="the dtypes of the node's inputs", doc="https://docs.example/entries/OT0001/", doc_zh="https://docs.example/zh/entries/OT0001/", explain="kb show OT0001",
    )
    d2 = Diagnosis(
        id="OT0002", title="Type Error: one node is fed two dtypes", title_zh="同一节点接收了两种数据类型",
        category="ort.type-mismatch-mixed", confidence=0.12, summary="Inputs bound to T differ.", summary_zh="T 的输入类型不同。",
        evidence=(Evidence("finding", "node.no-kernel-bfloat16: refutes", -1.0, "probe"),), facts={},
        fix="Cast to one dtype.", fix_zh="统一类型。", fixes=("Cast to one dtype.",), fixes_zh=("统一类型。",),
        distinguish=None, doc="https://docs.example/entries/OT0002/", doc_zh="https://docs.example/zh/entries/OT0002/", explain="kb show OT0002",
    )
    finding = Finding("node.no-kernel-bfloat16", "error", "onnxruntime 1.31.1 registers no CPU kernel for Add(14) with T=bfloat16", "node_types", node="/a/Add", details={"op": "Add"})
    return Report(
        diagnoses=(d1,), candidates=(d2,), findings=(finding,), facts={"op": "Add", "node": "/a/Add"},
        notes=("OT0001 and OT0002 explain the same error line.",),
        notes_zh=("OT0001 与 OT0002 解释的是同一行错误。",),
        input={"text_chars": 90, "text_truncated": False, "text_binary": False, "model": "m.onnx", "providers": [], "entries": 2},
    )
