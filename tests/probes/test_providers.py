"""The provider probe against the generated tables: each verdict from a source row, severity as
the provider behaves, targets (DirectML GPU/NPU, TensorRT 10/8) apart from this machine."""
from __future__ import annotations

import re

import pytest
from onnx import TensorProto, helper

from diagnoser.model import provider_tables as pt
from diagnoser.errors import UserInputError
from tests.models import save
from tests.probes.conftest import codes, run

_ALL = ("CUDAExecutionProvider", "DmlExecutionProvider", "DmlExecutionProvider:npu", "TensorrtExecutionProvider", "CoreMLExecutionProvider",
        "OpenVINOExecutionProvider", "OpenVINOExecutionProvider:gpu", "OpenVINOExecutionProvider:npu", "QNNExecutionProvider", "NnapiExecutionProvider")


def _model(nodes, inputs, outputs, inits=(), opset=17):
    graph = helper.make_graph(nodes, "g", inputs, outputs, list(inits))
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)], ir_version=10)


def _found(tmp_path, model, provider, code):
    path = save(model, tmp_path / "m.onnx")
    return [f for f in run(path, providers=[provider]).findings if f.code == code]


def test_every_table_and_row_cites_its_source_revision():
    tables = pt.data()["tables"]
    assert set(tables) >= {"cuda", "dml", "tensorrt-10", "tensorrt-8", "openvino-cpu", "openvino-gpu", "openvino-npu", "coreml-mlprogram", "nnapi", "qnn"}
    for name, tab in tables.items():
        sha = re.search(r"@([0-9a-f]{12})$", tab["revision"])
        assert sha and sha.group(1) in tab["source"] and tab["source"].startswith("https://"), name
        assert tab["rows"] and all(isinstance(r["line"], int) and r["line"] > 0 for r in tab["rows"].values()), name


def test_every_target_names_a_table_and_its_behaviour():
    data = pt.data()
    for prov, spec in data["providers"].items():
        assert spec["default"] in spec["targets"], prov
        for name, target in spec["targets"].items():
            assert target["table"] in data["tables"] and target["unsupported"] in ("fallback", "fail") and "http" in target["why"], (prov, name)


def test_dml_table_takes_contrib_ops_it_registers(tmp_path):
    """OperatorKernels.md registers MatMulNBits, QLinearAdd ... for DirectML: not flagged as unsupported."""
    node = helper.make_node("QLinearAdd", ["a", "as", "az", "b", "bs", "bz", "cs", "cz"], ["c"], domain="com.microsoft")
    u8, f = TensorProto.UINT8, TensorProto.FLOAT
    inits = [helper.make_tensor(n, t, [], [v]) for n, t, v in (("as", f, 0.1), ("az", u8, 0), ("bs", f, 0.1), ("bz", u8, 0), ("cs", f, 0.1), ("cz", u8, 0))]
    m = _model([node], [helper.make_tensor_value_info("a", u8, [4]), helper.make_tensor_value_info("b", u8, [4])], [helper.make_tensor_value_info("c", u8, [4])], inits)
    m.opset_import.append(helper.make_opsetid("com.microsoft", 1))
    assert not _found(tmp_path, m, "DmlExecutionProvider", "provider.unsupported-op")


def test_cuda_convinteger_falls_back_to_cpu_as_a_note(tmp_path):
    u8 = TensorProto.UINT8
    m = _model([helper.make_node("ConvInteger", ["x", "w"], ["y"])], [helper.make_tensor_value_info("x", u8, [1, 1, 4, 4])],
               [helper.make_tensor_value_info("y", TensorProto.INT32, [1, 1, 2, 2])], [helper.make_tensor("w", u8, [1, 1, 3, 3], [1] * 9)])
    (f,) = _found(tmp_path, m, "CUDAExecutionProvider", "provider.unsupported-op")
    assert f.severity == "info" and "ConvInteger" in f.details["rows"] and f.details["behaviour"] == "fallback"
    assert "CPU provider" in f.message and f.details["revision"] in f.message


def _hardswish(dtype=TensorProto.FLOAT, opset=17):
    return _model([helper.make_node("HardSwish", ["x"], ["y"])], [helper.make_tensor_value_info("x", dtype, [1, 4])],
                  [helper.make_tensor_value_info("y", dtype, [1, 4])], opset=opset)


