"""external-data (OT0108, OT0159): re-point a missing file, move big weights out, refuse escapes."""
from __future__ import annotations

import numpy as np
import onnx
import pytest
from onnx import TensorProto as TP
from onnx import helper, numpy_helper

from diagnoser.errors import UserInputError
from tests.remedies.builders import digest, model, run, save, vi
from tests.remedies.conftest import record

W = np.random.default_rng(0).standard_normal((64, 64)).astype(np.float32)


def _matmul() -> onnx.ModelProto:
    node = helper.make_node("MatMul", ["x", "w"], ["y"])
    return model([node], [vi("x", TP.FLOAT, [1, 64])], [vi("y", TP.FLOAT, [1, 64])], [numpy_helper.from_array(W, "w")])


def _external(tmp_path, location: str) -> tuple:
    src = tmp_path / "m.onnx"
    onnx.save(_matmul(), str(src), save_as_external_data=True, location="weights.bin", size_threshold=0)
    m = onnx.load(str(src), load_external_data=False)
    for t in m.graph.initializer:
        for e in t.external_data:
            if e.key == "location":
                e.value = location
    onnx.save(m, str(src))
    return src, m


def test_missing_location_repointed_to_the_file_beside(tmp_path, fixit):
    src, _ = _external(tmp_path, "export_dir/weights.bin")  # the file sits beside the model instead
    before = digest(src)
    with pytest.raises(Exception):
        run(src, {"x": np.ones((1, 64), np.float32)})
    assert record(fixit(src, "external-data"), "external-data").status == "needs-unsafe"
    rep = fixit(src, "external-data", unsafe=True)
    r = record(rep, "external-data")
    assert r.status == "applied" and r.grade == "review", r.message
    assert r.changes[0].detail.startswith("location 'export_dir/weights.bin' (missing) -> 'weights.bin'")
    x = np.random.default_rng(1).random((1, 64), dtype=np.float32)
    np.testing.assert_allclose(run(rep.fixes.output, {"x": x})[0], x @ W, rtol=1e-5)
    assert digest(src) == before


def test_escaping_location_refused(tmp_path, fixit):
    inner = tmp_path / "inner"
    inner.mkdir()
    (tmp_path / "weights.bin").write_bytes(W.tobytes())
    src, _ = _external(inner, "../weights.bin")
    with pytest.raises(UserInputError, match="outside the model's folder"):
        fixit(src, "external-data", unsafe=True)
    assert sorted(p.name for p in inner.iterdir()) == ["m.onnx", "weights.bin"]


def test_oversized_model_moved_to_external_data(tmp_path, fixit, monkeypatch):
    from diagnoser.remedies import external_data

    monkeypatch.setattr(external_data, "INLINE_LIMIT", 4096)  # the real limit is 0.9 x 2 GiB
    src = save(_matmul(), tmp_path / "m.onnx")
    rep = fixit(src, "external-data")
    r = record(rep, "external-data")
    assert r.status == "applied" and r.grade == "safe", r.message
    assert r.verification.outputs[0].max_abs == 0.0 and r.verification.reference == "onnxruntime"
    data = tmp_path / "m.fixed.onnx.data"
    assert data.stat().st_size == W.nbytes and (tmp_path / "m.fixed.onnx").stat().st_size < 1000
    x = np.ones((1, 64), np.float32)
    np.testing.assert_allclose(run(rep.fixes.output, {"x": x})[0], x @ W, rtol=1e-5)


def test_other_remedies_leave_external_weights_unread(tmp_path, fixit, monkeypatch):
    """A remedy that does not rewrite weights keeps the reference; the weights are never parsed
    in this process (numpy_helper.to_array is never called on them)."""
    nodes = [helper.make_node("MatMul", ["x", "w"], ["t"]), helper.make_node("Relu", ["t"], ["y"])]
    m = model(nodes, [vi("x", TP.FLOAT, [1, 64])], [vi("y", TP.FLOAT, [1, 64])], [numpy_helper.from_array(W, "w")],
              value_info=[vi("t", TP.FLOAT, [7, 7])])  # stale
    src = tmp_path / "m.onnx"
    onnx.save(m, str(src), save_as_external_data=True, location="weights.bin", size_threshold=0)
    from onnx import numpy_helper as nh

    def no_read(*a, **k):
        raise AssertionError("external weights read")
    monkeypatch.setattr(nh, "to_array", no_read)
    rep = fixit(src, "reinfer-shapes")
    assert record(rep, "reinfer-shapes").status == "applied"
    fixed = onnx.load(rep.fixes.output, load_external_data=False)
    assert [e.value for e in fixed.graph.initializer[0].external_data if e.key == "location"] == ["weights.bin"]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["m.fixed.onnx", "m.onnx", "weights.bin"]


def test_output_never_overwrites_the_weights(tmp_path, fixit):
    src, _ = _external(tmp_path, "weights.bin")
    before = (tmp_path / "weights.bin").read_bytes()
    with pytest.raises(UserInputError, match="external data"):
        fixit(src, "reinfer-shapes", output=tmp_path / "weights.bin")
    assert (tmp_path / "weights.bin").read_bytes() == before


def test_fixed_model_with_external_data_must_stay_beside(tmp_path, fixit):
    src, _ = _external(tmp_path, "weights.bin")
    other = tmp_path / "elsewhere"
    other.mkdir()
    with pytest.raises(UserInputError, match="same folder"):
        fixit(src, "reinfer-shapes", output=other / "x.onnx")
