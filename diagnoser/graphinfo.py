"""What the graph says about tensors: dtype and origin of every value a node reads."""
from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property
from typing import Any, Iterator


@dataclass(frozen=True)
class ValueInfo:
    name: str
    dtype: str | None  # ONNX name, e.g. "float16"; None when unknown
    origin: str  # "graph input", "initializer", "output of Cast node 'x'", ...


def dtype_name(elem_type: int) -> str | None:
    import onnx

    if not elem_type:
        return None
    try:
        return onnx.helper.tensor_dtype_to_string(elem_type).removeprefix("TensorProto.").lower()
    except (ValueError, KeyError):
        return None


def walk_nodes(graph: Any) -> Iterator[Any]:
    """Every node, including those inside If/Loop/Scan subgraphs."""
    import onnx

    for node in graph.node:
        yield node
        for attr in node.attribute:
            if attr.type == onnx.AttributeProto.GRAPH:
                yield from walk_nodes(attr.g)
            elif attr.type == onnx.AttributeProto.GRAPHS:
                for g in attr.graphs:
                    yield from walk_nodes(g)


class GraphInfo:
    """Lazy views of a ModelProto for probes; shape inference runs once, on demand."""

    def __init__(self, proto: Any):
        self.proto = proto

    @cached_property
    def opsets(self) -> dict[str, int]:
        return {("" if o.domain == "ai.onnx" else o.domain): o.version for o in self.proto.opset_import}

    @cached_property
    def inferred(self) -> Any:
        """The model with inferred value_info; the original when inference fails."""
        import onnx

        try:
            return onnx.shape_inference.infer_shapes(self.proto, check_type=False, strict_mode=False)
        except Exception:  # inference is best effort: a model it rejects still has inputs and initializers
            return self.proto

    @cached_property
    def values(self) -> dict[str, ValueInfo]:
        graph = self.inferred.graph
        out: dict[str, ValueInfo] = {}
        producers = {o: n for n in walk_nodes(graph) for o in n.output if o}
        for vi in graph.value_info:
            node = producers.get(vi.name)
            origin = f"output of {node.op_type} node '{node.name}'" if node is not None else "intermediate value"
            out[vi.name] = ValueInfo(vi.name, dtype_name(vi.type.tensor_type.elem_type), origin)
        for vi in graph.output:
            node = producers.get(vi.name)
            origin = f"output of {node.op_type} node '{node.name}'" if node is not None else "graph output"
            out[vi.name] = ValueInfo(vi.name, dtype_name(vi.type.tensor_type.elem_type), origin)
        for node in walk_nodes(graph):
            if node.op_type == "Constant" and node.output:
                for attr in node.attribute:
                    if attr.name == "value":
                        out[node.output[0]] = ValueInfo(node.output[0], dtype_name(attr.t.data_type), f"Constant node '{node.name}'")
        for init in graph.initializer:
            out[init.name] = ValueInfo(init.name, dtype_name(init.data_type), f"initializer {list(init.dims)}")
        for vi in graph.input:
            if vi.name not in out or not out[vi.name].origin.startswith("initializer"):
                out[vi.name] = ValueInfo(vi.name, dtype_name(vi.type.tensor_type.elem_type), "graph input")
        return out

    @cached_property
    def nodes_by_name(self) -> dict[str, Any]:
        return {n.name: n for n in walk_nodes(self.proto.graph) if n.name}

    def find_node(self, name: str) -> Any | None:
        node = self.nodes_by_name.get(name)
        if node is None and name.startswith("/"):
            node = self.nodes_by_name.get(name.lstrip("/"))
        return node

    def since_version(self, node: Any) -> int | None:
        """The op version the runtime prints in `Add(14)`: the schema's since_version."""
        import onnx

        opset = self.opsets.get(node.domain or "")
        if opset is None:
            return None
        try:
            return onnx.defs.get_schema(node.op_type, opset, node.domain or "").since_version
        except Exception:
            return None

    def schema(self, node: Any) -> Any | None:
        import onnx

        opset = self.opsets.get(node.domain or "")
        try:
            return onnx.defs.get_schema(node.op_type, opset, node.domain or "") if opset else None
        except Exception:
            return None
