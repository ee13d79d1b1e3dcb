"""External data (OT0108, OT0159): a model close to the 2 GB protobuf limit is saved with its
weights in one external file; a location whose file is missing is re-pointed to a file of the
same name found beside the model, when that file is large enough.

Locations escaping the model's folder are refused before any remedy runs (as the probes do),
and no external weight is read: only file names and sizes.
"""
from __future__ import annotations

from pathlib import Path
from typing import Any

from diagnoser.remedies import Change, FixContext, RemedyResult

NAME = "external-data"
GRADE = "safe"
TOLERANCE = "exact"
INLINE_LIMIT = int(2**31 * 0.9)  # inline bytes from which weights go to an external file


def _repoint(model: Any, folder: Path, changes: list[Change]) -> None:
    from onnx import TensorProto

    from diagnoser.model.weights import expected_bytes, resolve

    need: dict[str, int] = {}
    tensors = [t for t in model.graph.initializer if t.data_location == TensorProto.EXTERNAL]
    for t in tensors:
        e = {x.key: x.value for x in t.external_data}
        end = int(e.get("offset", 0) or 0) + (int(e["length"]) if e.get("length") else (expected_bytes(t) or 0))
        need[e.get("location", "")] = max(need.get(e.get("location", ""), 0), end)
    moved: dict[str, str] = {}
    for loc, end in need.items():
        target = resolve(folder, loc)
        if target is None or target.is_file():
            continue  # escaping (refused earlier) or present
        base = loc.replace("\\", "/").rsplit("/", 1)[-1]
        found = folder / base
        if found.is_file() and found.stat().st_size >= end and resolve(folder, base) is not None:
            moved[loc] = base
    for t in tensors:
        for x in t.external_data:
            if x.key == "location" and x.value in moved:
                x.value = moved[x.value]
    for loc, base in moved.items():
        changes.append(Change("external-data", loc, f"location '{loc}' (missing) -> '{base}' found beside the model"))


def apply(model: Any, ctx: FixContext) -> RemedyResult:
    changes: list[Change] = []
    _repoint(model, ctx.path.parent, changes)
    if changes:
        return RemedyResult(model, changes, grade="review", tolerance="report",
                            note="the file found beside the model has the right name and size; that it holds these weights is for you to check")
    inline = ctx.path.stat().st_size if ctx.path.is_file() else 0
    if inline > INLINE_LIMIT:
        n = sum(1 for t in model.graph.initializer if t.HasField("raw_data") and len(t.raw_data) >= 1024)
        changes.append(Change("external-data", "weights", f"{n} weights ({inline / 2**30:.2f} GiB inline) moved to one external file beside the model"))
        return RemedyResult(model, changes, writes_weights=True)
    return RemedyResult(model, note="no missing external file to re-point and the model is well under the 2 GB limit")
