"""`python -m diagnoser.run script.py [args]` (or `-m package.module [args]`): run a script as
Python would, and when it dies of an ONNX-family exception print the diagnosis under the
traceback. The exit code is what Python's own would be (1 for an uncaught exception).
"""
from __future__ import annotations

import os
import runpy
import sys
import traceback
from types import TracebackType

USAGE = "usage: python -m diagnoser.run SCRIPT.py [ARGS...] | -m MODULE [ARGS...]"


def _user_frames(tb: TracebackType | None) -> TracebackType | None:
    """Skip our frames and runpy's, so the traceback starts in the user's code as Python's does."""
    ours = os.path.abspath(__file__)
    while tb is not None and (tb.tb_frame.f_globals.get("__name__") == "runpy" or os.path.abspath(tb.tb_frame.f_code.co_filename) == ours):
        tb = tb.tb_next
    return tb


def main(argv: list[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    if not args or args[0] in ("-h", "--help"):
        print(USAGE, file=sys.stderr if not args else sys.stdout)
        return 2 if not args else 0
    module = args[0] == "-m"
    if module and len(args) < 2:
        print(USAGE, file=sys.stderr)
        return 2
    target = args[1] if module else args[0]
    if not module and not os.path.exists(target):
        print(f"diagnoser.run: error: script not found: {target}", file=sys.stderr)
        return 2
    sys.argv = args[1:] if module else args
    if not module:
        sys.path.insert(0, os.path.dirname(os.path.abspath(target)))
    try:
        if module:
            runpy.run_module(target, run_name="__main__", alter_sys=True)
        else:
            runpy.run_path(target, run_name="__main__")
    except SystemExit:
        raise
    except KeyboardInterrupt:
        traceback.print_exception(KeyboardInterrupt, KeyboardInterrupt(), None)
        return 130
    except BaseException as exc:
        exc.__traceback__ = _user_frames(exc.__traceback__)
        sys.stderr.flush()
        traceback.print_exception(type(exc), exc, exc.__traceback__)
        from diagnoser.frontends.hook import report_to_stderr

        report_to_stderr(exc)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
