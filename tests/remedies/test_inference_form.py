"""inference-form (OT0425): a real torch CNN exported in training mode."""
from __future__ import annotations

import numpy as np
import onnx
import pytest

from tests.remedies.builders import digest, export, run, torch_cnn
from tests.remedies.conftest import record


@pytest.fixture
def train_export(tmp_path):
    torch = pytest.importorskip("torch")
    net = torch_cnn(train=True)
    x = torch.randn(2, 3, 16, 16)
    src = export(net, (x,), tmp_path / "cnn_train.onnx", opset_version=17,
                 training=torch.onnx.TrainingMode.TRAINING, do_constant_folding=False)
    return src, net, x


def test_needs_unsafe_fixes(train_export, fixit):
    src, _, _ = train_export
    rep = fixit(src, "inference-form")
    r = record(rep, "inference-form")
    assert r.status == "needs-unsafe" and r.grade == "review"
    assert rep.fixes.output is None and not src.with_name("cnn_train.fixed.onnx").exists()


def test_fixed_model_computes_the_eval_mode_forward(train_export, fixit):
    torch = pytest.importorskip("torch")
    src, net, x = train_export
    before = digest(src)
    rep = fixit(src, "inference-form", unsafe=True, shapes={"input.1": [2, 3, 16, 16]})
    r = record(rep, "inference-form")
    assert r.status == "applied", r.message
    assert {c.detail.split(":")[0] for c in r.changes} == {"BatchNormalization", "Dropout"}
    v = r.verification
    assert v.passed and v.tolerance == "report" and v.outputs  # shown, not gated
    assert v.outputs[0].max_abs > 1e-3  # training-mode BatchNorm computed something else
    fixed = onnx.load(rep.fixes.output)
    assert all(len(n.output) == 1 for n in fixed.graph.node if n.op_type in ("BatchNormalization", "Dropout"))
    (got,) = run(rep.fixes.output, {fixed.graph.input[0].name: x.numpy()})
    with torch.no_grad():
        want = net.eval()(x).numpy()
    np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-5)
    assert digest(src) == before
