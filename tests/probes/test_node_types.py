"""The targeted node probe: positive and negative cases on real models."""
from __future__ import annotations

from diagnoser.model.modelfile import load
from diagnoser.probes import ProbeContext, node_types
from tests.models import BF16, F16, F32, I32, NODE, add_model, save


def _run(tmp_path, model, node=NODE):
    ctx = ProbeContext(model=load(save(model, tmp_path / "m.onnx")), facts={"node": node})
    assert node_types.applies(ctx)
    return {f.code: f for f in node_types.run(ctx)}


def test_not_applicable_without_node_fact(tmp_path):
    ctx = ProbeContext(model=load(save(add_model(F32, F32), tmp_path / "m.onnx")), facts={})
    assert not node_types.applies(ctx)


def test_bf16_inputs_have_no_cpu_kernel(tmp_path):
    found = _run(tmp_path, add_model(BF16, BF16))
    assert set(found) == {"node.input-dtypes", "node.no-kernel-bfloat16"}
    rows = found["node.input-dtypes"].details["inputs"]
    assert [(r["input"], r["dtype"]) for r in rows] == [("hidden", "bfloat16"), ("bias", "bfloat16")]
    assert rows[0]["origin"] == "graph input" and rows[1]["origin"].startswith("initializer")
    assert found["node.input-dtypes"].details["since_version"] == 14
    assert "float" in found["node.no-kernel-bfloat16"].details["supported"]


def test_mixed_inputs(tmp_path):
    found = _run(tmp_path, add_model(F16, I32))
    assert "node.mixed-input-dtypes" in found
    assert "node.no-kernel-bfloat16" not in found and "node.no-kernel-for-types" not in found
    msg = found["node.mixed-input-dtypes"].message
    assert "int32" in msg and "float16" in msg and "type parameter T" in msg


def test_float32_has_kernel(tmp_path):
    found = _run(tmp_path, add_model(F32, F32))
    assert set(found) == {"node.input-dtypes", "node.kernel-available"}


def test_float16_is_covered_by_runtime_casts(tmp_path):
    found = _run(tmp_path, add_model(F16, F16))
    assert found["node.kernel-available"].details.get("via_cast") is True


def test_node_not_found_suggests_close_names(tmp_path):
    found = _run(tmp_path, add_model(F32, F32), node="/self_attn/q_proj/Add_1")
    assert set(found) == {"node.not-found"}
    assert NODE in found["node.not-found"].message


def test_node_inside_subgraph_is_found(tmp_path):
    from onnx import TensorProto, helper

    inner = helper.make_graph(
        [helper.make_node("Add", ["x", "x"], ["y"], name="/inner/Add")], "then",
        [], [helper.make_tensor_value_info("y", TensorProto.BFLOAT16, [2])],
    )
    other = helper.make_graph(
        [helper.make_node("Identity", ["x"], ["z"], name="/inner/Id")], "else",
        [], [helper.make_tensor_value_info("z", TensorProto.BFLOAT16, [2])],
    )
    node = helper.make_node("If", ["c"], ["out"], then_branch=inner, else_branch=other, name="/if")
    graph = helper.make_graph(
        [node], "g",
        [helper.make_tensor_value_info("c", TensorProto.BOOL, []), helper.make_tensor_value_info("x", TensorProto.BFLOAT16, [2])],
        [helper.make_tensor_value_info("out", TensorProto.BFLOAT16, [2])],
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 14)], ir_version=10)
    found = _run(tmp_path, model, node="/inner/Add")
    assert "node.input-dtypes" in found
