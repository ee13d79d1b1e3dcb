"""bf16-to-fp32 (OT0001, OT0352): a built bfloat16 graph and a real bfloat16 torch CNN."""
from __future__ import annotations

import ml_dtypes
import numpy as np
import onnx
import onnxruntime as ort
import pytest
from onnx import TensorProto as TP
from onnx import helper, numpy_helper

from tests.remedies.builders import digest, export, model, run, save, torch_cnn, vi
from tests.remedies.conftest import record


def _bf16_matmul(tmp_path, io_type=TP.FLOAT):
    rng = np.random.default_rng(1)
    w = numpy_helper.from_array(rng.standard_normal((8, 4)).astype(ml_dtypes.bfloat16), "w")
    nodes = [helper.make_node("Cast", ["x"], ["xb"], to=TP.BFLOAT16), helper.make_node("MatMul", ["xb", "w"], ["yb"]),
             helper.make_node("Cast", ["yb"], ["y"], to=TP.FLOAT)] if io_type == TP.FLOAT else [helper.make_node("MatMul", ["x", "w"], ["y"])]
    return save(model(nodes, [vi("x", io_type, [2, 8])], [vi("y", io_type, [2, 4])], [w], opset=17), tmp_path / "m.onnx")


def test_built_model_runs_within_bf16_tolerance(tmp_path, fixit):
    src = _bf16_matmul(tmp_path)
    rep = fixit(src, "bf16-to-fp32")
    r = record(rep, "bf16-to-fp32")
    assert r.status == "applied", r.message
    v = r.verification
    assert v.reference == "onnx.reference" and v.tolerance == "bfloat16"
    assert v.outputs[0].max_abs < 0.1 and v.outputs[0].rel < 0.04
    fixed = onnx.load(rep.fixes.output)
    assert not any(t.data_type == TP.BFLOAT16 for t in fixed.graph.initializer)
    x = np.random.default_rng(2).random((2, 8), dtype=np.float32)
    w = numpy_helper.to_array(onnx.load(str(src)).graph.initializer[0]).astype(np.float32)
    np.testing.assert_allclose(run(rep.fixes.output, {"x": x})[0], x @ w, rtol=1e-5, atol=1e-5)  # float32 arithmetic now


def test_bf16_io_kept_behind_boundary_casts(tmp_path, fixit):
    src = _bf16_matmul(tmp_path, io_type=TP.BFLOAT16)
    rep = fixit(src, "bf16-to-fp32")
    r = record(rep, "bf16-to-fp32")
    assert r.status == "applied", r.message
    fixed = onnx.load(rep.fixes.output)
    assert fixed.graph.input[0].type.tensor_type.elem_type == TP.BFLOAT16
    assert fixed.graph.output[0].type.tensor_type.elem_type == TP.BFLOAT16
    assert {n.op_type for n in fixed.graph.node} == {"Cast", "MatMul"}
    assert r.verification.outputs[0].rel < 0.04


def test_io_types_converted_when_asked(tmp_path, fixit):
    src = _bf16_matmul(tmp_path, io_type=TP.BFLOAT16)
    rep = fixit(src, "bf16-to-fp32", keep_io_types=False)
    fixed = onnx.load(rep.fixes.output)
    assert fixed.graph.input[0].type.tensor_type.elem_type == TP.FLOAT
    assert [n.op_type for n in fixed.graph.node] == ["MatMul"]


def test_real_bf16_torch_cnn(tmp_path, fixit):
    torch = pytest.importorskip("torch")
    net = torch_cnn().to(torch.bfloat16)
    x = torch.randn(1, 3, 16, 16).to(torch.bfloat16)
    src = export(net, (x,), tmp_path / "cnn_bf16.onnx", opset_version=17)
    before = digest(src)
    with pytest.raises(Exception, match="bfloat16"):
        ort.InferenceSession(str(src), providers=["CPUExecutionProvider"])
    rep = fixit(src, "bf16-to-fp32", keep_io_types=False)
    r = record(rep, "bf16-to-fp32")
    assert r.status == "applied", r.message
    assert r.verification.reference == "onnx.reference"
    assert all(o.ok and o.rel < 0.04 for o in r.verification.outputs)
    assert digest(src) == before
    # the repaired model against torch's own bfloat16 forward, on the same input
    fixed = onnx.load(rep.fixes.output)
    with torch.no_grad():
        want = net(x).float().numpy()
    (got,) = run(rep.fixes.output, {fixed.graph.input[0].name: x.float().numpy()})
    scale = np.abs(want).max()
    assert scale > 0.01 and np.abs(got - want).max() <= 0.04 * scale
