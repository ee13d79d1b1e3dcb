"""Which kernels the installed onnxruntime registers, per provider, op, version and type.

The registry comes from diagnoser.runtime (cached per installed runtime), so judging kernels
does not import onnxruntime once the cache is warm.
"""
from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from diagnoser import runtime


@dataclass(frozen=True)
class KernelDef:
    provider: str
    domain: str
    op: str
    start: int
    end: int
    types: dict[str, tuple[str, ...]]


@lru_cache(maxsize=1)
def registry() -> dict[tuple[str, str], tuple[KernelDef, ...]]:
    """(domain, op) -> kernels; raises ImportError when onnxruntime cannot be imported."""
    rt = runtime.snapshot()
    if rt.error is not None:
        raise ImportError(rt.error)
    table: dict[tuple[str, str], list[KernelDef]] = {}
    for provider, domain, op, start, end, types in rt.kernels:
        kd = KernelDef(provider, domain, op, start, end, {t: tuple(v) for t, v in types.items()})
        table.setdefault((domain, op), []).append(kd)
    return {key: tuple(v) for key, v in table.items()}


def ort_version() -> str:
    """The installed onnxruntime's version; raises ImportError when it cannot be imported."""
    rt = runtime.snapshot()
    if rt.version is None:
        raise ImportError(rt.error or "onnxruntime is not installed")
    return rt.version


_OPEN = 2**31 - 1


def covers(kd: KernelDef, since: int) -> bool:
    """onnxruntime's own rule (KernelRegistry::VerifyKernelDef): an open-ended kernel serves only
    the op version it starts at; a closed range serves every version inside it."""
    if kd.end >= _OPEN:
        return since == kd.start
    return kd.start <= since <= kd.end


def kernel_for(provider: str, domain: str, op: str, version: int, bound: dict[str, str]) -> KernelDef | None:
    """A kernel of provider for op at version that accepts the bound type parameters.

    bound maps type parameter (e.g. "T") to the node's tensor type (e.g. "tensor(float16)").
    """
    for kd in registry().get((domain, op), ()):
        if kd.provider != provider or not covers(kd, version):
            continue
        if all(t not in kd.types or ty in kd.types[t] for t, ty in bound.items()):
            return kd
    return None


def _types(bound: dict[str, tuple[str | None, ...]]) -> dict[str, str] | None:
    """One tensor type per parameter, or None when a dtype is unknown or a parameter is mixed."""
    out = {}
    for param, dtypes in bound.items():
        known = {d for d in dtypes if d}
        if len(known) > 1:
            return None
        if known:
            out[param] = f"tensor({known.pop()})"
    return out


# ops the runtime resolves while building the graph, never through a kernel
_GRAPH_LEVEL = frozenset({("", "Constant")})


def cpu_verdict(domain: str, op: str, since: int | None, bound: dict[str, tuple[str | None, ...]],
                schema: object | None = None) -> str:
    """Will the CPU provider load this node? "ok", "cast" (float16 runs through inserted Casts),
    "function" (no kernel, but onnxruntime inlines the op's function body), "missing-op",
    "missing-types", or "unknown" (dtypes or version not known).

    The registry alone overstates failures: onnxruntime inserts Cast nodes around float16 nodes
    that only have a float kernel, and expands ops defined as ONNX functions.
    """
    if since is None:
        return "unknown"
    if (domain, op) in _GRAPH_LEVEL:
        return "ok"
    types = _types(bound)
    if types is None:
        return "unknown"
    provider = "CPUExecutionProvider"
    if kernel_for(provider, domain, op, since, types):
        return "ok"
    has_function = bool(schema is not None and (getattr(schema, "has_function", False) or getattr(schema, "has_context_dependent_function", False)))
    at_version = any(kd.provider == provider and covers(kd, since) for kd in registry().get((domain, op), ()))
    if not at_version:
        return "function" if has_function else "missing-op"
    if any(t == "tensor(float16)" for t in types.values()):
        as_float = {p: ("tensor(float)" if t == "tensor(float16)" else t) for p, t in types.items()}
        if kernel_for(provider, domain, op, since, as_float):
            return "cast"
    if has_function:
        return "function"
    return "missing-types"


def _function_body(schema: Any, node: Any, opset: int, input_dtypes: list[str | None]) -> Any | None:
    """The FunctionProto onnxruntime would inline for this node, or None when onnx cannot build it."""
    import onnx

    try:
        if getattr(schema, "has_context_dependent_function", False):
            if not input_dtypes or not all(input_dtypes) or not all(node.input):
                return None  # onnx's C++ function builder crashes on missing input types
            types = []
            for d in input_dtypes:
                tp = onnx.TypeProto()
                if d:
                    tp.tensor_type.elem_type = _ELEM[d]
                types.append(tp.SerializeToString())
            raw = schema.get_context_dependent_function_with_opset_version(opset, node.SerializeToString(), types)
            return onnx.FunctionProto.FromString(raw) if raw else None
        if getattr(schema, "has_function", False):
            return schema.get_function_with_opset_version(opset) or schema.function_body
    except Exception:
        return None
    return None


def expanded_verdict(schema: Any, node: Any, opset: int, input_dtypes: list[str | None], depth: int = 0) -> str:
    """Verdict for an op onnxruntime will expand from its function body: the worst of the body's
    nodes. Body values keep the dtypes of the function inputs they come straight from; others
    are unknown and judged by op version only."""
    import onnx

    body = _function_body(schema, node, opset, input_dtypes)
    if body is None or depth > 2:
        return "function"
    known = {name: d for name, d in zip(body.input, input_dtypes) if d}
    for inner in body.node:
        domain = "" if inner.domain in ("", "ai.onnx") else inner.domain
        if domain:
            continue
        try:
            s = onnx.defs.get_schema(inner.op_type, opset, "")
        except Exception:
            continue
        bound: dict[str, list[str | None]] = {}
        formals = list(s.inputs)
        for i, name in enumerate(inner.input):
            if name and formals:
                param = formals[min(i, len(formals) - 1)].type_str
                bound.setdefault(param, []).append(known.get(name))
        v = cpu_verdict(domain, inner.op_type, s.since_version, {k: tuple(x) for k, x in bound.items()}, s)
        if v == "function":
            v = expanded_verdict(s, inner, opset, [known.get(n) for n in inner.input], depth + 1)
        if v.startswith("missing"):
            return v
    return "function"


def _elem_table() -> dict[str, int]:
    import onnx

    return {onnx.helper.tensor_dtype_to_string(v).removeprefix("TensorProto.").lower(): v
            for v in onnx.TensorProto.DataType.values() if v}


class _Lazy(dict):
    def __missing__(self, key: str) -> int:
        if not self.get("__loaded__"):
            self.update(_elem_table())
            self["__loaded__"] = 1
            return self[key]
        raise KeyError(key)


_ELEM: dict[str, int] = _Lazy()
