"""What the probes saw fail, put first: a failing model is never "no known problem".

A probe error (the file itself, the session, the checker, shape inference, a crash, a timeout,
a probe of ours that broke) leads the report. When an entry explains the runtime's own words it
is a diagnosis and leads by itself; otherwise these are the lead: the failure, its stage, and the
facts of the node it names. `Failure` is the structured form a text triage can be attached to.
"""
from __future__ import annotations

import re
from typing import Any

from diagnoser.errors import UserInputError
from diagnoser.report import Failure, Finding

# finding code -> the stage that failed, as a user reads it
_STAGES = {
    "session.create-failed": "creating an onnxruntime session",
    "session.crashed": "onnxruntime (crash)",
    "session.timeout": "onnxruntime (hang)",
    "session.out-of-memory": "onnxruntime (out of memory)",
    "session.run-failed": "running the model once",
    "session.fixed-size": "running at another size of a dynamic dimension",
    "checker.invalid": "onnx.checker",
    "shape.inference-error": "onnx shape inference",
    "probe.failed": "a probe of this tool",
}
_NODE = (
    re.compile(r"Node \((?P<node>[^)\n]{1,300})\) Op \((?P<op>\w{1,60})\)"),
    re.compile(r"\(op_type:(?P<op>\w{1,60}), node name: (?P<node>[^)\n]{1,300})\)"),
)


def file_finding(exc: UserInputError) -> Finding:
    """A file that is not a usable model (empty, truncated, an LFS pointer, a checkpoint, no IR
    version) is the diagnosis the user came for, not a usage error."""
    message = re.sub(r"\s*\[file\.[a-z0-9-]+\]$", "", str(exc))
    return Finding(str(exc.code), "error", message, "file", details={"error_text": message})


# predictions for another machine or target, and facts about this machine, are not the model failing
_ELSEWHERE = frozenset({"environment", "providers", "dml_npu"})


def is_failure(f: Finding) -> bool:
    if f.probe in _ELSEWHERE or f.code.startswith("env."):
        return False
    return f.severity == "error" or f.code in _STAGES


def failures(findings: list[Finding] | tuple[Finding, ...], graph: Any = None) -> list[Failure]:
    """The failures among the findings, errors of the runtime first, each with its node's facts."""
    out = []
    for f in findings:
        if not is_failure(f):
            continue
        text = str(f.details.get("error_text") or f.message)
        out.append(Failure(f.code, _STAGES.get(f.code, f.probe), core_line(text), node_facts(text, f.node, graph)))
    order = list(_STAGES)
    out.sort(key=lambda x: order.index(x.code) if x.code in order else len(order))
    return out


_STATUS = re.compile(r"\[ONNXRuntimeError\] : \d+ : \w+ : ")
_NOISE = re.compile(r"(?:\S+\.(?:h|cc|cpp|hpp):\d+\s*)|(?:\w+(?:::~?\w+)+\([^()]*(?:\([^()]*\)[^()]*)*\)(?: const)?(?: \[with [^\]]*\])?\s*)")


def unexplained(found: list[Failure], cands: list[Any], findings: list[Finding]) -> list[Failure]:
    """The failures no ranked entry speaks for, and none of the checker's or shape inference's
    once onnxruntime has loaded and run the model (it tolerates what they complain about)."""
    from diagnoser.matching.provenance import SOURCES

    ran = any(f.code == "session.ok" for f in findings)
    out = []
    for f in found:
        if ran and f.code in ("checker.invalid", "shape.inference-error"):
            continue
        voice = SOURCES.get(f.code)
        if any(ev.effect > 0 and ((ev.kind == "finding" and ev.detail.startswith(f.code + ":")) or (voice and ev.source == voice))
               for c in cands for ev in c.evidence):
            continue
        out.append(f)
    return out


def core_line(text: str) -> str:
    """The words that say what went wrong: after the last onnxruntime status prefix, without
    source paths and C++ signatures, on one line."""
    core = _STATUS.split(" ".join(text.split()))[-1]
    core = re.sub(r"^Load model from .{1,400}? failed: ?", "", core)
    core = _NOISE.sub("", core).strip() or " ".join(text.split())
    return core if len(core) <= 300 else core[:297] + "..."


def node_facts(text: str, named: str | None, graph: Any) -> dict[str, str]:
    """The node the failure names (in its text, or the finding's node), with its op and the dtype,
    shape and origin of each input when the model has it."""
    from diagnoser.matching import facts

    found = {k: v for k, v in facts.extract(text).items() if k in ("node", "op")}
    for rx in _NODE:
        m = rx.search(text)
        if m:
            for k, v in m.groupdict().items():
                found.setdefault(k, v)
    if named and "node" not in found:
        found["node"] = named
    if graph is None:
        return found
    try:
        if "node" not in found:
            _by_op(text, graph, found)
        node = graph.find_node(found["node"]) if "node" in found else None
        if node is None:
            return found
        found["op"] = (node.domain + "." if node.domain else "") + node.op_type
        since = graph.since_version(node)
        if since:
            found["op_version"] = str(since)
        shapes = _shapes(graph.inferred.graph)
        for i, name in enumerate(node.input):
            if name:
                v = graph.values.get(name)
                dims = shapes.get(name)
                shape = "x".join(dims) if dims is not None else "?"
                found[f"input{i}"] = f"{name}: {(v.dtype if v else None) or '?'} [{shape}] ({v.origin if v else 'unknown origin'})"
    except Exception:  # facts are a help, never a reason to lose the report
        return found
    return found


def _by_op(text: str, graph: Any, found: dict[str, str]) -> None:
    """No node named: when the text names exactly one op type of the model ("in the Resize
    operator"), the node is that op's, if the model has only one of it."""
    from diagnoser.model.graphinfo import walk_nodes

    nodes: dict[str, list[Any]] = {}
    for n in walk_nodes(graph.proto.graph):
        nodes.setdefault(n.op_type, []).append(n)
    named = [op for op in nodes if len(op) > 2 and re.search(rf"\b{re.escape(op)}\b", text)]
    if len(named) == 1:
        found["op"] = named[0]
        if len(nodes[named[0]]) == 1 and nodes[named[0]][0].name:
            found["node"] = nodes[named[0]][0].name


def _shapes(g: Any) -> dict[str, list[str]]:
    out = {}
    for vi in [*g.input, *g.value_info, *g.output]:
        t = vi.type.tensor_type
        if t.HasField("shape"):
            out[vi.name] = [str(d.dim_value) if d.HasField("dim_value") else (d.dim_param or "?") for d in t.shape.dim]
    for init in g.initializer:
        out[init.name] = [str(d) for d in init.dims]
    return out


def lead_notes(found: list[Failure]) -> list["Note"]:
    """The note a broken probe of ours leaves: what it checks was not checked."""
    broken = [f for f in found if f.code == "probe.failed"]
    if not broken:
        return []
    names = ", ".join(sorted({b.error.split(":", 1)[0].removeprefix("probe ").removesuffix(" failed") for b in broken}))
    from diagnoser.notes import incomplete

    return [incomplete(names)]
