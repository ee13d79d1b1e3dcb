"""What the installed onnxruntime is: its version, its providers, its kernel registry and its own
copy of the operator schemas.

`import onnxruntime` loads a native library of tens of MB and costs more than the static probes'
own work on most models, yet the answer changes only when onnxruntime, numpy or Python change.
So the first run asks the runtime and caches the answer (diagnoser.diskcache), keyed by the size
and mtime of every file at the top of the onnxruntime package and its capi folder (the native
libraries included), numpy's package, the Python version and executable; later runs read the
cache without importing onnxruntime. A failed import is never cached, so the next run asks again,
and `snapshot(live=True)` always asks (`diagnose --env`, where the install itself is in question).
"""
from __future__ import annotations

import importlib.util
import os
import sys
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from diagnoser import diskcache

SNAPSHOT_VERSION = 3  # bump when the cached fields change


@dataclass(frozen=True)
class Runtime:
    version: str | None  # None when onnxruntime cannot be imported
    providers: tuple[str, ...]
    kernels: tuple[tuple[str, str, str, int, int, dict[str, list[str]]], ...]  # provider, domain ("" = ai.onnx), op, first, last version, type constraints
    error: str | None  # "ImportError: ..." when `import onnxruntime` fails
    cached: bool  # read from the cache rather than from the runtime
    # onnxruntime's own copy of the operator schemas (it bundles an onnx release of its own):
    # domain ("" = ai.onnx), op, since_version, attribute names; empty when the build does not say
    schemas: tuple[tuple[str, str, int, tuple[str, ...]], ...] = ()
    # the newest IR version and ai.onnx opset this runtime loads, as its own refusals state them
    # (None when its message did not say, e.g. with ALLOW_RELEASED_ONNX_OPSET_ONLY=0)
    max_ir: int | None = None
    max_opset: int | None = None


def fingerprint() -> str | None:
    """The cache key of the installed runtime, or None when onnxruntime is not installed.

    Finds the packages without importing them (importlib.util.find_spec on a top-level name).
    """
    try:
        ort = importlib.util.find_spec("onnxruntime")
        numpy = importlib.util.find_spec("numpy")
    except (ImportError, ValueError):
        return None
    if ort is None or not ort.origin or not ort.submodule_search_locations:
        return None
    parts = [f"{SNAPSHOT_VERSION}", sys.version, sys.executable, ort.origin]
    for folder in ort.submodule_search_locations:
        parts += [diskcache.stat_key(folder), diskcache.stat_key(os.path.join(folder, "capi"))]
    if numpy is not None and numpy.submodule_search_locations:
        parts += [f"{d}|{diskcache.stat_key(d)}" for d in numpy.submodule_search_locations]
    return "\n".join(parts)


def _ask() -> Runtime:
    """Import onnxruntime here and ask it; any failure (ImportError, numpy ABI errors, a broken
    DLL) is the answer, not an exception."""
    try:
        import onnxruntime
        from onnxruntime.capi import _pybind_state as C

        version = str(onnxruntime.__version__)
        providers = tuple(onnxruntime.get_available_providers())
        defs = C.get_all_opkernel_def()
    except Exception as exc:
        return Runtime(None, (), (), f"{type(exc).__name__}: {exc}", cached=False)
    kernels = tuple((k.provider, "" if k.domain in ("", "ai.onnx") else k.domain, k.op_name,
                     int(k.version_range[0]), int(k.version_range[1]),
                     {t: list(v) for t, v in k.type_constraints.items()}) for k in defs)
    try:
        schemas = tuple(("" if s.domain in ("", "ai.onnx") else s.domain, s.name, int(s.since_version), tuple(sorted(s.attributes)))
                        for s in C.get_all_operator_schema())
    except Exception:  # a build without the schema API: schema checks are skipped, never guessed
        schemas = ()
    max_ir, max_opset = _measure_limits(onnxruntime)
    return Runtime(version, providers, kernels, None, cached=False, schemas=schemas, max_ir=max_ir, max_opset=max_opset)


_LIMITS = (("ir", r"max supported IR version: (\d+)"), ("opset", r"official support for domain ai\.onnx is till opset (\d+)"))


def _measure_limits(onnxruntime: Any) -> tuple[int | None, int | None]:
    """Ask the runtime which IR version and ai.onnx opset it reads, by handing it a one-node model
    stamped with a version no release reads: the refusal names the runtime's maximum. This is what
    the installed runtime really does, so it outranks any table (a release newer than the table,
    a nightly, a custom build)."""
    import re

    out: dict[str, int | None] = {}
    for key, pattern in _LIMITS:
        ir, opset = (1000, 7) if key == "ir" else (7, 1000)
        try:
            onnxruntime.InferenceSession(_tiny_model(ir, opset), providers=["CPUExecutionProvider"])
            out[key] = None  # accepted a stamp no release reads: nothing to learn
        except Exception as exc:
            m = re.search(pattern, str(exc))
            out[key] = int(m.group(1)) if m else None
    return out["ir"], out["opset"]


def _tiny_model(ir: int, opset: int) -> bytes:
    """Identity(float[1]) with the given stamps (built only when the snapshot is taken, once per install)."""
    from onnx import TensorProto, helper

    graph = helper.make_graph([helper.make_node("Identity", ["x"], ["y"])], "g",
                              [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1])],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1])])
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)], ir_version=ir).SerializeToString()


def _from_cache(value: Any) -> Runtime | None:
    try:
        kernels = tuple((p, d, o, int(a), int(b), dict(t)) for p, d, o, a, b, t in value["kernels"])
        schemas = tuple((d, o, int(v), tuple(a)) for d, o, v, a in value["schemas"])
        return Runtime(str(value["version"]), tuple(value["providers"]), kernels, None, cached=True, schemas=schemas,
                       max_ir=value["max_ir"], max_opset=value["max_opset"])
    except (KeyError, TypeError, ValueError):
        return None  # a damaged cache file: ask again


@lru_cache(maxsize=2)
def snapshot(live: bool = False) -> Runtime:
    """The installed runtime, from the cache when its fingerprint matches (unless live)."""
    key = fingerprint()
    if key and not live:
        cached = diskcache.load("runtime", key)
        if cached is not None:
            rt = _from_cache(cached)
            if rt is not None:
                return rt
    rt = _ask()
    if key and rt.error is None:
        diskcache.store("runtime", key, {"version": rt.version, "providers": list(rt.providers), "kernels": [list(k) for k in rt.kernels],
                                         "schemas": [[d, o, v, list(a)] for d, o, v, a in rt.schemas],
                                         "max_ir": rt.max_ir, "max_opset": rt.max_opset})
    return rt
