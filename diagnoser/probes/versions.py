"""IR and opset versions against the installed onnx, the installed onnxruntime and a target runtime.

The installed runtime is judged by what it really loads: the runtime snapshot (diagnoser/model/runtime.py)
holds the newest IR version and opset its own refusals name. A target named with --ort-version is
judged by diagnoser/data/versions.yaml, rows measured on real wheels: an exact row, else the newest
row below it (named in the finding); a release past the newest row is said to be past the data,
never predicted.
"""
from __future__ import annotations

from typing import Any

from diagnoser.model.datafiles import parse_version, row_for, table
from diagnoser.report import Finding

NAME = "versions"


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
    from diagnoser.model import runtime

    rt = runtime.snapshot()  # version None when broken: the environment probe reports that
    if rt.version:
        findings += _against_installed(rt, ir, opset)
    if ctx.ort_target:
        findings += _against_target(ctx.ort_target, rt, ir, opset)
    return findings


def _against_installed(rt: Any, ir: int, opset: int | None) -> list[Finding]:
    """The installed runtime's own measured limits win; the table only fills what it did not say."""
    row = row_for("onnxruntime", rt.version)
    max_ir = rt.max_ir if rt.max_ir is not None else (row[1]["ir"] if row else None)
    max_op = rt.max_opset if rt.max_opset is not None else (row[1]["opset"] if row else None)
    measured = rt.max_ir is not None and rt.max_opset is not None
    basis = "" if measured or row is None else f"(version table row {row[0]})"
    return _limits(ir, opset, max_ir, max_op, f"onnxruntime {rt.version}", "runtime", rt.version, basis)


def _against_target(release: str, rt: Any, ir: int, opset: int | None) -> list[Finding]:
    want = parse_version(release)[:2]
    if rt.version and parse_version(rt.version)[:2] == want and rt.max_ir is not None and rt.max_opset is not None:
        basis = f"(measured on the installed onnxruntime {rt.version})"
        return _limits(ir, opset, rt.max_ir, rt.max_opset, f"onnxruntime {release} (--ort-version)", "target", release, basis)
    newest = max(table("versions")["onnxruntime"], key=parse_version)
    if want > parse_version(newest)[:2]:
        return [Finding("version.past-table", "info",
                        f"onnxruntime {release} is newer than the newest release in the version table ({newest}): "
                        f"its IR and opset limits are not predicted; check with that release itself", NAME,
                        details={"onnxruntime": release, "newest_row": newest})]
    row = row_for("onnxruntime", release)
    if row is None:
        return [Finding("version.unknown-runtime", "info", f"no version table row for onnxruntime {release}", NAME)]
    key, limits = row
    basis = "" if parse_version(key)[:2] == want else f"(judged by the version table row {key}, the newest below it)"
    return _limits(ir, opset, limits["ir"], limits["opset"], f"onnxruntime {release} (--ort-version)", "target", release, basis)


def _limits(ir: int, opset: int | None, max_ir: int | None, max_op: int | None, who: str, which: str,
            release: str, basis: str) -> list[Finding]:
    out = []
    basis = f" {basis}" if basis else ""
    if max_ir is not None and ir > max_ir:
        out.append(Finding(f"ir.newer-than-{which}", "error",
                           f"the model's IR version {ir} is newer than {who} reads (at most IR {max_ir}){basis}: re-export with an older exporter, set model.ir_version, or upgrade onnxruntime",
                           NAME, details={"ir_version": ir, "max_ir_version": max_ir, "onnxruntime": release}))
    if opset is not None and max_op is not None and opset > max_op:
        out.append(Finding(f"opset.newer-than-{which}", "error",
                           f"the model's ai.onnx opset {opset} is newer than {who} supports (at most {max_op}){basis}: export with opset_version={max_op} or upgrade onnxruntime",
                           NAME, details={"opset": opset, "max_opset": max_op, "onnxruntime": release}))
    return out
