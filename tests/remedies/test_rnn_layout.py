"""rnn-layout (OT0216): a batch-first (layout=1) LSTM with a real torch LSTM's weights, and a GRU."""
from __future__ import annotations

import numpy as np
import onnx
import onnxruntime as ort
import pytest
from onnx import TensorProto as TP
from onnx import helper, numpy_helper

from tests.remedies.builders import digest, lstm_layout1, model, run, save, vi
from tests.remedies.conftest import record


def test_batch_first_lstm_matches_torch(tmp_path, fixit):
    torch = pytest.importorskip("torch")
    src, lstm, x = lstm_layout1(tmp_path / "lstm.onnx", tmp_path)
    before = digest(src)
    with pytest.raises(Exception, match="layout"):
        run(src, {"X": x.numpy()})
    rep = fixit(src, "rnn-layout")
    r = record(rep, "rnn-layout")
    assert r.status == "applied" and r.grade == "safe", r.message
    assert sum(c.kind == "node-added" for c in r.changes) == 4  # X before; Y, Y_h, Y_c after
    v = r.verification
    assert v.reference == "onnx.reference" and v.tolerance == "float32"  # exact asked, another engine
    assert all(o.ok and o.max_abs < 1e-5 for o in v.outputs)
    y, y_h, y_c = run(rep.fixes.output, {"X": x.numpy()})
    with torch.no_grad():
        want, (h, c) = lstm(x)
    np.testing.assert_allclose(y[:, :, 0, :], want.numpy(), atol=1e-6)
    np.testing.assert_allclose(y_h[:, 0, :], h[0].numpy(), atol=1e-6)
    np.testing.assert_allclose(y_c[:, 0, :], c[0].numpy(), atol=1e-6)
    assert digest(src) == before


def test_gru_with_initial_state(tmp_path, fixit):
    rng = np.random.default_rng(0)
    w = numpy_helper.from_array(rng.standard_normal((1, 9, 2)).astype(np.float32), "W")
    r_ = numpy_helper.from_array(rng.standard_normal((1, 9, 3)).astype(np.float32), "R")
    node = helper.make_node("GRU", ["X", "W", "R", "", "", "h0"], ["Y", "Y_h"], hidden_size=3, layout=1)
    m = model([node], [vi("X", TP.FLOAT, [2, 5, 2]), vi("h0", TP.FLOAT, [2, 1, 3])],
              [vi("Y", TP.FLOAT, [2, 5, 1, 3]), vi("Y_h", TP.FLOAT, [2, 1, 3])], [w, r_])
    src = save(m, tmp_path / "gru.onnx")
    rep = fixit(src, "rnn-layout")
    r = record(rep, "rnn-layout")
    assert r.status == "applied", r.message
    assert all(o.ok for o in r.verification.outputs)
    fixed = onnx.load(rep.fixes.output)
    assert [a.i for n in fixed.graph.node if n.op_type == "GRU" for a in n.attribute if a.name == "layout"] == [0]
    ort.InferenceSession(rep.fixes.output, providers=["CPUExecutionProvider"])


def test_layout0_needs_nothing(tmp_path, fixit):
    node = helper.make_node("Relu", ["x"], ["y"])
    src = save(model([node], [vi("x", TP.FLOAT, [2])], [vi("y", TP.FLOAT, [2])]), tmp_path / "m.onnx")
    assert record(fixit(src, "rnn-layout"), "rnn-layout").status == "not-needed"
