"""The session probe: create an onnxruntime session for the requested (installed) providers and
run it once on synthesized inputs, in a subprocess with a time and memory limit.

An error, a crash (segfault, abort) or a hang becomes a finding; the runtime's own error text
goes back through the matcher (details["error_text"]). A failure that needs synthesized inputs
to show is reported as such, as a warning, never as a confident diagnosis. Once a run succeeds,
the declared dynamic dimensions are tried at another size (batch 2, the others doubled): a model
that works at one size only is session.fixed-size (see _fixed_size.py). When every
everyday size fails, sizes frozen in the model's shape constants are tried (diagnoser.model.baked).
"""
from __future__ import annotations

import os
import signal
from typing import Any

from diagnoser.report import Finding

NAME = "session"
DYNAMIC = True  # skipped by --probes static
_OOM = ("bad_alloc", "bad allocation", "MemoryError", "Failed to allocate memory", "std::bad_alloc")


def applies(ctx: Any) -> bool:
    return ctx.model is not None and ctx.mode == "all"


def memory_limit(ctx: Any) -> int:
    """Bytes of address space the child may use: room for the runtime plus a few copies of the weights."""
    if ctx.session_memory_mb:
        return int(ctx.session_memory_mb) * 2**20
    ext = next((f for f in ctx.findings if f.code == "external-data.present"), None)
    weights = ctx.model.size + (int(ext.details.get("bytes", 0)) if ext else 0)
    return 6 * 2**30 + 3 * weights


def _providers(ctx: Any) -> tuple[list[str], list[str]]:
    available = next((f.details.get("providers", []) for f in ctx.findings if f.code == "env.versions"), None)
    asked = list(ctx.providers) or ["CPUExecutionProvider"]
    if available is None:
        return asked, []
    use = [p for p in asked if p in available]
    skipped = [p for p in asked if p not in available]
    return (use or ["CPUExecutionProvider"]), skipped


def child(ctx: Any, providers: list[str], timeout: float, limit: int) -> tuple[list[dict], int | None, str]:
    """Run the child; return its stage records, its return code (None on timeout) and its stderr tail."""
    from diagnoser.model.isolated import run_child

    args = {"model": str(ctx.model.path), "providers": providers, "run": True,
            "shapes": {k: list(v) for k, v in ctx.shapes.items()}, "hints": _hints(ctx)}
    script = os.path.join(os.path.dirname(os.path.abspath(__file__)), "_session_child.py")
    return run_child(script, args, timeout, limit, tail=3000)


def _hints(ctx: Any) -> list[int]:
    """Sizes to try when every everyday size fails: literals frozen next to computed sizes."""
    from diagnoser.model import baked

    try:
        return baked.size_hints(ctx.model.proto.graph)
    except Exception:  # a hint is a help, never a reason to lose the session
        return []


_VARY = ("vary", "vary-ran", "vary-failed")


def _oom(error: str) -> bool:
    return any(s in error for s in _OOM)


def run(ctx: Any) -> list[Finding]:
    if ctx.found("external-data.escapes-folder"):
        return [Finding("session.skipped", "info", "no session was created: the model points to external data outside its folder", NAME)]
    providers, skipped = _providers(ctx)
    limit = memory_limit(ctx)
    records, code, err = child(ctx, providers, ctx.session_timeout, limit)
    varied = [r for r in records if r.get("stage") in _VARY]
    main = [r for r in records if r.get("stage") not in _VARY]
    last = main[-1] if main else {"stage": "start"}
    if last.get("stage") == "ran" and code != 0:
        code = 0  # the model ran; only a run at another size hung, crashed or ran out of memory
        varied = [r for r in varied if r.get("stage") != "vary-failed" or not _oom(r.get("error", ""))]
    stage = last.get("stage")
    where = {"import": "importing onnxruntime", "create": "creating the session", "run": "running the model"}.get(stage, stage)
    base = {"providers": providers, "skipped_providers": skipped, "memory_limit_mb": limit // 2**20}
    if code is None:
        return [Finding("session.timeout", "warning", f"the session hung while {where} (no answer in {ctx.session_timeout:.0f} s); it was killed", NAME, details={**base, "stage": stage})]
    error = last.get("error", "") or ("" if stage == "ran" else err)
    if _oom(error) or stage == "oom":
        return [Finding("session.out-of-memory", "warning",
                        f"the session ran out of memory while {where} under the probe's limit of {limit // 2**20} MiB: {error.splitlines()[0][:200] if error else ''}",
                        NAME, details={**base, "stage": stage, "error_text": error[:4000]})]
    if code < 0:
        sig = signal.Signals(-code).name if -code in signal.Signals._value2member_map_ else str(-code)
        return [Finding("session.crashed", "error", f"onnxruntime crashed ({sig}) while {where} with {', '.join(providers)}; stderr: {err.strip().splitlines()[-1][:200] if err.strip() else '(empty)'}",
                        NAME, details={**base, "stage": stage, "signal": sig, "error_text": err[-3000:]})]
    if stage == "create-failed":
        return [Finding("session.create-failed", "error", f"onnxruntime cannot create a session with {', '.join(providers)}: {error.splitlines()[0][:400]}",
                        NAME, details={**base, "error_text": error[:4000]})]
    if stage == "run-failed":
        synth = "synthesized inputs" + (" (dynamic dims filled in)" if last.get("synthetic") else "")
        shapes = ", ".join(f"{k}={'x'.join(map(str, v))}" for k, v in (last.get("shapes") or {}).items())
        return [Finding("session.run-failed", "warning",
                        f"the session loads, but running it once on {synth} [{shapes}] fails: {error.splitlines()[0][:300]}. This may be the inputs, not the model: retry with --shape",
                        NAME, details={**base, "error_text": error[:4000], "shapes": last.get("shapes"), "synthetic": last.get("synthetic")})]
    if stage in ("synth-failed", "error", "import", "create", "run") or code != 0:
        return [Finding("session.probe-error", "warning", f"the session probe could not finish ({stage}): {error.strip().splitlines()[-1][:300] if error.strip() else 'exit ' + str(code)}",
                        NAME, details={**base, "stage": stage, "error_text": error[:4000]})]
    findings = []
    created = next((r for r in records if r.get("stage") == "created"), {})
    used = created.get("providers", [])
    dropped = [p for p in providers if p not in used]
    if dropped:
        findings.append(Finding("session.provider-fallback", "warning", f"asked for {', '.join(providers)}, the session uses {', '.join(used)}: {', '.join(dropped)} dropped out", NAME, details={**base, "used": used}))
    shapes = ", ".join(f"{k}={'x'.join(map(str, v))}" for k, v in (last.get("shapes") or {}).items())
    hint = f"; it ran only at a size read from the model's shape constants ({last['hint']}), every everyday size failed" if last.get("hint") else ""
    findings.append(Finding("session.ok", "info", f"a session with {', '.join(used)} loads and runs once on synthesized inputs ({shapes or 'no inputs'}){hint}",
                            NAME, details={**base, "used": used, "outputs": last.get("outputs"), "shapes": last.get("shapes"),
                                           "other_sizes": [r.get("stage") for r in varied if r.get("stage") != "vary"] or ("timeout" if varied else None)}))
    from diagnoser.probes._fixed_size import fixed_size

    findings += fixed_size(ctx, varied, last, base)
    if skipped:
        findings.append(Finding("session.provider-not-installed", "info", f"not tried: {', '.join(skipped)} (not available in this onnxruntime); the session used {', '.join(providers)}", NAME, details=base))
    return findings
