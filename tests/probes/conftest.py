from __future__ import annotations

from pathlib import Path
from typing import Any, Callable

import pytest

from diagnoser import diagnose
from diagnoser.report import Report
from tests.fixtures.build_broken_models import build, good, save


@pytest.fixture
def case(tmp_path: Path) -> Callable[[str], Path]:
    """Build one case of the broken-model set in this test's folder."""
    return lambda name: build(name, tmp_path)


@pytest.fixture
def good_model(tmp_path: Path) -> Path:
    d = tmp_path / "good"
    d.mkdir()
    return save(good(), d / "model.onnx")


def run(path: Path, **kw: Any) -> Report:
    kw.setdefault("probes", "static")
    return diagnose(model=path, **kw)


def codes(path: Path, **kw: Any) -> set[str]:
    return {f.code for f in run(path, **kw).findings}


def errors(report: Report) -> list[str]:
    return [f.code for f in report.findings if f.severity == "error"]
