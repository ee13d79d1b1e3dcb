"""Which kernels the installed onnxruntime registers, per provider, op, version and type.

The registry comes from diagnoser.model.runtime (cached per installed runtime), so judging kernels
does not import onnxruntime once the cache is warm.
"""
from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from diagnoser.model import runtime


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


@lru_cache(maxsize=1)
def runtime_schemas() -> dict[tuple[str, str], tuple[tuple[int, frozenset[str]], ...]]:
    """(domain, op) -> (since_version, attribute names) per version in onnxruntime's own schema
    copy, oldest first; empty when the build does not expose it (then nothing is judged)."""
    table: dict[tuple[str, str], list[tuple[int, frozenset[str]]]] = {}
    for domain, op, since, attrs in runtime.snapshot().schemas:
        table.setdefault((domain, op), []).append((since, frozenset(attrs)))
    return {k: tuple(sorted(v, key=lambda x: x[0])) for k, v in table.items()}


def runtime_schema(domain: str, op: str, opset: int) -> tuple[int, frozenset[str]] | None:
    """The version of op that onnxruntime's schema copy resolves at this opset, with its attributes."""
    found = None
    for since, attrs in runtime_schemas().get((domain, op), ()):
        if since <= opset:
            found = (since, attrs)
    return found


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
            return _as_function(schema.get_function_with_opset_version(opset)) or _as_function(schema.function_body)
    except Exception:
        return None
    return None


def _as_function(body: Any) -> Any | None:
    """A FunctionProto from what onnx hands back: since onnx 1.16 (at least) the versioned
    getter returns the serialized bytes, older releases the proto itself; empty means none."""
    import onnx

    if not body:
        return None
    if isinstance(body, (bytes, bytearray)):
        return onnx.FunctionProto.FromString(bytes(body))
    return body


def body_dtypes(body: Any, input_dtypes: list[str | None], opset: int) -> dict[str, str | None]:
    """name -> dtype of every value in a function body, by running onnx's shape inference on the
    body as a graph whose inputs carry the calling node's input dtypes. Best effort: values
    inference cannot type (attribute references, unknown inputs) are missing."""
    import onnx
    from onnx import helper

    known = {name: d for name, d in zip(body.input, input_dtypes) if d}
    try:
        inputs = [helper.make_tensor_value_info(n, _ELEM[known[n]], None) if n in known else helper.make_empty_tensor_value_info(n)
                  for n in body.input]
        graph = helper.make_graph(list(body.node), "body", inputs, [helper.make_empty_tensor_value_info(o) for o in body.output])
        model = helper.make_model(graph, opset_imports=list(body.opset_import) or [helper.make_opsetid("", opset)])
        inferred = onnx.shape_inference.infer_shapes(model, check_type=False, strict_mode=False)
    except Exception:  # a body onnx cannot take as a graph: judge with what the caller knew
        return known
    from diagnoser.model.graphinfo import dtype_name

    for vi in list(inferred.graph.value_info) + list(inferred.graph.output):
        name = dtype_name(vi.type.tensor_type.elem_type)
        if name:
            known.setdefault(vi.name, name)
    return known


def expanded_verdict(schema: Any, node: Any, opset: int, input_dtypes: list[str | None], depth: int = 0) -> tuple[str, str | None]:
    """(verdict, the body node it is about) for an op onnxruntime will expand from its function
    body: the first missing kernel among the body's nodes, each judged with the dtypes onnx's shape
    inference gives the body's values (the calling node's input dtypes propagated through it);
    values it cannot type are judged by op version only. The node reads like `Expand(13) with
    T=bfloat16`, as the runtime's NOT_IMPLEMENTED message names it."""
    import onnx

    from diagnoser.model.graphinfo import group, signature

    body = _function_body(schema, node, opset, input_dtypes)
    if body is None or depth > 2:
        return "function", None
    body_opset = next((o.version for o in body.opset_import if o.domain in ("", "ai.onnx")), opset)
    known = body_dtypes(body, input_dtypes, body_opset)
    for inner in body.node:
        domain = "" if inner.domain in ("", "ai.onnx") else inner.domain
        if domain:
            continue
        try:
            s = onnx.defs.get_schema(inner.op_type, body_opset, "")
        except Exception:
            continue
        ins = tuple(known.get(n) if n else "" for n in inner.input)
        outs = tuple(known.get(n) if n else "" for n in inner.output)
        bound = group(signature(s, ins, outs))
        v, what = cpu_verdict(domain, inner.op_type, s.since_version, bound, s), None
        if v == "function":
            v, what = expanded_verdict(s, inner, body_opset, [known.get(n) for n in inner.input], depth + 1)
        if v.startswith("missing"):
            return v, what or op_text(inner.op_type, s.since_version, bound)
    return "function", None


def op_text(op: str, since: int | None, bound: dict[str, tuple[str | None, ...]], domain: str = "") -> str:
    """`Expand(13) with T=bfloat16`, as onnxruntime names a node in NOT_IMPLEMENTED, with the
    dtypes bound to each type parameter (parameters with no known dtype left out)."""
    types = ", ".join(f"{p}={'/'.join(sorted({d for d in ds if d}))}" for p, ds in bound.items() if any(ds) and not p.startswith("tensor("))
    return f"{domain + '.' if domain else ''}{op}({since})" + (f" with {types}" if types else "")


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
