"""`diagnose audit DIR...` (and `diagnose --model DIR/`), and the CI outputs of one report
(`--format sarif|github`, `--fail-on`). Part of the CLI: prints and exits; the audit itself is
diagnoser.model.audit, the formats are diagnoser.renderers.{audit,sarif,github}.

Exit codes: 0 the audit ran (and, with --fail-on, nothing reached that severity), 1 a finding
reached the --fail-on severity, 2 usage error.
"""
from __future__ import annotations

import json
import os
import sys
import time
from pathlib import Path
from typing import Any

import click


def _fail(message: str) -> None:
    click.echo(f"diagnose: error: {message}", err=True)
    sys.exit(2)


def _version() -> str:
    try:
        from importlib.metadata import version

        return version("onnx-troubleshooter")
    except Exception:
        return "0"


def render_records(records: list[dict[str, Any]], fmt: str) -> str:
    if fmt == "sarif":
        from diagnoser.renderers import sarif

        return sarif.render(records, version=_version())
    from diagnoser.renderers import github

    return github.render(records)


def emit_single(report: Any, model: str | None, fmt: str, fail_on: str | None, rendered: str | None, code: int) -> None:
    """Print one report as SARIF/GitHub annotations (or as rendered), then exit by --fail-on
    (else with the CLI's usual code)."""
    from diagnoser.model import audit

    rec = audit.record(model, report)
    click.echo(render_records([rec], fmt) if fmt in ("sarif", "github") else rendered or "", nl=False)
    if fail_on:
        sys.exit(1 if audit.fails([rec], fail_on) else 0)
    sys.exit(code)


class _Progress:
    """A progress bar on stderr when it is a terminal (rich, a declared dependency); nothing in a pipe."""

    def __init__(self, total: int, enabled: bool):
        self.bar = None
        if enabled and total:
            from rich.console import Console
            from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn

            self.bar = Progress(TextColumn("auditing"), BarColumn(), MofNCompleteColumn(), TimeRemainingColumn(),
                                console=Console(stderr=True), transient=True)
            self.task = self.bar.add_task("audit", total=total)
            self.bar.start()

    def advance(self) -> None:
        if self.bar is not None:
            self.bar.advance(self.task)

    def stop(self) -> None:
        if self.bar is not None:
            self.bar.stop()


def audit_paths(paths: list[str], *, jobs: int | None = None, jsonl: bool = False, resume: str | None = None,
                probes: str = "all", providers: list[str] | None = None, timeout: float | None = None,
                fmt: str = "text", fail_on: str | None = None, progress: bool | None = None) -> None:
    from diagnoser.model import audit
    from kb.termtext import width

    models: list[Path] = []
    seen: set[str] = set()
    for p in paths:
        if not os.path.exists(p):
            _fail(f"no such file or folder: {p}")
        for m in audit.find_models(p):
            if audit.key(m) not in seen:
                seen.add(audit.key(m))
                models.append(m)
    if not models:  # a place with nothing to check is a usage error, like a path that does not exist
        _fail("no .onnx model in: " + ", ".join(paths))
    if jobs is not None and jobs < 1:
        _fail("--jobs wants a number of workers of at least 1")
    done = audit.read_done(resume) if resume else {}
    todo = [m for m in models if audit.key(m) not in done]
    old = [done[audit.key(m)] for m in models if audit.key(m) in done]
    sink = open(resume, "a", encoding="utf-8") if resume else None  # noqa: SIM115 (closed below)
    bar = _Progress(len(todo), sys.stderr.isatty() if progress is None else progress)

    def on_result(rec: dict[str, Any]) -> None:
        line = json.dumps(rec, ensure_ascii=False)
        if sink is not None:
            sink.write(line + "\n")
            sink.flush()
        if jsonl and fmt == "text":
            click.echo(line)
        bar.advance()

    options = audit.Options(probes=probes, providers=tuple(providers or ()), timeout=timeout)
    start = time.perf_counter()
    try:
        new = audit.run(todo, options, jobs=jobs, on_result=on_result)
    finally:
        bar.stop()
        if sink is not None:
            sink.close()
    took = time.perf_counter() - start
    records = sorted(old + new, key=lambda r: r["path"])
    from diagnoser.renderers import audit as renderer

    cols = width()
    table = renderer.summary(records, cols, took if new else None)
    if old:
        table = f"resumed: {len(old)} models already in {resume}, {len(new)} audited now\n" + table
    if fmt != "text":
        click.echo(render_records(records, fmt), nl=False)
        click.echo(table, nl=False, err=True)
    elif jsonl:
        click.echo(table, nl=False, err=True)
    else:
        body = [line for r in records for line in renderer.model_line(r, cols)]
        click.echo("\n".join(body) + ("\n\n" if body else "") + table, nl=False)
    sys.exit(1 if fail_on and audit.fails(records, fail_on) else 0)


@click.command(name="audit", context_settings={"help_option_names": ["-h", "--help"]})
@click.argument("paths", nargs=-1, required=True, metavar="DIR_OR_MODEL...")
@click.option("--jobs", "-j", type=int, metavar="N", help="Worker processes (default: the CPU count).")
@click.option("--jsonl", is_flag=True, help="One JSON line per model on stdout (the summary goes to stderr).")
@click.option("--resume", metavar="FILE", help="Skip models already in this JSONL file; append new results to it.")
@click.option("--probes", type=click.Choice(["static", "all"]), default="all", show_default=True, help="'static' skips creating a session per model.")
@click.option("--providers", metavar="A,B", help="Execution providers to check the models against, in order.")
@click.option("--timeout", type=float, metavar="SECONDS", help="Time limit per model (default: the session probe's limit + 90 s).")
@click.option("--format", "fmt", type=click.Choice(["text", "sarif", "github"]), default="text", show_default=True,
              help="sarif: SARIF 2.1.0 for code scanning; github: workflow annotations.")
@click.option("--fail-on", type=click.Choice(["error", "warning"]), help="Exit 1 when a finding of this severity or worse exists.")
@click.option("--progress/--no-progress", default=None, help="Progress bar on stderr (default: when stderr is a terminal).")
def command(paths, jobs, jsonl, resume, probes, providers, timeout, fmt, fail_on, progress) -> None:
    """Run the probes on every .onnx model under each DIR (or on each MODEL), in parallel."""
    provs = [p.strip() for p in providers.split(",") if p.strip()] if providers else []
    audit_paths(list(paths), jobs=jobs, jsonl=jsonl, resume=resume, probes=probes, providers=provs, timeout=timeout,
                fmt=fmt, fail_on=fail_on, progress=progress)
