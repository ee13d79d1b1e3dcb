from __future__ import annotations

import numpy as np
import onnx
import pytest
from onnx import helper, numpy_helper

from diagnoser.model import modelfile, weights
from tests.fixtures.build_broken_models import F, good, model, save, vi
from tests.probes.conftest import run


def _with_metadata() -> onnx.ModelProto:
    m = good()
    m.producer_name, m.doc_string = "test", "doc"
    helper.set_model_props(m, {"k": "v"})
    m.graph.value_info.append(vi("r", F, [1, 4, 8, 8]))
    return m


def test_the_light_copy_differs_only_in_its_big_weights():
    m = _with_metadata()
    light, left_out = weights.light_copy(m, limit=256)  # w (432 bytes) goes, fc and shape stay
    assert [t.name for t in left_out] == ["w"]
    stand_in = next(t for t in light.graph.initializer if t.name == "w")
    assert stand_in.data_location == onnx.TensorProto.EXTERNAL and not stand_in.raw_data
    assert list(stand_in.dims) == [4, 3, 3, 3] and stand_in.data_type == F
    assert stand_in.external_data[0].value == weights.LEFT_OUT
    for t in light.graph.initializer:
        if t.name != "w":
            assert t == next(o for o in m.graph.initializer if o.name == t.name)
    del light.graph.initializer[:]
    full = onnx.ModelProto()
    full.CopyFrom(m)
    del full.graph.initializer[:]
    assert light == full  # every other field, metadata and value_info included


def test_inference_on_the_light_copy_matches_the_full_model():
    m = good()
    light, _ = weights.light_copy(m, limit=0)  # every initializer left out, the Reshape shape too
    light_small, _ = weights.light_copy(m, limit=64)  # the 16-byte shape stays, as with the real limit
    full = onnx.shape_inference.infer_shapes(m, check_type=True, strict_mode=True)
    small = onnx.shape_inference.infer_shapes(light_small, check_type=True, strict_mode=True)
    assert list(small.graph.value_info) == list(full.graph.value_info)
    assert list(small.graph.output) == list(full.graph.output)
    # with the Reshape's shape input left out too, strict inference fails: why small tensors stay
    with pytest.raises(onnx.shape_inference.InferenceError, match="external"):
        onnx.shape_inference.infer_shapes(light, check_type=True, strict_mode=True)


def test_short_raw_data_is_found_in_left_out_weights():
    w = numpy_helper.from_array(np.ones((64, 64), dtype=np.float32), "w")
    assert weights.data_size_problems([w]) == []
    w.raw_data = w.raw_data[:100]
    (problem,) = weights.data_size_problems([w])
    assert "'w' holds 100 bytes" in problem and "16384" in problem


def _truncated_weight_model() -> onnx.ModelProto:
    w = numpy_helper.from_array(np.ones((64, 64), dtype=np.float32), "w")
    w.raw_data = w.raw_data[:1000]
    return model([helper.make_node("MatMul", ["x", "w"], ["y"], name="mm")], [vi("x", F, [1, 64])], [vi("y", F, [1, 64])], [w])


@pytest.mark.parametrize("light", [False, True], ids=["file bytes", "light copy"])
def test_probes_say_the_same_whichever_way_onnx_is_fed(light, tmp_path, monkeypatch):
    if light:
        monkeypatch.setattr(modelfile, "RAW_KEEP", 0)
        monkeypatch.setattr(weights, "LIGHT_LIMIT", 64)
    good_codes = {f.code for f in run(save(good(), tmp_path / "good.onnx")).findings}
    assert "checker.invalid" not in good_codes and "shape.inference-error" not in good_codes
    assert {"dtype.census"} <= good_codes
    bad = run(save(_truncated_weight_model(), tmp_path / "bad.onnx"))
    f = next(f for f in bad.findings if f.code == "checker.invalid")
    assert "w" in f.details["error_text"] and "16384" in f.details["error_text"]
    assert (modelfile.load(tmp_path / "good.onnx").raw is None) == light


def _all_external(tmp_path) -> onnx.ModelProto:
    """good() with every initializer saved as external data, the Reshape's shape included."""
    onnx.save_model(good(), tmp_path / "m.onnx", save_as_external_data=True, location="m.data", size_threshold=0)
    return onnx.load(tmp_path / "m.onnx", load_external_data=False)


def test_small_external_tensors_are_read_in_and_big_ones_are_not(tmp_path):
    m = _all_external(tmp_path)
    light, _ = weights.light_copy(m)
    # shape (int64, 16 B) and fc (8 floats) may feed inference; w (108 floats) is a weight
    assert weights.inline_small_external(light, tmp_path) == 2
    inline = {t.name: t for t in light.graph.initializer if t.data_location != onnx.TensorProto.EXTERNAL}
    assert set(inline) == {"shape", "fc"}
    assert list(numpy_helper.to_array(inline["shape"])) == [1, 4]
    assert all(t.data_location == onnx.TensorProto.EXTERNAL for t in m.graph.initializer)  # the original is untouched
    light, _ = weights.light_copy(m)
    assert weights.inline_small_external(light, tmp_path, limit=8) == 0  # over the size limit


def test_nothing_is_read_in_from_outside_the_folder_or_past_the_file(tmp_path):
    m = _all_external(tmp_path)
    for t in m.graph.initializer:
        for e in t.external_data:
            if e.key == "location" and t.name == "shape":
                e.value = "../m.data"
            if e.key == "offset" and t.name == "fc":
                e.value = str(10**9)
    light, _ = weights.light_copy(m)
    assert weights.inline_small_external(light, tmp_path) == 0
    assert all(t.data_location == onnx.TensorProto.EXTERNAL for t in light.graph.initializer)


def test_strict_inference_sees_through_external_shape_inputs(tmp_path):
    _all_external(tmp_path)
    report = run(tmp_path / "m.onnx")
    found = {f.code for f in report.findings}
    assert "shape.inference-error" not in found and "shape.missing" not in found
    assert "external-data.present" in found and "checker.invalid" not in found


def test_the_file_bytes_are_kept_only_while_the_file_is_mostly_graph(tmp_path):
    assert modelfile.load(save(good(), tmp_path / "good.onnx")).raw is not None
    w = numpy_helper.from_array(np.ones((256, 256), dtype=np.float32), "w")  # 256 KiB: left out of the light copy
    heavy = model([helper.make_node("MatMul", ["x", "w"], ["y"], name="mm")], [vi("x", F, ["n", 256])], [vi("y", F, ["n", 256])], [w])
    path = save(heavy, tmp_path / "heavy.onnx")
    assert weights.heavy_bytes(heavy) == 256 * 256 * 4
    assert modelfile.load(path).raw is None
    found = {f.code for f in run(path).findings}
    assert "dtype.census" in found and not found & {"checker.invalid", "shape.inference-error", "shape.missing"}
