"""Weights, handled without copying them: which tensors live in external files and whether
their locations stay in the model's folder, expected sizes, and the model as onnx's C++ checks
are given it (big embedded weights left out, small external tensors read in).

onnx.checker and onnx.shape_inference take a serialised model and shape inference returns one,
so on a model with 1 GB of embedded weights each call copies the weights three or four times.
Neither needs the values of a large weight: the checker validates each tensor's own fields and
inference reads the type and dims (values only of small shape-like inputs). So the probes hand
them a light copy in which every embedded weight over LIGHT_LIMIT bytes is an external tensor
with the same name, type and dims, and check those weights' sizes here instead.

The other way round, strict inference fails ("Cannot parse data from external tensors") when a
shape-like input such as a Reshape's target shape was saved as external data (onnx.save with
size_threshold=0). The light copy reads such tensors in: up to INLINE_LIMIT bytes each, only
from files inside the model's folder.
"""
from __future__ import annotations

from pathlib import Path
from typing import Any

LIGHT_LIMIT = 64 * 2**10  # larger embedded tensors are left out; shape inputs (Reshape, Slice, ...) are far smaller
LEFT_OUT = "(embedded weight left out by onnx-troubleshooter)"
INLINE_LIMIT = 64 * 2**10  # external tensors up to this size are read into the light copy


def external_tensors(graph: Any, raw: bytes | None = None) -> list[Any]:
    """Initializers (and Constant values) whose data lives in another file.

    raw, the serialised model, lets the node walk be skipped: a tensor's external data is named
    by a "location" entry, so a model whose bytes never spell that word has none in its nodes.
    """
    import onnx

    from diagnoser.model.graphinfo import walk_nodes

    external = onnx.TensorProto.EXTERNAL
    out = [t for t in graph.initializer if t.data_location == external]
    if raw is not None and b"location" not in raw:
        return out
    constants, nested = [], False
    for node in graph.node:  # one cheap pass; subgraphs only when the graph has control flow
        op = node.op_type
        if op == "Constant":
            constants.append(node)
        elif op in ("If", "Loop", "Scan"):
            nested = True
    if nested:
        constants = [n for n in walk_nodes(graph) if n.op_type == "Constant"]
    for node in constants:
        out += [a.t for a in node.attribute if a.type == onnx.AttributeProto.TENSOR and a.t.data_location == external]
    return out


def resolve(model_dir: Path, location: str) -> Path | None:
    """The file a location names, or None when it escapes the model's folder."""
    if not location or Path(location).is_absolute() or location.startswith(("/", "\\")) or ":" in location[:3]:
        return None
    if ".." in Path(location.replace("\\", "/")).parts:
        return None
    root = model_dir.resolve()
    target = (root / location).resolve()
    return target if target.is_relative_to(root) else None


def expected_bytes(t: Any) -> int | None:
    """Bytes the tensor's data type and dims call for, or None when the type has no fixed size."""
    import numpy as np
    import onnx

    try:
        item = np.dtype(onnx.helper.tensor_dtype_to_np_dtype(t.data_type)).itemsize
    except Exception:
        return None
    n = 1
    for d in t.dims:
        n *= d
    if t.data_type in (onnx.TensorProto.INT4, onnx.TensorProto.UINT4, getattr(onnx.TensorProto, "FLOAT4E2M1", -1)):
        return (n + 1) // 2
    return n * item


def _copy_fields(src: Any, dst: Any, skip: str) -> None:
    """Copy every set field of src into dst except the one named skip (nothing is forgotten
    when onnx adds fields)."""
    for fd, value in src.ListFields():
        if fd.name == skip:
            continue
        if hasattr(value, "extend"):  # a repeated field (descriptor labels differ across protobuf releases)
            getattr(dst, fd.name).extend(value)
        elif hasattr(value, "CopyFrom"):  # a message
            getattr(dst, fd.name).CopyFrom(value)
        else:
            setattr(dst, fd.name, value)


