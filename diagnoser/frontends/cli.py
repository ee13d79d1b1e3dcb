"""`diagnose`: the only module that parses arguments, prints and exits.

Exit codes: 0 something was diagnosed, 1 nothing matched, 2 usage error or unreadable input,
3 an internal error (a bug in this tool, reported as such).
"""
from __future__ import annotations

import re
import sys
from pathlib import Path
from typing import NoReturn

import click

MAX_INPUT_BYTES = 256 * 1024 * 1024


def _fail(message: str, code: int = 2) -> NoReturn:
    click.echo(f"diagnose: error: {message}", err=True)
    sys.exit(code)


def _see_also(code: str | None) -> str:
    """Point a one-line input error at the entries that explain it (`kb show OT0400`)."""
    if not code:
        return ""
    from diagnoser.matching.index import default_index

    ids = [ce.entry.id for ce in default_index().entries if code in ce.entry.findings.confirm]
    return f"; see `kb show {ids[0]}`" if ids else ""


def _read_bytes(stream, what: str) -> bytes:
    data = stream.read(MAX_INPUT_BYTES + 1)
    if len(data) > MAX_INPUT_BYTES:
        data = data[:MAX_INPUT_BYTES]
    return data


def _read_text(text: str | None, log: str | None) -> tuple[str | None, bool]:
    from diagnoser.matching.text import decode

    if text is not None and log is not None:
        _fail("give the error either as TEXT or with --log, not both")
    if log is not None:
        path = Path(log)
        if not path.exists():
            _fail(f"log file not found: {log}")
        if path.is_dir():
            _fail(f"log path is a directory, not a file: {log}")
        try:
            with path.open("rb") as fh:
                data = _read_bytes(fh, log)
        except OSError as exc:
            _fail(f"cannot read log file {log}: {exc.strerror or exc}")
        decoded, binary = decode(data)
    elif text == "-":
        decoded, binary = decode(_read_bytes(sys.stdin.buffer, "stdin"))
    elif text is not None:
        decoded, binary = text, False
    else:
        return None, False
    if not decoded.strip():
        _fail("the error text is empty" + (f" ({log})" if log else ""))
    return decoded, binary


def _parse_shapes(specs: tuple[str, ...]) -> dict[str, list[int]]:
    out: dict[str, list[int]] = {}
    for spec in specs:
        name, sep, dims = spec.rpartition("=")
        if not sep or not name or not re.fullmatch(r"\d+(x\d+)*", dims):
            _fail(f"--shape wants NAME=1x3x224x224, not {spec!r}")
        out[name] = [int(d) for d in dims.split("x")]
    return out


@click.command(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="onnx-troubleshooter", prog_name="diagnose", message="%(prog)s %(version)s")
@click.argument("text", required=False)
@click.option("--log", "log", metavar="FILE", help="Read the error text from a log file.")
@click.option("--model", "model", metavar="M.onnx", help="The model that failed; probes look for proof in it.")
@click.option("--providers", metavar="A,B", help="Execution providers the session asks for, in order; PROVIDER:TARGET names the device (DmlExecutionProvider:npu, OpenVINOExecutionProvider:gpu, TensorrtExecutionProvider:8).")
@click.option("--env", "env", is_flag=True, help="Probe the environment (onnx, onnxruntime packages, providers, CUDA libraries).")
@click.option("--ort-version", "ort_version", metavar="X.Y", help="Also check the model against this onnxruntime release (IR, opset).")
@click.option("--probes", "probes", type=click.Choice(["static", "all"]), default="all", show_default=True, help="'static' skips creating and running a session.")
@click.option("--shape", "shapes", multiple=True, metavar="NAME=1x3x224x224", help="Input shape for the session probe (repeatable).")
@click.option("--json", "as_json", is_flag=True, help="Print the JSON report (a stable contract, see schema_version).")
@click.option("--markdown", "as_markdown", is_flag=True, help="Print Markdown, ready to paste into a bug report.")
@click.option("--lang", type=click.Choice(["en", "zh"]), default="en", show_default=True, help="Language of titles, summaries and fixes.")
@click.option("--fix", "do_fix", is_flag=True, help="Repair a copy of the model with the remedies the diagnoses name, verify it, write it.")
@click.option("-o", "--output", "output", metavar="FIXED.onnx", help="Where --fix writes (default: M.fixed.onnx beside the model).")
@click.option("--unsafe-fixes", "unsafe", is_flag=True, help="With --fix, also apply remedies graded 'review'.")
@click.option("--convert-io-types", "convert_io", is_flag=True, help="With --fix, dtype remedies also change the model's declared input/output dtypes (default: kept, Casts at the boundary).")
@click.option("--fp16-block", "fp16_block", metavar="OP,OP", help="With --fix, ops the float16 remedy keeps in float32 (besides its own list).")
@click.option("--color/--no-color", default=None, help="Colour the terminal report (default: when stdout is a terminal).")
@click.option("--format", "fmt", type=click.Choice(["text", "json", "markdown", "sarif", "github"]), default=None,
              help="Output format: sarif (SARIF 2.1.0 for code scanning) and github (workflow annotations) are for CI.")
