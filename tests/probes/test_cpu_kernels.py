from __future__ import annotations

import onnx
import pytest
from onnx import helper

from diagnoser.model import kernels
from tests.fixtures.build_broken_models import F16, model, save, vi
from tests.models import ort_error
from tests.probes.conftest import codes, run


def test_bfloat16_sin_has_no_cpu_kernel(case):
    report = run(case("bfloat16-no-kernel"))
    f = next(f for f in report.findings if f.code == "kernel.cpu-missing")
    assert f.details["bfloat16"] and f.node == "sin"


def test_float16_runs_through_inserted_casts(case):
    found = codes(case("float16-via-cast"))
    assert "kernel.cpu-via-cast" in found and "kernel.cpu-missing" not in found


def test_float16_op_with_its_own_kernel_is_plain(tmp_path):
    m = model([helper.make_node("Identity", ["x"], ["y"], name="id")], [vi("x", F16, [2])], [vi("y", F16, [2])])
    assert not codes(save(m, tmp_path / "m.onnx")) & {"kernel.cpu-missing", "kernel.cpu-via-cast"}


def test_verdicts_follow_the_runtime():
    assert kernels.cpu_verdict("", "Relu", 14, {"T": ("float",)}) == "ok"
    assert kernels.cpu_verdict("", "Sin", 7, {"T": ("bfloat16",)}) == "missing-types"
    assert kernels.cpu_verdict("", "NoSuchOp", 1, {}) == "missing-op"
    assert kernels.cpu_verdict("", "Relu", 14, {"T": (None,)}) == "ok"  # unknown dtype: not judged


def test_valid_model_needs_no_missing_kernel(good_model):
    assert "kernel.cpu-missing" not in codes(good_model)


@pytest.mark.parametrize("name", ["test_attention_3d_causal_bf16", "test_castlike_FLOAT_to_FLOAT4E2M1",
                                  "test_attention_3d_causal", "test_castlike_FLOAT_to_FLOAT16"])
def test_ops_expanded_from_function_bodies_are_judged_with_the_body_dtypes(name, tmp_path):
    """onnx's own node tests: the prediction must agree with a real session, and name the body
    node the runtime names (a bfloat16 Attention fails on its body's Expand, not on Attention)."""
    import re
    import warnings

    from onnx.backend.test.case.node import collect_testcases

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        found = [c for c in collect_testcases(None) if c.name == name]
    if not found:
        pytest.skip(f"onnx {onnx.__version__} has no node test {name}")
    path = save(found[0].model, tmp_path / "m.onnx")
    error = ort_error(path)
    if "IR version" in error or "opset" in error:
        pytest.skip(f"onnxruntime does not read this model's IR/opset: {error[:120]}")
    report = run(path)
    missing = next((f for f in report.findings if f.code == "kernel.cpu-missing"), None)
    assert (missing is not None) == ("NOT_IMPLEMENTED" in error), (error, missing)
    if missing is not None:
        op = re.search(r"implementation for (\w+\(\d+\))", error).group(1)
        assert op in missing.message and "function body" in missing.message


def _recurrent(op: str, layout: int) -> onnx.ModelProto:
    import numpy as np
    from onnx import numpy_helper

    gates = {"LSTM": 4, "GRU": 3, "RNN": 1}[op]
    w = numpy_helper.from_array(np.ones((1, gates * 8, 4), dtype=np.float32), "W")
    r = numpy_helper.from_array(np.ones((1, gates * 8, 8), dtype=np.float32), "R")
    x_shape = ["batch", 5, 4] if layout else [5, "batch", 4]
    node = helper.make_node(op, ["X", "W", "R"], ["Y"], name=f"{op.lower()}0", hidden_size=8, layout=layout)
    return model([node], [vi("X", onnx.TensorProto.FLOAT, x_shape)], [vi("Y", onnx.TensorProto.FLOAT, None)], [w, r], opset=14)


@pytest.mark.parametrize("op", ["LSTM", "GRU", "RNN"])
def test_batch_first_recurrent_nodes_are_refused_like_the_runtime_does(op, tmp_path):
    path = save(_recurrent(op, layout=1), tmp_path / "m.onnx")
    f = next(f for f in run(path).findings if f.code == "kernel.cpu-rnn-batchwise")
    assert f.node == f"{op.lower()}0" and f.details["ops"] == [op]
    assert "layout == 1" in ort_error(path)  # the registry alone would have said this loads


@pytest.mark.parametrize("op", ["LSTM", "GRU"])
def test_sequence_first_recurrent_nodes_load(op, tmp_path):
    path = save(_recurrent(op, layout=0), tmp_path / "m.onnx")
    assert "kernel.cpu-rnn-batchwise" not in codes(path)
    assert ort_error(path) == ""


def _unary(op: str, dtype: int, opset: int) -> onnx.ModelProto:
    node = helper.make_node(op, ["x"], ["y"], name=op.lower())
    return model([node], [vi("x", dtype, [1, 4])], [vi("y", dtype, [1, 4])], opset=opset)


@pytest.mark.parametrize("op, dtype, opset", [("HardSwish", onnx.TensorProto.FLOAT, 17), ("HardSwish", onnx.TensorProto.FLOAT, 22),
                                              ("Relu", onnx.TensorProto.BFLOAT16, 18), ("Relu", onnx.TensorProto.BFLOAT16, 14),
                                              ("HardSwish", onnx.TensorProto.BFLOAT16, 22)])
def test_function_bodies_onnx_hands_back_as_bytes_are_judged(op, dtype, opset, tmp_path):
    """onnx 1.23's get_function_with_opset_version returns serialized bytes: the probe must parse
    them, not crash, and agree with a real session about the node."""
    path = save(_unary(op, dtype, opset), tmp_path / "m.onnx")
    report = run(path)
    assert "probe.failed" not in {f.code for f in report.findings}, [f.message for f in report.findings]
    error = ort_error(path)
    if "IR version" in error or "opset" in error:
        pytest.skip(f"onnxruntime does not read this model's IR/opset: {error[:120]}")
    missing = "kernel.cpu-missing" in {f.code for f in report.findings}
    assert missing == ("NOT_IMPLEMENTED" in error), error


def test_bf16_model_gets_its_diagnosis_with_static_probes(tmp_path):
    path = save(_unary("Relu", onnx.TensorProto.BFLOAT16, 18), tmp_path / "m.onnx")
    report = run(path)
    assert "NOT_IMPLEMENTED" in ort_error(path)
    assert report.diagnoses and all("no known problem" not in n for n in report.notes)