def _shape_like(t: Any) -> bool:
    """Could shape inference need this tensor's values? Shapes, axes, pads and repeats are int64
    or int32; the few float inputs it reads (Resize scales) have a handful of elements."""
    import onnx

    if t.data_type in (onnx.TensorProto.INT64, onnx.TensorProto.INT32):
        return True
    n = 1
    for d in t.dims:
        n *= d
    return n <= 16


def inline_small_external(light: Any, folder: Path, limit: int | None = None) -> int:
    """Read into light, in place, the data of external tensors shape inference may need: shape-like
    ones (see _shape_like) of up to limit bytes (INLINE_LIMIT), only from files inside folder,
    only the bytes each names, each file opened once. Returns how many were read in."""
    import onnx

    limit = INLINE_LIMIT if limit is None else limit
    done = 0
    handles: dict[Path, Any] = {}
    try:
        for t in external_tensors(light.graph):
            if not _shape_like(t):
                continue
            entries = {e.key: e.value for e in t.external_data}
            try:
                offset = int(entries.get("offset") or 0)
                length = int(entries["length"]) if entries.get("length") else expected_bytes(t)
            except ValueError:
                continue  # the external_data probe reports malformed entries
            location = entries.get("location", "")
            if length is None or length > limit or offset < 0 or location == LEFT_OUT:
                continue
            target = resolve(folder, location)
            if target is None or not target.is_file():
                continue
            fh = handles.get(target)
            if fh is None:
                fh = handles[target] = target.open("rb")
            fh.seek(offset)
            data = fh.read(length)
            if len(data) != length:
                continue  # truncated: the external_data probe says so
            t.data_location = onnx.TensorProto.DEFAULT
            del t.external_data[:]
            t.raw_data = data
            done += 1
    finally:
        for fh in handles.values():
            fh.close()
    return done


def _left_out(t: Any, limit: int) -> bool:
    """Would light_copy leave this initializer out? Sized from dims and type: ByteSize() or
    len(raw_data) would copy the weight."""
    import onnx

    return t.data_location != onnx.TensorProto.EXTERNAL and t.HasField("raw_data") and (expected_bytes(t) or 0) > limit


def heavy_bytes(proto: Any, limit: int | None = None) -> int:
    """Bytes of the embedded weights light_copy would leave out."""
    limit = LIGHT_LIMIT if limit is None else limit
    return sum(expected_bytes(t) or 0 for t in proto.graph.initializer if _left_out(t, limit))


def light_copy(proto: Any, limit: int | None = None) -> tuple[Any, list[Any]]:
    """(copy of the model whose embedded initializers over limit bytes (LIGHT_LIMIT) are external
    stand-ins, the original initializers left out). Only the graph's own initializers stored as
    raw_data count (every exporter's way; typed fields such as float_data are copied as they are)."""
    import onnx

    limit = LIGHT_LIMIT if limit is None else limit
    light = onnx.ModelProto()
    _copy_fields(proto, light, "graph")
    _copy_fields(proto.graph, light.graph, "initializer")
    external = onnx.TensorProto.EXTERNAL
    left_out = []
    for t in proto.graph.initializer:
        if _left_out(t, limit):
            stand_in = light.graph.initializer.add()
            stand_in.name, stand_in.data_type = t.name, t.data_type
            stand_in.dims.extend(t.dims)
            stand_in.data_location = external
            stand_in.external_data.add(key="location", value=LEFT_OUT)
            left_out.append(t)
        else:
            light.graph.initializer.add().CopyFrom(t)
    return light, left_out


def data_size_problems(tensors: list[Any]) -> list[str]:
    """For weights left out of the light copy, what onnx.checker would say of their sizes: raw
    data shorter than the dims and type need (the checker lets longer pass). One tensor's bytes
    are read at a time."""
    problems = []
    for t in tensors:
        need = expected_bytes(t)
        if need is None:
            continue
        have = len(t.raw_data)  # one weight copied at a time, then dropped
        if have < need:
            problems.append(f"initializer '{t.name}' holds {have} bytes of raw data but its dims {list(t.dims)} and type need {need}")
    return problems
