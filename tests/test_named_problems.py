"""The four problems our user named, end to end, on real models and real onnxruntime messages."""
from __future__ import annotations

import pytest

from diagnoser import diagnose
from tests.models import BF16, F16, F32, I32, NODE, add_model, ort_error, save


@pytest.fixture()
def bf16_case(tmp_path):
    path = save(add_model(BF16, BF16), tmp_path / "bf16.onnx")
    return path, ort_error(path)


@pytest.fixture()
def mixed_case(tmp_path):
    path = save(add_model(F16, I32), tmp_path / "mixed.onnx")
    return path, ort_error(path)


def test_bf16_message_is_the_named_not_implemented(bf16_case):
    _, message = bf16_case
    assert f"NOT_IMPLEMENTED : Could not find an implementation for Add(14) node with name '{NODE}'" in message


def test_mixed_message_is_a_type_error(mixed_case):
    _, message = mixed_case
    assert "Type parameter (T) of Optype (Add) bound to different types" in message
    assert "tensor(float16)" in message and "tensor(int32)" in message


def test_float16_alone_loads_because_runtime_casts(tmp_path):
    path = save(add_model(F16, F16), tmp_path / "f16.onnx")
    assert ort_error(path) == ""


def _evidence(report, entry_id):
    diag = next(d for d in report.diagnoses if d.id == entry_id)
    return " | ".join(e.detail for e in diag.evidence)


def test_bf16_model_confirms_no_kernel_entry(bf16_case):
    path, message = bf16_case
    report = diagnose(text=message, model=path)
    assert report.diagnoses[0].id == "OT0001"
    ev = _evidence(report, "OT0001")
    assert "bfloat16" in ev and "node.no-kernel-bfloat16" in ev
    assert report.diagnoses[0].confidence > 0.9
    # the mixed-dtype explanation is refuted, not merely outranked
    assert all(d.id != "OT0002" for d in report.diagnoses)
    codes = {f.code for f in report.findings}
    assert {"node.input-dtypes", "node.no-kernel-bfloat16"} <= codes


def test_mixed_model_confirms_mixed_entry(mixed_case):
    path, message = mixed_case
    report = diagnose(text=message, model=path)
    assert report.diagnoses[0].id == "OT0002"
    ev = _evidence(report, "OT0002")
    assert "int32" in ev and "float16" in ev and "node.mixed-input-dtypes" in ev


def test_not_implemented_text_with_mixed_model_lets_the_model_decide(mixed_case):
    """Users paste the NOT_IMPLEMENTED text but the model has mixed dtypes: evidence overrides text."""
    path, _ = mixed_case
    text = f"NOT_IMPLEMENTED : Could not find an implementation for Add(14) node with name '{NODE}'"
    text_only = diagnose(text=text)
    assert text_only.diagnoses[0].id == "OT0001"
    with_model = diagnose(text=text, model=path)
    assert with_model.diagnoses[0].id == "OT0002"
    assert all(d.id != "OT0001" for d in with_model.diagnoses)


def test_kernel_available_refutes_no_kernel(tmp_path):
    path = save(add_model(F32, F32), tmp_path / "f32.onnx")
    text = f"NOT_IMPLEMENTED : Could not find an implementation for Add(14) node with name '{NODE}'"
    report = diagnose(text=text, model=path)
    assert {f.code for f in report.findings} >= {"node.kernel-available"}
    assert all(d.id != "OT0001" for d in report.diagnoses)


NAMED = [
    ("NOT_IMPLEMENTED : Could not find an implementation for Add(14) node with name '/self_attn/q_proj/Add'", "OT0001"),
    ("Exception during initialization: The specified device interface or feature level is not supported on this system.", "OT0003"),
    ("Execution type OpenVINOExecutionProvider doesn't support memcpy", "OT0005"),
    ("torch.onnx.export(model, dummy, 'model.onnx')\nRuntimeError: Expected all tensors to be on the same device, but found at least two devices, cuda:0 and cpu!", "OT0006"),
]


@pytest.mark.parametrize(("text", "entry_id"), NAMED)
def test_named_texts_rank_their_entries_first(text, entry_id):
    report = diagnose(text=text)
    assert report.diagnoses, f"nothing diagnosed for {text!r}"
    assert report.diagnoses[0].id == entry_id


def test_providers_alone_rank_memcpy_entry_first():
    report = diagnose(providers=["OpenVINOExecutionProvider", "DmlExecutionProvider"])
    assert report.diagnoses and report.diagnoses[0].id == "OT0005"
    assert any(e.kind == "providers" for e in report.diagnoses[0].evidence)


def test_single_provider_does_not_trigger_memcpy_entry():
    report = diagnose(providers=["OpenVINOExecutionProvider"])
    assert all(d.id != "OT0005" for d in report.diagnoses)


def test_dml_text_with_fp32_model_points_at_model(tmp_path):
    from onnx import TensorProto, helper

    gap = helper.make_node("GlobalAveragePool", ["x"], ["p"])
    flat = helper.make_node("Flatten", ["p"], ["f"])
    gemm = helper.make_node("Gemm", ["f", "W"], ["y"])
    graph = helper.make_graph(
        [gap, flat, gemm], "head",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 8, 7, 7])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 2])],
        [helper.make_tensor("W", TensorProto.FLOAT, [8, 2], [0.1] * 16)],
    )
    from tests.models import save as save_model

    path = save_model(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)], ir_version=10), tmp_path / "head.onnx")
    text = "The specified device interface or feature level is not supported on this system."
    report = diagnose(text=text, model=path, providers=["DmlExecutionProvider"])
    assert report.diagnoses[0].id == "OT0003"
    codes = {f.code for f in report.findings}
    assert {"model.float32-compute", "model.head-only-graph"} <= codes
