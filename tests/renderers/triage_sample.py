"""A fixed report with a triage and no diagnosis: the triage renderers' golden input."""
from __future__ import annotations

from diagnoser.report import Closest, Report, Triage


def triage_report() -> Report:
    t = Triage(
        component="onnxruntime-web", stage="load",
        error="Failed to find kernel for Cast(13) (node:'/transformer/Cast_2_output_cast0' ep:'WebGpuExecutionProvider').",
        facts={"provider": "WebGpuExecutionProvider", "source_file": "transformer_memcpy.cc:467", "op": "Cast",
               "node": "/transformer/Cast_2_output_cast0", "op_version": "13"},
        closest=(Closest("OT0203", "Failed to find kernel: a minimal or reduced-operator onnxruntime build lacks an operator",
                         "Failed to find kernel：精简版 onnxruntime 构建缺少模型用到的算子", 0.31,
                         "'No matching hash' only comes from ORT-format / minimal builds"),),
        next_steps=("Create the session with executionProviders: ['wasm']: if it works, Cast(13) fails only in the WebGPU/WebGL backend.",),
        next_steps_zh=("用 executionProviders: ['wasm'] 创建会话：若能运行，说明 Cast(13) 只在 WebGPU/WebGL 后端失败。",),
        node={"node": "/transformer/Cast_2_output_cast0", "op": "Cast", "attributes": "to=7",
              "input0": "x: int64 [1,?] (graph input)"},
    )
    return Report(diagnoses=(), candidates=(), findings=(), facts={"op": "Cast"},
                  notes=("no known problem matches this text with confidence",),
                  input={"text_chars": 300, "text_truncated": False, "text_binary": False, "model": None, "providers": [], "entries": 2},
                  triage=t)
