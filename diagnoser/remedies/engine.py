"""Apply the remedies the diagnoses name, each verified before the next builds on it, and write
the result beside the input (never over it). Nothing is written unless a remedy passed."""
from __future__ import annotations

import os
from functools import lru_cache
from pathlib import Path
from types import ModuleType
from typing import Any

from diagnoser.errors import UserInputError
from diagnoser.remedies import FixContext, RemedyError, RemedyResult, by_name, copy_model
from diagnoser.remedies.verify import save_candidate, verify
from diagnoser.report import FixOutcome, RemedyRecord

_ORDER = ("exact", "float32", "float16", "bfloat16", "report")


def default_output(path: Path) -> Path:
    """m.onnx -> m.fixed.onnx, beside the input."""
    return path.with_name(f"{path.stem}.fixed{path.suffix or '.onnx'}")


def check_output(src: Path, out: Path, external: bool, data_files: tuple[Path, ...] = ()) -> None:
    if out.resolve() == src.resolve():
        raise UserInputError(f"the fixed model would overwrite the input {src}: choose another -o")
    if out.resolve() in {p.resolve() for p in data_files} or out.with_name(out.name + ".data").resolve() in {p.resolve() for p in data_files}:
        raise UserInputError(f"the fixed model (or its .data file) would overwrite the model's external data {out.name}: choose another -o")
    if out.is_dir():
        raise UserInputError(f"-o names a directory, not a file: {out}")
    if not out.parent.is_dir():
        raise UserInputError(f"the folder of -o does not exist: {out.parent}")
    if external and out.parent.resolve() != src.parent.resolve():
        raise UserInputError(f"{src.name} keeps weights in external files, which the fixed model refers to by relative path: write it in the same folder ({src.parent})")


def _worse(a: str, b: str) -> str:
    return a if _ORDER.index(a) >= _ORDER.index(b) else b


@lru_cache(maxsize=1)
def _titles() -> dict[str, dict[str, str]]:
    from kb.paths import entries_dir
    from kb.remedies import load_remedies

    return load_remedies(entries_dir())


def _record(mod: ModuleType, entries: tuple[str, ...], status: str, message: str, res: RemedyResult | None = None,
            grade: str | None = None, verification: Any = None) -> RemedyRecord:
    spec = _titles().get(mod.NAME, {})
    return RemedyRecord(mod.NAME, grade or mod.GRADE, entries, status, message,
                        tuple(res.changes) if res is not None else (), verification,
                        spec.get("title", ""), spec.get("title_zh", ""))


def run(path: Path, proto: Any, ctx: FixContext, wanted: dict[str, tuple[str, ...]], output: Path, *, unsafe: bool = False,
        timeout: float = 120.0, memory_mb: int | None = None, weights_bytes: int = 0) -> FixOutcome:
    """wanted: remedy name -> the entries that name it. Remedies run in the registry's order, each
    verified on the model the previous ones left. A remedy whose result fails only because another
    problem is still there (an opset added to a graph not yet sorted) stays pending: the next
    remedy is applied on top of it, and if that passes, both are applied, verified together."""
    registry = by_name()
    current, tolerance = copy_model(proto), "exact"
    records: dict[str, RemedyRecord] = {}
    pending: list[tuple[ModuleType, tuple[str, ...], RemedyResult, str, Any, str]] = []  # failed, retried in combination
    passed: Path | None = None

    def attempt(mod: ModuleType, res: RemedyResult, tol: str) -> tuple[Path | None, Any]:
        candidate = _save(res, output)
        check = verify(candidate, path, proto, tol, shapes=ctx.shapes, timeout=timeout, memory_mb=memory_mb, weights_bytes=weights_bytes)
        if not check.passed:
            _remove(candidate, res, output)
            return None, check
        return candidate, check

    try:
        for name, mod in registry.items():
            if name not in wanted:
                continue
            entries = wanted[name]
            base = pending[-1][2].model if pending else current
            try:
                res = mod.apply(copy_model(base), ctx)
            except RemedyError as exc:
                records[name] = _record(mod, entries, "failed", str(exc))
                continue
            except Exception as exc:  # a remedy bug must not cost the user the others
                records[name] = _record(mod, entries, "error", f"remedy {name} failed: {type(exc).__name__}: {exc}")
                continue
            if not res.changes:
                records[name] = _record(mod, entries, "not-needed", res.note or "nothing in this model for it to change")
                continue
            grade = res.grade or mod.GRADE
            if grade == "review" and not unsafe:
                records[name] = _record(mod, entries, "needs-unsafe", (res.note + "; " if res.note else "") + "graded 'review' (it changes what the model computes, or guesses): run again with --unsafe-fixes to apply it", res, grade)
                continue
            tol = _worse(pending[-1][5] if pending else tolerance, res.tolerance or mod.TOLERANCE)
            candidate, check = attempt(mod, res, tol)
            together = [p[0].NAME for p in pending]
            if candidate is None and pending:  # the combination failed: this remedy alone, on the last verified model
                alone = mod.apply(copy_model(current), ctx)
                if alone.changes:
                    res, tol = alone, _worse(tolerance, alone.tolerance or mod.TOLERANCE)
                    candidate, check = attempt(mod, res, tol)
                    together = []
                    if candidate is not None:
                        pending.clear()
            if candidate is None:
                why = check.reason + (f" ({check.checker})" if check.checker != "ok" else "")
                records[name] = _record(mod, entries, "failed", "verification failed: " + why, res, grade, check)
                if not res.writes_weights:
                    pending.append((mod, entries, res, grade, check, tol))
                continue
            if passed is not None:
                passed.unlink(missing_ok=True)
            passed, current, tolerance = candidate, res.model, tol
            for pmod, pentries, pres, pgrade, _, _ in pending:
                records[pmod.NAME] = _record(pmod, pentries, "applied", f"applied; verified together with {name} (alone it failed: {records[pmod.NAME].message})",
                                             pres, pgrade, check)
            pending.clear()
            note = f"applied on top of {', '.join(together)}, verified together" if together else (res.note or "applied and verified")
            records[name] = _record(mod, entries, "applied", note, res, grade, check)
        records = {n: records[n] for n in registry if n in records}  # registry order
        if passed is None:
            return FixOutcome(str(path), None, tuple(records.values()), unsafe)
        os.replace(passed, output)
        passed = None
        mask = os.umask(0)
        os.umask(mask)
        os.chmod(output, 0o666 & ~mask)  # mkstemp made it private
        return FixOutcome(str(path), str(output), tuple(records.values()), unsafe)
    finally:
        if passed is not None:
            passed.unlink(missing_ok=True)


def _save(res: RemedyResult, output: Path) -> Path:
    if res.writes_weights:
        import onnx

        target = output.with_name(f".{output.stem}.verify-{os.getpid()}.onnx")
        onnx.save_model(res.model, str(target), save_as_external_data=True, all_tensors_to_one_file=True,
                        location=output.name + ".data", size_threshold=1024)
        return target
    return save_candidate(res.model, output.parent, output.stem)


def _remove(candidate: Path, res: RemedyResult, output: Path) -> None:
    candidate.unlink(missing_ok=True)
    if res.writes_weights:
        output.with_name(output.name + ".data").unlink(missing_ok=True)
