from __future__ import annotations

import numpy as np
from onnx import TensorProto, helper, numpy_helper

from tests.fixtures.build_broken_models import F, model, save, vi
from tests.probes.conftest import codes, run


def test_mixed_dtypes_on_one_node(case):
    report = run(case("mixed-dtypes"))
    f = next(f for f in report.findings if f.code == "dtype.mixed-on-node")
    assert f.node == "/self_attn/q_proj/Add" and f.details["dtypes"] == ["float16", "int32"]


def test_bfloat16_census(case):
    report = run(case("bfloat16-census"))
    census = next(f for f in report.findings if f.code == "dtype.census")
    assert census.details["values"] == {"bfloat16": 2}
    assert "dtype.bfloat16" in {f.code for f in report.findings}


def test_quantized_dynamic_model(tmp_path):
    w = numpy_helper.from_array(np.ones((4, 4), dtype=np.int8), "w")
    nodes = [helper.make_node("DynamicQuantizeLinear", ["x"], ["xq", "s", "z"], name="dq"),
             helper.make_node("MatMulInteger", ["xq", "w", "z"], ["y"], name="mmi")]
    m = model(nodes, [vi("x", F, [4, 4])], [vi("y", TensorProto.INT32, [4, 4])], [w])
    found = codes(save(m, tmp_path / "q.onnx"))
    assert {"dtype.quantized", "quant.dynamic-integer-ops"} <= found


def test_float32_model_is_only_counted(good_model):
    found = codes(good_model)
    assert "dtype.census" in found
    assert not found & {"dtype.bfloat16", "dtype.float16", "dtype.quantized", "dtype.mixed-on-node"}
