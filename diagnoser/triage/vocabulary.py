"""The triage's words for who raised an error and when: one list read by the classifier, the
tool registry's row check and the report's contract."""
from __future__ import annotations

COMPONENTS = ("onnxruntime", "torch.onnx", "onnx", "converter", "quantization", "optimizer", "onnxruntime-web", "install")
STAGES = ("export", "convert", "quantize", "load", "run", "install")