@click.option("--fail-on", "fail_on", type=click.Choice(["error", "warning"]), help="For CI: exit 1 when a finding of this severity or worse exists, else 0.")
def command(text, log, model, providers, env, ort_version, probes, shapes, as_json, as_markdown, lang, do_fix, output, unsafe, convert_io, fp16_block, color, fmt, fail_on) -> None:
    """Diagnose an ONNX / ONNX Runtime error: TEXT is the error ('-' reads stdin).

    Also: `diagnose run -- CMD ARGS...` runs a command and diagnoses its output when it fails;
    `diagnose audit DIR` (or --model DIR/) audits every model in a folder.
    """
    as_json, as_markdown = as_json or fmt == "json", as_markdown or fmt == "markdown"
    if model is not None and Path(model).is_dir():
        if do_fix:
            _fail(f"--fix repairs one model file, not a folder: {model}")
        if text is not None or log is not None:
            _fail(f"model path is a directory: {model}; with the error text give one model file (a folder alone is audited model by model)")
        from diagnoser.frontends.cli_audit import audit_paths

        audit_paths([model], jsonl=as_json, probes=probes, providers=[p.strip() for p in (providers or "").split(",") if p.strip()],
                    fmt=fmt if fmt in ("sarif", "github") else "text", fail_on=fail_on)
    if as_json and as_markdown:
        _fail("choose one of --json and --markdown")
    body, binary = _read_text(text, log)
    provs = [p.strip() for p in providers.split(",")] if providers else []
    if body is None and model is None and not provs and not env:
        _fail("nothing to diagnose: give the error TEXT, '-' for stdin, --log FILE, --model, --providers or --env")
    if ort_version is not None and not re.fullmatch(r"\d+\.\d+(\.\d+)?", ort_version):
        _fail(f"--ort-version wants a release like 1.17 or 1.17.3, not {ort_version!r}")
    parsed = _parse_shapes(shapes)
    if (output or unsafe or convert_io or fp16_block) and not do_fix:
        _fail("-o, --unsafe-fixes, --convert-io-types and --fp16-block go with --fix")
    if do_fix and model is None:
        _fail("--fix needs the model: give --model M.onnx")
    from diagnoser.api import diagnose, fix
    from diagnoser.errors import UserInputError

    try:
        if do_fix:
            report = fix(text=body, model=model, output=output, providers=provs, binary=binary, unsafe=unsafe,
                         ort_version=ort_version, probes=probes, shapes=parsed, keep_io_types=not convert_io,
                         fp16_block=[o.strip() for o in (fp16_block or "").split(",") if o.strip()])
        else:
            report = diagnose(text=body, model=model, providers=provs, binary=binary, env=env,
                              ort_version=ort_version, probes=probes, shapes=parsed)
    except UserInputError as exc:
        _fail(str(exc) + _see_also(exc.code))
    if fmt in ("sarif", "github"):
        out = ""
    elif as_json:
        from diagnoser.renderers import json as renderer

        out = renderer.render(report)
    elif as_markdown:
        from diagnoser.renderers import markdown as renderer

        out = renderer.render(report, lang=lang)
    else:
        from diagnoser.renderers import terminal as renderer

        from kb.termtext import width

        out = renderer.render(report, color=sys.stdout.isatty() if color is None else color, lang=lang, width=width())
    code = 0 if report.diagnosed or (report.environment_only and report.healthy) else 1
    if fmt in ("sarif", "github") or fail_on:
        from diagnoser.frontends.cli_audit import emit_single

        emit_single(report, model, fmt or "text", fail_on, out, code)
    click.echo(out, nl=False)
    sys.exit(code)


def _subcommand(args: list[str]) -> click.Command:
    """`diagnose run ...` and `diagnose audit ...` beside `diagnose [TEXT]`: the first word picks."""
    if args and args[0] == "run":
        from diagnoser.frontends.cli_run import command as run_command

        return run_command
    if args and args[0] == "audit":
        from diagnoser.frontends.cli_audit import command as audit_command

        return audit_command
    return command


def main(argv: list[str] | None = None) -> None:
    args = list(sys.argv[1:] if argv is None else argv)
    chosen = _subcommand(args)
    try:
        if chosen is command:
            command.main(args=args, prog_name="diagnose", standalone_mode=True)
        else:
            chosen.main(args=args[1:], prog_name=f"diagnose {args[0]}", standalone_mode=True)
    except KeyboardInterrupt:
        sys.exit(130)
    except SystemExit:
        raise
    except Exception as exc:  # a bug in this tool: say so, one line, distinct exit code
        click.echo(f"diagnose: internal error (please report this bug): {type(exc).__name__}: {exc}", err=True)
        sys.exit(3)


if __name__ == "__main__":
    main()
