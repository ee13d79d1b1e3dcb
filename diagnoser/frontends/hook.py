"""Diagnose an uncaught exception from onnxruntime, onnx or torch.onnx where it is raised:
`install()` wraps sys.excepthook, `python -m diagnoser.run` runs a script under it, and the
IPython extension and the pytest plugin call `explain` with the exception they hold.

Only ONNX-family errors are diagnosed (judged by the exception's module and the frames it went
through), so a typo in the user's own code never costs them a knowledge-base lookup. The hook
never raises: a failure of ours becomes one line under the traceback.
"""
from __future__ import annotations

import sys
import traceback
from types import TracebackType
from typing import Any, Callable

_FAMILY = ("onnxruntime", "onnx", "torch.onnx", "onnxscript", "onnxconverter_common")
_PREVIOUS: list[Callable[..., Any]] = []


def _in_family(module: str | None) -> bool:
    return bool(module) and any(module == m or module.startswith(m + ".") for m in _FAMILY)


def _chain(exc: BaseException) -> list[BaseException]:
    out, seen = [], set()
    cur: BaseException | None = exc
    while cur is not None and id(cur) not in seen:
        seen.add(id(cur))
        out.append(cur)
        cur = cur.__cause__ or (None if cur.__suppress_context__ else cur.__context__)
    return out


def is_onnx_error(exc: BaseException) -> bool:
    """True when the exception (or one it was raised from) is an ONNX-family error: its type
    is defined in onnxruntime/onnx/torch.onnx, or it was raised inside one of them."""
    for e in _chain(exc):
        if _in_family(type(e).__module__):
            return True
        tb = e.__traceback__
        while tb is not None:
            if _in_family(tb.tb_frame.f_globals.get("__name__")):
                return True
            tb = tb.tb_next
    return False


def error_text(exc: BaseException) -> str:
    """What the user would paste: the formatted traceback, causes included."""
    return "".join(traceback.format_exception(type(exc), exc, exc.__traceback__))


def explain(exc: BaseException, *, lang: str = "en", width: int | None = None, force: bool = False) -> str | None:
    """The diagnosis to print under the traceback, or None when the exception is not an
    ONNX-family error (force=True diagnoses any exception)."""
    if not force and not is_onnx_error(exc):
        return None
    text = error_text(exc)
    from diagnoser.frontends.capture import model_paths

    paths = model_paths(text)
    return diagnose_output(text, str(paths[0]) if paths else None, lang=lang, width=width)


def diagnose_output(text: str, model: str | None, *, lang: str = "en", width: int | None = None, probes: str = "static",
                    color: bool = False, what: str = "the error above") -> str:
    """The terminal report of a failure's text (and the model it names), framed so it reads as
    ours under someone else's output. Probes default to static: the program just ran the model."""
    from kb.termtext import width as term_width

    from diagnoser.api import diagnose
    from diagnoser.errors import UserInputError
    from diagnoser.renderers import terminal

    cols = term_width(width)
    try:
        report = diagnose(text=text, model=model, probes=probes)
    except UserInputError:  # the named file is not a model we can read: diagnose the text alone
        report = diagnose(text=text, probes=probes)
        model = None
    zh = lang == "zh"
    if zh and what == "the error above":
        what = "上面的错误"
    head = f"diagnoser: {what}" + ((f"（模型 {model}）" if zh else f" (model {model})") if model else "")
    if not report.diagnoses and not report.candidates:
        return head + ("：没有已知问题与之匹配。\n" if zh else ": no known problem matches it.\n")
    rule = "-" * min(cols, 80)
    return f"{rule}\n{head}{'：' if zh else ':'}\n\n" + terminal.render(report, color=color, lang=lang, width=cols) + rule + "\n"


def _hook(exc_type: type[BaseException], exc: BaseException, tb: TracebackType | None) -> None:
    previous = _PREVIOUS[0] if _PREVIOUS else sys.__excepthook__
    previous(exc_type, exc, tb)
    report_to_stderr(exc)


def report_to_stderr(exc: BaseException) -> None:
    """Print the diagnosis of exc on stderr, never raising."""
    try:
        if exc.__traceback__ is None:
            return
        out = explain(exc)
    except Exception as bug:  # the user's error matters more than ours
        out = f"diagnoser: could not diagnose this error ({type(bug).__name__}: {bug})\n"
    if out:
        sys.stderr.write(out)
        sys.stderr.flush()


def install() -> None:
    """Print a diagnosis under the traceback of uncaught ONNX-family exceptions. Idempotent."""
    if sys.excepthook is _hook:
        return
    _PREVIOUS[:] = [sys.excepthook]
    sys.excepthook = _hook


def uninstall() -> None:
    """Put back the hook install() replaced (if ours is still the one in place)."""
    if sys.excepthook is _hook:
        sys.excepthook = _PREVIOUS[0] if _PREVIOUS else sys.__excepthook__
    _PREVIOUS.clear()


def installed() -> bool:
    return sys.excepthook is _hook
