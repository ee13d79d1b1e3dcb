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


def test_real_fp16_cnn_left_alone(tmp_path, fixit):
    """A model exported in float16 needs no conversion; with no problem diagnosed, --fix writes nothing."""
    torch = pytest.importorskip("torch")
    net = torch_cnn().half()
    try:
        src = export(net, (torch.randn(1, 3, 16, 16).half(),), tmp_path / "cnn_fp16.onnx", opset_version=17)
    except Exception as exc:  # a torch build without float16 CPU kernels
        pytest.skip(f"torch cannot trace float16 on CPU here: {exc}")
    m = onnx.load(str(src))
    assert m.graph.input[0].type.tensor_type.elem_type == TP.FLOAT16
    assert record(fixit(src, "fp32-to-fp16"), "fp32-to-fp16").status == "not-needed"
    from diagnoser.api import fix

    rep = fix(model=src, probes="all")  # no text: only what the probes prove
    assert rep.fixes.remedies == () and rep.fixes.output is None
    x = np.random.default_rng(0).standard_normal((1, 3, 16, 16)).astype(np.float16)
    assert run(src, {m.graph.input[0].name: x})[0].dtype == np.float16  # it runs as it is
    assert sorted(p.name for p in tmp_path.iterdir()) == ["cnn_fp16.onnx"]
