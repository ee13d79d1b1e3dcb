"""`%load_ext diagnoser` in IPython/Jupyter: after the usual traceback of an ONNX-family
exception, the diagnosis (the same as `diagnoser.install()` gives scripts)."""
from __future__ import annotations

from typing import Any


def handler(shell: Any, etype: type[BaseException], evalue: BaseException, tb: Any, tb_offset: int | None = None) -> Any:
    """IPython custom exception handler: show IPython's own traceback, then our diagnosis."""
    shell.showtraceback((etype, evalue, tb), tb_offset=tb_offset)
    if evalue.__traceback__ is None and tb is not None:
        evalue = evalue.with_traceback(tb)
    try:
        from diagnoser.frontends.hook import explain

        out = explain(evalue)
    except Exception as bug:  # never hide the user's error behind ours
        out = f"diagnoser: could not diagnose this error ({type(bug).__name__}: {bug})\n"
    if out:
        print(out, end="")
    return None


def load(shell: Any) -> None:
    shell.set_custom_exc((Exception,), handler)


def unload(shell: Any) -> None:
    shell.set_custom_exc((), None)