def test_severity_follows_the_provider_behaviour(tmp_path):
    """HardSwish has no DirectML kernel: the GPU path falls back (a note), the NPU path fails (a warning)."""
    (gpu,) = _found(tmp_path, _hardswish(), "DmlExecutionProvider", "provider.unsupported-op")
    (npu,) = _found(tmp_path, _hardswish(), "DmlExecutionProvider:npu", "provider.unsupported-op")
    assert (gpu.severity, npu.severity) == ("info", "warning") and gpu.details["rows"]["HardSwish"]["line"] is None


def test_tensorrt_10_accepts_int64_layernorm_bf16_and_opset_20(tmp_path):
    bf = TensorProto.BFLOAT16
    ln = _model([helper.make_node("LayerNormalization", ["x", "s", "b"], ["y"], axis=-1)], [helper.make_tensor_value_info("x", bf, [2, 4])],
                [helper.make_tensor_value_info("y", bf, [2, 4])], [helper.make_tensor("s", bf, [4], [1.0] * 4), helper.make_tensor("b", bf, [4], [0.0] * 4)], opset=20)
    sl = _model([helper.make_node("Slice", ["x", "st", "en"], ["y"])], [helper.make_tensor_value_info("x", TensorProto.FLOAT, [8])],
                [helper.make_tensor_value_info("y", TensorProto.FLOAT, [7])],
                [helper.make_tensor("st", TensorProto.INT64, [1], [1]), helper.make_tensor("en", TensorProto.INT64, [1], [2**63 - 1])])
    for m in (ln, sl):
        found = codes(save(m, tmp_path / "m.onnx"), providers=["TensorrtExecutionProvider"])
        assert not {c for c in found if c.startswith("provider.")}, found
    # the same models against TensorRT 8.6 (named by the user): bf16 and the INT64 cast are flagged
    assert "provider.unsupported-dtype" in codes(save(ln, tmp_path / "ln.onnx"), providers=["TensorrtExecutionProvider:8"])
    f = _found(tmp_path, sl, "TensorrtExecutionProvider:8", "provider.int64-weights")
    assert f and f[0].severity == "error" and f[0].details["overflow"] == ["en"]


def test_tensorrt_8_is_chosen_from_the_error_text(tmp_path):
    path = save(_hardswish(TensorProto.BFLOAT16, 18), tmp_path / "m.onnx")
    text = "[TRT] [E] TensorRT version: 8.6.1 ... Assertion failed"
    assert pt.resolve("TensorrtExecutionProvider", None, text).name == "8"
    assert "provider.unsupported-dtype" in codes(path, providers=["TensorrtExecutionProvider"], text=text)
    assert "provider.unsupported-dtype" not in codes(path, providers=["TensorrtExecutionProvider"])


def test_openvino_takes_gather_elements(tmp_path):
    f, i64 = TensorProto.FLOAT, TensorProto.INT64
    m = _model([helper.make_node("GatherElements", ["x", "i"], ["y"], axis=0)], [helper.make_tensor_value_info("x", f, [2, 2])],
               [helper.make_tensor_value_info("y", f, [1, 2])], [helper.make_tensor("i", i64, [1, 2], [0, 1])])
    for prov in ("OpenVINOExecutionProvider", "OpenVINOExecutionProvider:gpu", "OpenVINOExecutionProvider:npu"):
        assert not _found(tmp_path, m, prov, "provider.unsupported-op"), prov


def test_dynamic_shapes_on_tensorrt_is_a_note(case):
    f = next(f for f in run(case("dynamic-on-tensorrt"), providers=["TensorrtExecutionProvider"]).findings if f.code == "provider.dynamic-shape")
    assert f.severity == "info" and "optimization profile" in f.message


def test_unsupported_op_and_dtype(case):
    assert "provider.unsupported-op" in codes(case("einsum-on-coreml"), providers=["CoreMLExecutionProvider"])
    assert "provider.unsupported-dtype" in codes(case("double-on-dml"), providers=["DmlExecutionProvider"])


def test_supported_model_on_each_target_is_quiet(good_model):
    for prov in _ALL:
        found = codes(good_model, providers=[prov])
        assert not [c for c in found if c.startswith("provider.")], prov


def test_unknown_target_is_a_user_error():
    with pytest.raises(UserInputError, match="one of gpu, npu"):
        pt.parse(["DmlExecutionProvider:tpu"])
    with pytest.raises(UserInputError, match="no target"):
        pt.parse(["CPUExecutionProvider:gpu"])
    assert pt.parse(["DmlExecutionProvider:NPU", "CPUExecutionProvider"]) == (("DmlExecutionProvider", "CPUExecutionProvider"), {"DmlExecutionProvider": "npu"})


def test_not_applied_without_providers(case):
    assert not [c for c in codes(case("dynamic-on-tensorrt")) if c.startswith("provider.")]
