from __future__ import annotations

from diagnoser.datafiles import table
from tests.probes.conftest import codes, run


def test_every_table_names_its_source_and_version():
    for name, spec in table("providers").items():
        assert spec["source"].startswith("https://") and spec["version"], name
        assert bool(spec.get("ops_supported")) != bool(spec.get("ops_unsupported")), name


def test_dynamic_shapes_on_tensorrt(case):
    assert "provider.dynamic-shape" in codes(case("dynamic-on-tensorrt"), providers=["TensorrtExecutionProvider"])


def test_int64_overflow_on_tensorrt_is_an_error(case):
    f = next(f for f in run(case("int64-overflow-tensorrt"), providers=["TensorrtExecutionProvider"]).findings if f.code == "provider.int64-weights")
    assert f.severity == "error" and f.details["overflow"] == ["big"]


def test_unsupported_op_and_dtype(case):
    assert "provider.unsupported-op" in codes(case("einsum-on-coreml"), providers=["CoreMLExecutionProvider"])
    assert "provider.unsupported-dtype" in codes(case("double-on-dml"), providers=["DmlExecutionProvider"])


def test_supported_model_on_each_provider_is_quiet(good_model):
    for prov in ("DmlExecutionProvider", "TensorrtExecutionProvider", "CoreMLExecutionProvider", "OpenVINOExecutionProvider", "QNNExecutionProvider", "NnapiExecutionProvider"):
        found = codes(good_model, providers=[prov])
        assert not [c for c in found if c.startswith("provider.") and c != "provider.int64-weights"], prov


def test_not_applied_without_providers(case):
    assert not [c for c in codes(case("dynamic-on-tensorrt")) if c.startswith("provider.")]
