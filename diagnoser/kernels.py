"""Which kernels the installed onnxruntime registers, per provider, op, version and type."""
from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache


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
    from onnxruntime.capi import _pybind_state as C

    table: dict[tuple[str, str], list[KernelDef]] = {}
    for k in C.get_all_opkernel_def():
        domain = "" if k.domain in ("", "ai.onnx") else k.domain
        kd = KernelDef(k.provider, domain, k.op_name, k.version_range[0], k.version_range[1],
                       {t: tuple(v) for t, v in k.type_constraints.items()})
        table.setdefault((domain, k.op_name), []).append(kd)
    return {key: tuple(v) for key, v in table.items()}


def ort_version() -> str:
    import onnxruntime

    return onnxruntime.__version__


def kernel_for(provider: str, domain: str, op: str, version: int, bound: dict[str, str]) -> KernelDef | None:
    """A kernel of provider for op at version that accepts the bound type parameters.

    bound maps type parameter (e.g. "T") to the node's tensor type (e.g. "tensor(float16)").
    """
    for kd in registry().get((domain, op), ()):
        if kd.provider != provider or not kd.start <= version <= kd.end:
            continue
        if all(t not in kd.types or ty in kd.types[t] for t, ty in bound.items()):
            return kd
    return None


def op_known(provider: str, domain: str, op: str) -> bool:
    return any(kd.provider == provider for kd in registry().get((domain, op), ()))
