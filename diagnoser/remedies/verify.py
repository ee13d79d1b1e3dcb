"""The one verification every repaired model passes before it is written (never per remedy).

1. onnx's checker with strict shape inference (full_check) on the saved candidate;
2. a CPU session of the candidate, run on synthesized or --shape-given inputs, in a subprocess
   with the session probe's time and memory limits (a crash is a failed verification, not ours);
3. the same inputs through the original model (onnxruntime, or onnx.reference where onnxruntime
   cannot load it) and, per output, the max absolute error and that error relative to the
   largest reference value, against a tolerance set by the dtype change.
"""
from __future__ import annotations

import os
import signal
import tempfile
from pathlib import Path
from typing import Any

from diagnoser.report import OutputError, Verification

# (atol, rtol): an output passes when max_abs <= atol + rtol * max|reference|
TOLERANCES: dict[str, tuple[float, float]] = {
    "exact": (0.0, 0.0),
    "float32": (1e-5, 1e-4),  # another engine or kernel order on the same dtypes
    "float16": (1e-3, 1e-2),  # float16 has 11 significant bits
    "bfloat16": (1e-2, 4e-2),  # bfloat16 has 8
}
ENGINE_FLOOR = "float32"  # the reference evaluator is not onnxruntime: never ask bit-equality of it


def _tolerance(name: str, reference: str | None) -> tuple[str, tuple[float, float] | None]:
    if name == "report":
        return name, None
    if name == "exact" and reference == "onnx.reference":
        name = ENGINE_FLOOR
    return name, TOLERANCES[name]


def check_static(path: Path) -> str:
    """'ok', or the first line of what onnx's checker / strict shape inference says."""
    import onnx

    try:
        onnx.checker.check_model(str(path), full_check=True)
    except Exception as exc:  # checker and inference errors alike: the text is the verdict
        text = str(exc).strip().splitlines()
        return f"{type(exc).__name__}: {text[0][:300] if text else ''}"
    return "ok"


def _input_kinds(model: Any) -> dict[str, str]:
    from diagnoser.model.graphinfo import dtype_name

    inits = {t.name for t in model.graph.initializer}
    return {i.name: dtype_name(i.type.tensor_type.elem_type) or "" for i in model.graph.input if i.name not in inits}


def run_child(candidate: Path, original: Path, original_proto: Any, shapes: dict[str, Any], timeout: float, limit: int) -> tuple[list[dict], int | None, str]:
    from diagnoser.model import isolated

    args = {"candidate": str(candidate), "original": str(original), "shapes": {k: list(v) for k, v in shapes.items()},
            "original_inputs": _input_kinds(original_proto)}
    return isolated.run_child(str(Path(__file__).with_name("_verify_child.py")), args, timeout, limit)


def save_candidate(model: Any, folder: Path, stem: str) -> Path:
    """Write the candidate where its relative external-data locations resolve (the output folder)."""
    import onnx

    fd, name = tempfile.mkstemp(prefix=f".{stem}.verify-", suffix=".onnx", dir=folder)
    os.close(fd)
    onnx.save_model(model, name)
    return Path(name)


def verify(candidate: Path, original: Path, original_proto: Any, tolerance: str, *, shapes: dict[str, Any] | None = None,
           timeout: float = 120.0, memory_mb: int | None = None, weights_bytes: int = 0) -> Verification:
    """Check, run and compare one saved candidate; the verdict says why it passes or fails."""
    static = check_static(candidate)
    if static != "ok":
        return Verification(False, "onnx's checker or strict shape inference rejects the repaired model", static, "not run", None, tolerance, None, None)
    limit = int(memory_mb) * 2**20 if memory_mb else 6 * 2**30 + 3 * (candidate.stat().st_size + weights_bytes)
    records, code, err = run_child(candidate, original, original_proto, shapes or {}, timeout, limit)
    last = records[-1] if records else {"stage": "start"}
    stage, used = last.get("stage"), last.get("shapes") or {}
    if code is None and stage == "ran":  # the repaired model ran; the original, as reference, did not finish in time
        exact = tolerance in ("exact", "report")
        return Verification(exact, f"the original did not finish running as a reference within {timeout:.0f} s, so outputs could not be compared"
                            + ("" if exact else "; a dtype change needs that comparison"), static, "ran", None, tolerance, None, None, shapes=used)
    if code is None:
        return Verification(False, f"the session hung (no answer in {timeout:.0f} s) and was killed", static, f"timeout while at stage {stage}", None, tolerance, None, None)
    if code < 0:
        sig = signal.Signals(-code).name if -code in signal.Signals._value2member_map_ else str(-code)
        return Verification(False, f"onnxruntime crashed ({sig}) at stage {stage}", static, f"crashed ({sig})", None, tolerance, None, None)
    if stage in ("create-failed", "run-failed", "synth-failed", "error", "oom") or stage != "compared":
        error = (last.get("error") or err.strip() or f"exit {code}").splitlines()[0][:300]
        what = {"create-failed": "onnxruntime cannot load the repaired model", "run-failed": "the repaired model loads but fails to run"}.get(stage, f"verification stopped at stage {stage}")
        return Verification(False, what, static, error, None, tolerance, None, None, shapes=used)
    reference = last.get("reference")
    if reference is None:
        return Verification(tolerance in ("exact", "report"), "the original runs neither in onnxruntime nor in onnx.reference, so outputs could not be compared"
                            + ("" if tolerance in ("exact", "report") else "; a dtype change needs that comparison"),
                            static, "ran", None, tolerance, None, None, shapes=used)
    name, tol = _tolerance(tolerance, reference)
    rows = tuple(_judge(r, tol) for r in last.get("outputs", []))
    bad = [r.name for r in rows if not r.ok]
    if tol is None:
        return Verification(True, "outputs shown for review, not gated: the remedy changes what the model computes", static, "ran", reference, name, None, None, used, rows)
    if bad:
        return Verification(False, f"output(s) {', '.join(bad[:5])} differ from the original beyond the {name} tolerance", static, "ran", reference, name, tol[0], tol[1], used, rows)
    return Verification(True, f"every output within the {name} tolerance of the original ({reference})", static, "ran", reference, name, tol[0], tol[1], used, rows)


def _judge(row: dict[str, Any], tol: tuple[float, float] | None) -> OutputError:
    max_abs, scale = row.get("max_abs"), row.get("scale")
    if max_abs is None:
        return OutputError(row["name"], row["dtype"], None, None, tol is None, row.get("note", ""))
    rel = max_abs / scale if scale else (0.0 if max_abs == 0 else float("inf"))
    if tol is None:
        return OutputError(row["name"], row["dtype"], max_abs, rel, True)
    atol, rtol = (0.0, 0.0) if row.get("integral") else tol
    return OutputError(row["name"], row["dtype"], max_abs, rel, max_abs <= atol + rtol * (scale or 0.0))
