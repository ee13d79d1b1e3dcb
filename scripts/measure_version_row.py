"""Print the versions.yaml row of the onnxruntime installed in this Python, measured the way the
table's rows were: the newest IR version and ai.onnx opset its own refusals name, then checked by
loading a model at exactly those stamps.

Usage (maintainers, in an environment with the release to measure):
    python scripts/measure_version_row.py
"""
from __future__ import annotations

import re
import sys

import onnxruntime as ort
from onnx import TensorProto, helper


def tiny(ir: int, opset: int) -> bytes:
    graph = helper.make_graph([helper.make_node("Identity", ["x"], ["y"])], "g",
                              [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1])],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1])])
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)], ir_version=ir).SerializeToString()


def refusal(ir: int, opset: int) -> str | None:
    try:
        ort.InferenceSession(tiny(ir, opset), providers=["CPUExecutionProvider"])
        return None
    except Exception as exc:  # the runtime's own words are the measurement
        return str(exc)


def main() -> int:
    ir_text, op_text = refusal(1000, 7) or "", refusal(7, 1000) or ""
    ir = re.search(r"max supported IR version: (\d+)", ir_text)
    op = re.search(r"is till opset (\d+)", op_text)
    if not (ir and op):
        print("the runtime did not name its limits:", ir_text[-200:], op_text[-200:], file=sys.stderr)
        return 1
    max_ir, max_op = int(ir.group(1)), int(op.group(1))
    if refusal(max_ir, max_op) is not None:
        print(f"onnxruntime {ort.__version__} refuses IR {max_ir} / opset {max_op} itself", file=sys.stderr)
        return 1
    minor = ".".join(ort.__version__.split(".")[:2])
    print(f"  '{minor}': {{ir: {max_ir}, opset: {max_op}}}   # measured: onnxruntime {ort.__version__} refuses IR {max_ir + 1} "
          f"('max supported IR version: {max_ir}') and opset {max_op + 1} ('till opset {max_op}')")
    return 0


if __name__ == "__main__":
    sys.exit(main())
