"""IR and opset versions against the installed onnx, the installed onnxruntime and a target runtime.

Limits come from diagnoser/data/versions.yaml; an installed runtime missing from the table is
asked directly (in a subprocess, with a tiny model) rather than guessed.
"""
from __future__ import annotations

import json
import subprocess
import sys
from functools import lru_cache
from typing import Any

from diagnoser.datafiles import row_for, table
from diagnoser.report import Finding

NAME = "versions"

_MEASURE = r"""
import json, re, sys
import onnx, onnxruntime as ort
from onnx import helper
ir, op = int(sys.argv[1]), int(sys.argv[2])
def tiny(ir, op):
    g = helper.make_graph([helper.make_node("Identity", ["x"], ["y"])], "g",
                          [helper.make_tensor_value_info("x", 1, [1])], [helper.make_tensor_value_info("y", 1, [1])])
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", op)]); m.ir_version = ir
    return m.SerializeToString()
out = {}
for key, args, pat in (("ir", (ir, 7), r"max supported IR version: (\d+)"), ("opset", (8, op), r"till opset (\d+)")):
    try:
        ort.InferenceSession(tiny(*args), providers=["CPUExecutionProvider"])
    except Exception as exc:
        m = re.search(pat, str(exc))
        out[key] = int(m.group(1)) if m else None
print(json.dumps(out))
"""


@lru_cache(maxsize=8)
def measured_runtime_limits(ir: int, opset: int) -> dict[str, int | None]:
    """Ask the installed onnxruntime whether it loads this IR and opset; {} keys absent mean yes."""
    try:
        cp = subprocess.run([sys.executable, "-c", _MEASURE, str(ir), str(opset)], capture_output=True, text=True, timeout=60)
        return json.loads(cp.stdout.strip().splitlines()[-1])
    except Exception:
        return {}


def applies(ctx: Any) -> bool:
    return ctx.model is not None


def run(ctx: Any) -> list[Finding]:
    import onnx

    proto = ctx.model.proto
    ir = proto.ir_version
    opset = ctx.graph.opsets.get("")
    findings: list[Finding] = []
    details = {"ir_version": ir, "opset": opset}
    if ir > onnx.IR_VERSION or (opset or 0) > onnx.defs.onnx_opset_version():
        findings.append(Finding("version.newer-than-onnx", "warning",
                                f"the model (IR {ir}, opset {opset}) is newer than the installed onnx {onnx.__version__} knows (IR {onnx.IR_VERSION}, opset {onnx.defs.onnx_opset_version()}): checker and shape inference may reject valid parts; upgrade onnx",
                                NAME, details={**details, "onnx": onnx.__version__}))
    if opset is not None and opset < table("versions")["min_opset_onnxruntime"]:
        findings.append(Finding("opset.older-than-runtime", "warning",
                                f"the model's ai.onnx opset {opset} is older than 7, the oldest onnxruntime supports: ops whose old versions have no kernel fail with NOT_IMPLEMENTED; convert it with onnx.version_converter",
                                NAME, details=details))
    from diagnoser import runtime

    installed = runtime.snapshot().version  # None when broken: the environment probe reports that
    if installed:
        findings += _against(installed, ir, opset, "runtime", measure=True)
    if ctx.ort_target:
        findings += _against(ctx.ort_target, ir, opset, "target", measure=False)
    return findings


def _against(release: str, ir: int, opset: int | None, which: str, measure: bool) -> list[Finding]:
    row = row_for("onnxruntime", release)
    if row is None:
        return [Finding("version.unknown-runtime", "info", f"no version table row for onnxruntime {release}", NAME)]
    key, limits = row
    max_ir, max_op = limits["ir"], limits["opset"]
    exact = key == ".".join(release.split(".")[:2])
    if measure and not exact and (ir > max_ir or (opset or 0) > max_op):
        got = measured_runtime_limits(ir, opset or 7)
        max_ir = got.get("ir") or max(ir, max_ir)
        max_op = got.get("opset") or max(opset or 0, max_op)
        key = release
    who = f"onnxruntime {release}" + ("" if which == "runtime" else " (--ort-version)")
    basis = f"(table row {key})" if key != release else ""
    out = []
    if ir > max_ir:
        out.append(Finding(f"ir.newer-than-{which}", "error",
                           f"the model's IR version {ir} is newer than {who} reads (at most IR {max_ir}) {basis}: re-export with an older exporter, set model.ir_version, or upgrade onnxruntime".replace("  ", " "),
                           NAME, details={"ir_version": ir, "max_ir_version": max_ir, "onnxruntime": release}))
    if opset is not None and opset > max_op:
        out.append(Finding(f"opset.newer-than-{which}", "error",
                           f"the model's ai.onnx opset {opset} is newer than {who} supports (at most {max_op}) {basis}: export with opset_version={max_op} or upgrade onnxruntime".replace("  ", " "),
                           NAME, details={"opset": opset, "max_opset": max_op, "onnxruntime": release}))
    return out
