"""Probes: small checks on the model, each `applies(ctx)` and `run(ctx) -> list[Finding]`.

Registered in an explicit list (order is report order). A probe that raises becomes a
finding and the run goes on, like a failing rule in thefuck. Probes that share work (the
strict shape inference, the nodes grouped by op and dtypes) reach it through the context's cached views.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property
from types import ModuleType
from typing import TYPE_CHECKING, Any

from diagnoser.report import Finding

if TYPE_CHECKING:  # a text-only run imports this package for installed_versions alone
    from diagnoser.model.modelfile import LoadedModel


@dataclass
class ProbeContext:
    model: LoadedModel | None
    facts: dict[str, str] = field(default_factory=dict)
    providers: tuple[str, ...] = ()
    targets: dict[str, str] = field(default_factory=dict)  # provider -> target device named by the user (DmlExecutionProvider:npu)
    env: bool = False  # --env: the run is about this machine
    text: str = ""
    ort_target: str | None = None  # --ort-version: the runtime the model must also load on
    shapes: dict[str, tuple[int, ...]] = field(default_factory=dict)  # --shape name=1x3x224x224
    mode: str = "all"  # "static" skips the session probe
    session_timeout: float = 120.0
    session_memory_mb: int | None = None
    findings: list[Finding] = field(default_factory=list)  # what earlier probes found, in order

    @cached_property
    def graph(self) -> Any:
        from diagnoser.model.graphinfo import GraphInfo

        assert self.model is not None
        return GraphInfo(self.model.proto, self.for_onnx[0])

    @cached_property
    def for_onnx(self) -> tuple[Any, list[Any]]:
        """What onnx's C++ checker and shape inference are given, and the embedded weights left
        out of it: the file's bytes when the loader kept them and no weight is external, else a
        light copy (diagnoser.model.weights): big embedded weights left out, small external ones read in."""
        from diagnoser.model import weights

        assert self.model is not None
        if self.model.raw is not None and not self.external:
            return self.model.raw, []
        light, left_out = weights.light_copy(self.model.proto)
        if self.external:
            weights.inline_small_external(light, self.model.path.parent)
        return light, left_out

    @cached_property
    def groups(self) -> list[Any]:
        """Every node, grouped by op and dtype signature (graphinfo.OpGroup): the one node walk."""
        from diagnoser.model.graphinfo import op_groups

        return op_groups(self.graph)

    @cached_property
    def external(self) -> list[Any]:
        """Tensors whose data lives in external files (one pass, shared by the probes)."""
        from diagnoser.model.weights import external_tensors

        assert self.model is not None
        return external_tensors(self.model.proto.graph, self.model.raw)

    def found(self, *codes: str) -> bool:
        return any(f.code in codes for f in self.findings)


def registered() -> tuple[ModuleType, ...]:
    from diagnoser.probes import (
        checker, cpu_kernels, dml_npu, domains, dtypes, environment, external_data, model_size,
        node_types, providers, runtime_schema, session, shape_inference, training_mode, versions,
    )

    return (environment, external_data, model_size, versions, checker, shape_inference, dtypes,
            node_types, cpu_kernels, runtime_schema, training_mode, domains, providers, dml_npu, session)


def static() -> tuple[ModuleType, ...]:
    return tuple(p for p in registered() if not getattr(p, "DYNAMIC", False))


def run_all(ctx: ProbeContext, probes: tuple[ModuleType, ...] | None = None) -> list[Finding]:
    for probe in probes if probes is not None else registered():
        name = probe.__name__.rsplit(".", 1)[-1]
        try:
            if probe.applies(ctx):
                ctx.findings.extend(probe.run(ctx))
        except Exception as exc:  # a probe bug must not cost the user the rest of the report
            ctx.findings.append(Finding("probe.failed", "warning", f"probe {name} failed: {type(exc).__name__}: {exc}", name))
    return list(ctx.findings)
