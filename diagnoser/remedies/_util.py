"""Small helpers the remedies share: value dtypes, safe weight access, fresh names."""
from __future__ import annotations

from typing import Any

from diagnoser.remedies import RemedyError

MAX_WEIGHT_BYTES = 4 * 2**30  # a remedy never materialises a tensor larger than this


def value_types(model: Any) -> dict[str, int]:
    """elem_type of every value onnx can tell (inputs, initializers, inferred values, outputs)."""
    import onnx

    try:
        inferred = onnx.shape_inference.infer_shapes(model, strict_mode=False)
    except Exception:  # a model shape inference cannot read: declared types only
        inferred = model
    g = inferred.graph
    out: dict[str, int] = {t.name: t.data_type for t in g.initializer}
    for vi in (*g.input, *g.value_info, *g.output):
        if vi.type.HasField("tensor_type") and vi.type.tensor_type.elem_type:
            out.setdefault(vi.name, vi.type.tensor_type.elem_type)
    for node in g.node:
        if node.op_type == "Constant" and not node.domain:
            for a in node.attribute:
                if a.name == "value" and a.type == onnx.AttributeProto.TENSOR:
                    out.setdefault(node.output[0], a.t.data_type)
    return out


def to_array(t: Any) -> Any:
    """A weight as numpy, refusing tensors whose declared size has no data behind it (a hostile
    or truncated file) or that are too large to convert in memory; external data is never read."""
    from onnx import TensorProto, numpy_helper

    from diagnoser.model.weights import expected_bytes

    if t.data_location == TensorProto.EXTERNAL:
        raise RemedyError(f"initializer '{t.name}' keeps its data in an external file; this remedy does not read external weights")
    need = expected_bytes(t) or 0
    if need > MAX_WEIGHT_BYTES:
        raise RemedyError(f"initializer '{t.name}' declares {need / 2**30:.1f} GiB: refused")
    have = len(t.raw_data) if t.HasField("raw_data") else None
    if have is not None and have < need:
        raise RemedyError(f"initializer '{t.name}' declares dims {list(t.dims)} ({need} bytes) but holds {have}: refused")
    return numpy_helper.to_array(t)


class Namer:
    """Fresh value and node names, unique in the graph (one scan of the graph, then a set)."""

    def __init__(self, model: Any):
        g = model.graph
        self.used = {n for node in g.node for n in (*node.input, *node.output, node.name)}
        self.used |= {v.name for v in (*g.input, *g.output, *g.initializer)}

    def __call__(self, base: str) -> str:
        name, i = base, 1
        while name in self.used:
            i += 1
            name = f"{base}_{i}"
        self.used.add(name)
        return name


def fresh(model: Any, base: str) -> str:
    """One fresh name (scans the graph: use Namer for many)."""
    return Namer(model)(base)


def opset(model: Any, domain: str = "") -> int | None:
    for o in model.opset_import:
        if (o.domain or "") in (domain, "ai.onnx" if domain == "" else domain):
            return o.version
    return None
