"""External data: are the weight files there, big enough, and inside the model's folder?

Reads only file sizes, never the weights. A location that is absolute, climbs with '..', or
resolves (through a symlink) outside the model's folder is refused: the session probe will not
load such a model, and nothing outside the folder is opened.
"""
from __future__ import annotations

from pathlib import Path
from typing import Any

from diagnoser.report import Finding
from diagnoser.model.weights import expected_bytes, resolve

NAME = "external_data"


def applies(ctx: Any) -> bool:
    return ctx.model is not None


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
        length = int(entries["length"]) if entries.get("length") else expected_bytes(t)
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
