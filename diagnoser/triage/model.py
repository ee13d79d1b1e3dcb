"""With --model: what the model says about the node an error names (reuses diagnoser.model.graphinfo)."""
from __future__ import annotations

from typing import Any

_MAX_INPUTS = 6
_MAX_ATTR = 60  # characters of one attribute's value


def _shapes(g: Any) -> dict[str, str]:
    graph = g.inferred.graph
    out: dict[str, str] = {}
    for vi in (*graph.input, *graph.value_info, *graph.output):
        t = vi.type.tensor_type
        if t.HasField("shape"):
            dims = [d.dim_param or (str(d.dim_value) if d.HasField("dim_value") else "?") for d in t.shape.dim]
            out[vi.name] = "[" + ",".join(dims) + "]"
    for init in graph.initializer:
        out[init.name] = "[" + ",".join(str(d) for d in init.dims) + "]"
    return out


def _attribute(attr: Any) -> str:
    import onnx

    value = onnx.helper.get_attribute_value(attr)
    if isinstance(value, bytes):
        value = value.decode("utf-8", "replace")
    elif hasattr(value, "dims"):  # a tensor
        value = f"tensor{list(value.dims)}"
    elif hasattr(value, "node"):  # a graph
        value = f"graph({len(value.node)} nodes)"
    text = str(value)
    return text if len(text) <= _MAX_ATTR else text[:_MAX_ATTR - 3] + "..."


def lookup(graph: Any, name: str) -> dict[str, str]:
    """The node's op, domain, attributes, inputs (dtype, shape, origin) and producers; {} when the
    model has no node of that name."""
    node = graph.find_node(name)
    if node is None:
        return {}
    out = {"node": node.name, "op": node.op_type}
    if node.domain:
        out["domain"] = node.domain
    version = graph.since_version(node)
    if version:
        out["op_version"] = str(version)
    if node.attribute:
        out["attributes"] = ", ".join(f"{a.name}={_attribute(a)}" for a in node.attribute)
    values, shapes = graph.values, _shapes(graph)
    for i, inp in enumerate(node.input[:_MAX_INPUTS]):
        if not inp:
            continue
        v = values.get(inp)
        dtype = (v.dtype if v else None) or "?"
        origin = v.origin if v else "unknown origin"
        out[f"input{i}"] = f"{inp}: {dtype} {shapes.get(inp, '[?]')} ({origin})"
    return out
