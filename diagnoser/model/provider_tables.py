"""Where the model will run: a provider and its target device, and what its support table says
about each group of nodes.

The tables are generated from each provider's own sources (scripts/gen_provider_tables.py ->
diagnoser/data/providers.yaml), so a verdict can name the source row it rests on. A target is
named as PROVIDER:TARGET (DmlExecutionProvider:npu, OpenVINOExecutionProvider:gpu,
TensorrtExecutionProvider:8); without one the provider's default target is used, or the one the
pasted error text names (an NPU, a TensorRT 8 library).
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from diagnoser.model.datafiles import table
from diagnoser.errors import UserInputError

# Nodes no provider sees: onnxruntime turns Constant nodes into initializers when it builds the
# graph, and removes Identity / Dropout (inference) before partitioning (Graph Optimizations docs).
GRAPH_LEVEL = frozenset({("", "Constant"), ("", "Identity"), ("", "Dropout")})
_FLOATS = ("float", "float16", "bfloat16", "double")
# what in an error text tells which target produced it, when the user did not name one
_TEXT_HINTS: dict[str, tuple[tuple[str, str], ...]] = {
    "DmlExecutionProvider": (("npu", r"\bNPU\b|AI Boost|Hexagon|887A0004|feature level is not supported"),),
    "OpenVINOExecutionProvider": (("npu", r"\bNPU\b|AI Boost"), ("gpu", r"device_type['\"]?\s*[:=]\s*['\"]?GPU|\bGPU\.\d")),
    "TensorrtExecutionProvider": (("8", r"TensorRT(?: version)?[ :]+8\.\d|libnvinfer\.so\.8|nvinfer_8"),),
}


@dataclass(frozen=True)
class Target:
    provider: str
    name: str  # the target: "gpu", "npu", "10", ...
    named: bool  # the user named it (or the error text did), rather than the provider's default
    spec: dict[str, Any]  # behaviour facts: unsupported (fallback | fail), dynamic_shapes, why
    table: dict[str, Any]  # the generated table: source, revision, rows

    @property
    def label(self) -> str:
        short = self.provider.removesuffix("ExecutionProvider")
        return f"{short} ({self.name})" if self.name else short

    @property
    def cite(self) -> str:
        return f"{self.table['source']} ({self.table['revision']})"


def data() -> dict[str, Any]:
    return table("providers")


def split(spec: str) -> tuple[str, str | None]:
    """'DmlExecutionProvider:npu' -> ('DmlExecutionProvider', 'npu'); no suffix -> (spec, None)."""
    name, sep, target = spec.strip().partition(":")
    return name.strip(), (target.strip().lower() or None) if sep else None


def parse(specs: tuple[str, ...] | list[str]) -> tuple[tuple[str, ...], dict[str, str]]:
    """Provider names in order and the targets named with them; raises UserInputError for a
    target the provider's table does not know (or a target on a provider without tables)."""
    known: dict[str, Any] = data()["providers"] if any(":" in s for s in specs) else {}  # no table read without a target
    names, targets = [], {}
    for spec in specs:
        name, target = split(spec)
        if not name:
            continue
        names.append(name)
        if target is None:
            continue
        options = sorted(known.get(name, {}).get("targets", {}))
        if target not in options:
            where = f"one of {', '.join(options)}" if options else "no target (no support table)"
            raise UserInputError(f"{name} takes {where}, not {target!r}")
        targets[name] = target
    return tuple(names), targets


def resolve(provider: str, named: str | None = None, text: str = "") -> Target | None:
    """The target to judge the model against; None for a provider without a support table."""
    spec = data()["providers"].get(provider)
    if spec is None:
        return None
    name, by_user = named, named is not None
    if name is None:
        for cand, pattern in _TEXT_HINTS.get(provider, ()):
            if text and re.search(pattern, text, re.I):
                name, by_user = cand, True
                break
    name = name or spec["default"]
    facts = spec["targets"][name]
    return Target(provider, name, by_user, facts, data()["tables"][facts["table"]])


def _row(tab: dict[str, Any], domain: str, op: str) -> dict[str, Any] | None:
    rows = tab["rows"]
    return rows.get(f"{domain or 'ai.onnx'}:{op}") or rows.get(f"*:{op}")


def _covers(start: int, end: int | None, since: int) -> bool:
    """onnxruntime's rule: an open-ended kernel serves only the op version it starts at."""
    return since == start if end is None else start <= since <= end


def _kernel_verdict(row: dict[str, Any], since: int | None, bound: dict[str, tuple[str | None, ...]]) -> str | None:
    kernels = [k for k in row["kernels"] if since is None or _covers(k[0], k[1], since)]
    if not kernels:
        return "version"
    for _, _, types in kernels:
        if all(p not in types or all(not d or d in types[p].split() for d in ds) for p, ds in bound.items()):
            return None
    return "types"


def _tensorrt_verdict(tab: dict[str, Any], row: dict[str, Any], grp: Any) -> str | None:
    if not row.get("supported"):
        return "op"
    allowed = set(tab["dtypes"].split())
    dtypes = {d for _, d in grp.sig if d}
    if dtypes - allowed:
        return "types"
    first = next((d for _, d in grp.sig[:1] if d), None)
    types = set(row.get("types", "").split())
    if first in _FLOATS and types and first not in types and not (first == "double" and "float" in types):
        return "types"
    return None


def verdict(target: Target, grp: Any) -> tuple[str, dict[str, Any] | None] | None:
    """None when the table takes this group of nodes; else (why, the source row): "op" (no row,
    or marked unsupported), "version" (no kernel for the node's op version), "types" (a dtype the
    row does not accept)."""
    if (grp.domain, grp.op) in GRAPH_LEVEL:
        return None
    tab = target.table
    row = _row(tab, grp.domain, grp.op)
    if row is None:
        return "op", None
    if tab["kind"] == "kernels":
        why = _kernel_verdict(row, grp.since, grp.bound)
    elif tab["kind"] == "tensorrt":
        why = _tensorrt_verdict(tab, row, grp)
    else:
        why = None
    return (why, row) if why else None
