"""`diagnose run -- CMD ARGS...`: run a command, pass its output through as it comes, and when
it fails diagnose what it printed (and the model file it names). The exit code is the command's.
Part of the CLI (prints and exits); the work is in diagnoser.frontends.capture and diagnoser.frontends.hook.
"""
from __future__ import annotations

import shlex
import sys

import click


@click.command(name="run", context_settings={"help_option_names": ["-h", "--help"], "allow_interspersed_args": False,
                                             "ignore_unknown_options": True})
@click.option("--lang", type=click.Choice(["en", "zh"]), default="en", show_default=True, help="Language of the diagnosis.")
@click.option("--probes", type=click.Choice(["static", "all"]), default="static", show_default=True,
              help="Probes on the model the output names; 'all' also creates a session again.")
@click.option("--no-model", is_flag=True, help="Diagnose the output only, even when it names a model file.")
@click.argument("cmd", nargs=-1, required=True, type=click.UNPROCESSED)
def command(lang: str, probes: str, no_model: bool, cmd: tuple[str, ...]) -> None:
    """Run CMD; when it fails, diagnose its output (printed on stderr after it)."""
    from diagnoser.frontends import capture

    argv = list(cmd)
    try:
        outcome = capture.run(argv)
    except FileNotFoundError:
        click.echo(f"diagnose: error: command not found: {argv[0]}", err=True)
        sys.exit(127)
    except PermissionError:
        click.echo(f"diagnose: error: cannot run {argv[0]}: permission denied", err=True)
        sys.exit(126)
    if not outcome.failed:
        sys.exit(0)
    if lang == "zh":
        how = f"被 {outcome.signal} 终止" if outcome.signal else f"退出码 {outcome.returncode}"
        what = f"`{_short(argv)}` 失败（{how}）"
    else:
        how = f"killed by {outcome.signal}" if outcome.signal else f"exit {outcome.returncode}"
        what = f"`{_short(argv)}` failed ({how})"
    from diagnoser.matching.text import decode

    text, _binary = decode(outcome.output)
    if not text.strip():
        click.echo(f"diagnoser: {what}" + ("，没有输出可供诊断。" if lang == "zh" else " and printed nothing to diagnose."), err=True)
        sys.exit(outcome.returncode)
    try:
        from diagnoser.frontends.hook import diagnose_output

        model = None
        if not no_model:
            paths = capture.model_paths(text)
            model = str(paths[0]) if paths else None
        out = diagnose_output(text, model, lang=lang, probes=probes, color=sys.stderr.isatty(), what=what)
    except Exception as exc:  # the command's exit code matters more than our diagnosis
        out = f"diagnoser: could not diagnose the output ({type(exc).__name__}: {exc})\n"
    sys.stdout.flush()
    click.echo(out, nl=False, err=True)
    sys.exit(outcome.returncode)


def _short(argv: list[str], limit: int = 40) -> str:
    text = shlex.join(argv)
    return text if len(text) <= limit else text[: limit - 1] + "…"
