"""Triage: an ONNX-family error that no entry explains, sorted out instead of shrugged at.

Which component raised it and at which stage (classify), what the text says about provider,
binding, op, node, status, exporter or converter (extract), the entries nearest to it and what
tells them apart, one or two next steps (steps), and with a model the named node's facts (model).
Text that is not about ONNX gets no triage: "no known problem" is then the honest answer.
"""
from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from diagnoser.report import Closest, Triage
from diagnoser.matching.text import _DECISIVE, core_view
from diagnoser.triage.classify import (COMPONENTS, STAGES, another_package_missing, component_of, is_onnx_family,
                                       matching_group, script_error, stage_of, without_benign_lines)
from diagnoser.triage.extract import extract
from diagnoser.triage import tools as registry
from diagnoser.triage.steps import next_steps

__all__ = ["COMPONENTS", "STAGES", "triage"]

_MAX_CLOSEST = 3
_MIN_CONFIDENCE = 0.05  # a candidate below this is no nearer than any other entry
_MIN_SIMILARITY = 0.45  # distinctive-word cosine: below it, shared words are boilerplate
_ERROR_LINES = 4
_HEADER = re.compile(r"Traceback \(most recent call last\):?$|During handling of the above exception|The above exception was the direct cause")


# a virtual environment's folder name in a path (conda's envs/NAME/, virtualenvwrapper's and poetry's
# virtualenvs/NAME/): the user's own choice, never a component's mark (an environment called onnx or
# onnx2tf whose PyTorch or MXNet fails is not about ONNX)
_ENV_NAME = re.compile(r"([/\\](?:envs|virtualenvs)[/\\])[\w.+-]{1,80}(?=[/\\])", re.I)


def _unspaced(text: str) -> str:
    """A log written as UTF-16 and read as 8-bit shows a space after every character (and the
    paste has lost the real word gaps): such lines are read with those spaces removed, so that the
    runtime's own words (sequential_executor.cc, ExecuteKernel) can be recognised at all."""
    out = []
    for line in text.split("\n"):
        parts = line.split()
        if len(parts) >= 24 and sum(len(p) == 1 for p in parts) >= 0.9 * len(parts):
            line = "".join(parts)
        out.append(line)
    return "\n".join(out)


def _error_lines(core: str) -> list[str]:
    """The last lines that read like an error (a traceback's message is at its end). A traceback's
    header says only that one follows: it is never the error, even when the message itself (with
    its wrapper stripped) has no error word, as in onnxruntime's 'Non-zero status code returned'."""
    lines = [ln for ln in core.split("\n") if ln.strip() and not _HEADER.match(ln.strip())]
    picked = [ln for ln in lines if _DECISIVE.search(ln) and not ln.startswith(("File ", "at "))]
    return (picked or lines)[-_ERROR_LINES:]


def _closest(ranked: Sequence[Any], index: Any, core: str) -> tuple[Closest, ...]:
    """Entries the matcher scored, else those whose examples share the most distinctive words."""
    out: list[Closest] = []
    for c in [c for c in ranked if c.confidence >= _MIN_CONFIDENCE][:_MAX_CLOSEST]:
        e = c.compiled.entry
        out.append(Closest(e.id, e.title, e.title_zh, round(c.confidence, 3), e.distinguish or e.title))
    if out or index is None:
        return tuple(out)
    from diagnoser.matching.similarity import best_by_entry

    sims = sorted(best_by_entry(index.vectors, core[-2000:].lower()).items(), key=lambda kv: -kv[1])
    for pos, sim in sims[:_MAX_CLOSEST]:
        if sim < _MIN_SIMILARITY:
            break
        e = index.entries[pos].entry
        out.append(Closest(e.id, e.title, e.title_zh, 0.0, e.distinguish or e.title))
    return tuple(out)


def triage(text: str, ranked: Sequence[Any] = (), index: Any = None, graph: Any = None) -> Triage | None:
    """The triage of text (normalised, see diagnoser.matching.text.prepare), or None when it is not about
    ONNX. ranked: the matcher's candidates, most likely first; graph: a GraphInfo for --model."""
    text = without_benign_lines(_unspaced(_ENV_NAME.sub(r"\1ENV", text)))
    if not text.strip() or not is_onnx_family(text) or registry.succeeded(text):
        return None
    core = core_view(text)
    lines = _error_lines(core)
    # the error lines as logged: the log prefix core_view strips names the function that failed
    # (ProviderSharedLibrary::Ensure, sequential_executor.cc ExecuteKernel), evidence on the same line
    logged = [ln for ln in text.split("\n") if any(e.strip() and e.strip() in ln and e.strip() != ln.strip() for e in lines)]
    error_lines = "\n".join(dict.fromkeys(lines + logged))
    if another_package_missing(text, error_lines):
        return None  # Python could not import another package: that package's problem, not ONNX's
    group = matching_group(text, error_lines)  # the phrase table, searched once
    if script_error(text, error_lines, group):
        return None  # the calling script's own Python mistake: the text only mentions ONNX
    component = component_of(text, error_lines, group)
    stage = stage_of(component, text, error_lines, group)
    facts = extract(text, error_lines, component)
    tool = registry.by_name(group.tool) if group is not None and group.tool and group.component == component else None
    tool = tool or registry.named(text, component)
    if tool is not None:
        facts["tool"] = tool.name
    node: dict[str, str] = {}
    if graph is not None and facts.get("node"):
        from diagnoser.triage.model import lookup

        try:
            node = lookup(graph, facts["node"])
        except Exception as exc:  # a model the probes could not read: say so, never fail the report
            node = {"error": f"the node could not be looked up: {type(exc).__name__}"}
    steps, steps_zh = next_steps(component, stage, facts, graph is not None)
    error = lines[-1] if lines else ""
    return Triage(
        component=component, stage=stage, error=error if len(error) <= 300 else error[:297] + "...",
        facts=facts, closest=_closest(ranked, index, core), next_steps=steps, next_steps_zh=steps_zh, node=node,
    )
