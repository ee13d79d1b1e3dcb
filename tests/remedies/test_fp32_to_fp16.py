"""fp32-to-fp16 (OT0003): a real torch CNN converted to float16 with onnxconverter-common."""
from __future__ import annotations

import numpy as np
import onnx
import pytest
from onnx import TensorProto as TP

from tests.remedies.builders import digest, export, run, torch_cnn
from tests.remedies.conftest import record

pytest.importorskip("onnxconverter_common")


def test_real_cnn_to_fp16_within_tolerance(tmp_path, fixit):
    torch = pytest.importorskip("torch")
    net = torch_cnn()
    x = torch.randn(1, 3, 16, 16)
    src = export(net, (x,), tmp_path / "cnn.onnx", opset_version=17)
    before = digest(src)
    rep = fixit(src, "fp32-to-fp16")
    r = record(rep, "fp32-to-fp16")
    assert r.status == "applied" and r.grade == "numerics", r.message
    v = r.verification
    assert v.reference == "onnxruntime" and v.tolerance == "float16" and v.rtol == 0.01
    assert all(o.ok and 0 < o.max_abs and o.rel < 0.01 for o in v.outputs)  # float16 changed the numbers a little
    fixed = onnx.load(rep.fixes.output)
    assert fixed.graph.input[0].type.tensor_type.elem_type == TP.FLOAT  # keep_io_types
    assert any(t.data_type == TP.FLOAT16 for t in fixed.graph.initializer)
    (got,) = run(rep.fixes.output, {fixed.graph.input[0].name: x.numpy()})
    with torch.no_grad():
        want = net(x).numpy()
    assert np.abs(got - want).max() <= 1e-3 + 1e-2 * np.abs(want).max()
    assert digest(src) == before


def test_fp16_failing_the_accuracy_check_writes_nothing(tmp_path, fixit, monkeypatch):
    from diagnoser.remedies import verify

    torch = pytest.importorskip("torch")
    src = export(torch_cnn(), (torch.randn(1, 3, 16, 16),), tmp_path / "cnn.onnx", opset_version=17)
    monkeypatch.setitem(verify.TOLERANCES, "float16", (0.0, 1e-9))  # demand more than float16 can give
    rep = fixit(src, "fp32-to-fp16")
    r = record(rep, "fp32-to-fp16")
    assert r.status == "failed" and "beyond the float16 tolerance" in r.message
    assert rep.fixes.output is None and sorted(p.name for p in tmp_path.iterdir()) == ["cnn.onnx"]
