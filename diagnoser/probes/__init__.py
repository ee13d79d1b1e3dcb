"""Probes: small checks on the model, each `applies(ctx)` and `run(ctx) -> list[Finding]`.

Registered in an explicit list (order is report order). A probe that raises becomes a
finding and the run goes on, like a failing rule in thefuck.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property
from types import ModuleType
from typing import Any

from diagnoser.modelfile import LoadedModel
from diagnoser.report import Finding


@dataclass
class ProbeContext:
    model: LoadedModel | None
    facts: dict[str, str] = field(default_factory=dict)
    providers: tuple[str, ...] = ()
    text: str = ""

    @cached_property
    def graph(self) -> Any:
        from diagnoser.graphinfo import GraphInfo

        assert self.model is not None
        return GraphInfo(self.model.proto)


def registered() -> tuple[ModuleType, ...]:
    from diagnoser.probes import dml_npu, node_types

    return (node_types, dml_npu)


def run_all(ctx: ProbeContext, probes: tuple[ModuleType, ...] | None = None) -> list[Finding]:
    findings: list[Finding] = []
    for probe in probes if probes is not None else registered():
        name = probe.__name__.rsplit(".", 1)[-1]
        try:
            if probe.applies(ctx):
                findings.extend(probe.run(ctx))
        except Exception as exc:  # a probe bug must not cost the user the rest of the report
            findings.append(Finding("probe.failed", "warning", f"probe {name} failed: {type(exc).__name__}: {exc}", name))
    return findings
