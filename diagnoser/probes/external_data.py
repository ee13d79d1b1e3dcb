"""External data: are the weight files there, big enough, and inside the model's folder?

Reads only file sizes, never the weights. A location that is absolute, climbs with '..', or
resolves (through a symlink) outside the model's folder is refused: the session probe will not
load such a model, and nothing outside the folder is opened.
"""
from __future__ import annotations

from pathlib import Path
from typing import Any

from diagnoser.report import Finding

NAME = "external_data"


def applies(ctx: Any) -> bool:
    return ctx.model is not None


def external_tensors(graph: Any, raw: bytes | None = None) -> list[Any]:
    """Initializers (and Constant values) whose data lives in another file.

    raw, the serialised model, lets the node walk be skipped: a tensor's external data is named
    by a "location" entry, so a model whose bytes never spell that word has none in its nodes.
    """
    import onnx

    from diagnoser.graphinfo import walk_nodes

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


def _expected_bytes(t: Any) -> int | None:
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


def run(ctx: Any) -> list[Finding]:
    tensors = ctx.external
    if not tensors:
        return []
    model_dir = ctx.model.path.parent
    findings: list[Finding] = []
    escaped, missing, short = {}, {}, []
    sizes: dict[Path, int] = {}
    total = 0
    for t in tensors:
        entries = {e.key: e.value for e in t.external_data}
        loc = entries.get("location", "")
        target = resolve(model_dir, loc)
        if target is None:
            escaped.setdefault(loc, t.name)
            continue
        if target not in sizes:
            sizes[target] = target.stat().st_size if target.is_file() else -1
        if sizes[target] < 0:
            missing.setdefault(loc, t.name)
            continue
        offset = int(entries.get("offset", 0) or 0)
        length = int(entries["length"]) if entries.get("length") else _expected_bytes(t)
        total += length or 0
        if length is not None and offset + length > sizes[target]:
            short.append((t.name, loc, offset + length, sizes[target]))
    for loc, tname in escaped.items():
        findings.append(Finding("external-data.escapes-folder", "error",
                                f"tensor '{tname}' points to external data '{loc}', outside the model's folder: refused (not read); onnxruntime rejects it too",
                                NAME, details={"location": loc, "tensor": tname}))
    for loc, tname in missing.items():
        findings.append(Finding("external-data.missing-file", "error",
                                f"external data file '{loc}' (tensor '{tname}') is not next to the model in {model_dir}: copy it there, or re-save the model with its data",
                                NAME, details={"location": loc, "tensor": tname, "folder": str(model_dir)}))
    if short:
        name, loc, need, have = short[0]
        findings.append(Finding("external-data.truncated", "error",
                                f"external data file '{loc}' is {have} bytes but tensor '{name}' needs bytes up to {need} ({len(short)} tensor(s) affected): an incomplete download or copy",
                                NAME, details={"tensors": [s[0] for s in short[:20]], "location": loc, "needed": need, "size": have}))
    if not findings:
        findings.append(Finding("external-data.present", "info",
                                f"{len(tensors)} tensor(s) keep their data in {len(sizes)} external file(s), {total / 2**20:.1f} MiB, all present",
                                NAME, details={"tensors": len(tensors), "files": sorted(str(p.name) for p in sizes), "bytes": total}))
    return findings
