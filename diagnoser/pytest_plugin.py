"""pytest plugin: a failing test whose error comes from onnxruntime, onnx or torch.onnx gets a
"diagnoser" section in its report (shown with the failure, like captured output).

Opt-in: `pytest -p diagnoser.pytest_plugin`, or `--onnx-diagnose` / ini `onnx_diagnose = true`
where the package is installed (it registers this module under its own name, so both ways
load it once). Other failures are left alone, and a failure of ours never fails a test.
"""
from __future__ import annotations

from typing import Any

import pytest

NAME = "diagnoser.pytest_plugin"


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("diagnoser", "ONNX error diagnosis")
    group.addoption("--onnx-diagnose", action="store_true", default=None,
                    help="Add a diagnosis to the report of tests failing with onnxruntime/onnx/torch.onnx errors.")
    parser.addini("onnx_diagnose", "Diagnose ONNX-family test failures (true/false).", type="bool", default=False)


def _active(config: pytest.Config) -> bool:
    if config.getoption("onnx_diagnose"):
        return True
    if NAME in (getattr(config.option, "plugins", None) or []):  # asked for with -p
        return True
    return bool(config.getini("onnx_diagnose"))


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[Any]):
    outcome = yield
    report = outcome.get_result()
    if not report.failed or call.excinfo is None or not _active(item.config):
        return
    exc = call.excinfo.value
    try:
        from diagnoser.frontends.hook import explain

        text = explain(exc, width=80)
    except Exception as bug:  # our failure must not change the test's outcome
        text = f"diagnoser: could not diagnose this error ({type(bug).__name__}: {bug})\n"
    if text:
        report.sections.append(("diagnoser", text))
