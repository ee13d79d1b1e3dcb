from __future__ import annotations

import pytest

from diagnoser.datafiles import parse_version, row_for
from tests.probes.conftest import codes


@pytest.mark.parametrize("name,code", [
    ("opset-too-new", "opset.newer-than-runtime"),
    ("ir-too-new", "ir.newer-than-runtime"),
    ("ir-newer-than-onnx", "version.newer-than-onnx"),
    ("opset-too-old", "opset.older-than-runtime"),
])
def test_version_problems(case, name, code):
    assert code in codes(case(name))


def test_target_runtime(case):
    assert "opset.newer-than-target" in codes(case("opset-newer-than-target"), ort_version="1.17")
    assert "ir.newer-than-target" in codes(case("ir-newer-than-target"), ort_version="1.14")


def test_current_model_has_no_version_finding(good_model):
    found = codes(good_model, ort_version="1.17")
    assert not [c for c in found if c.startswith(("ir.", "opset.", "version."))]


def test_table_rows():
    assert row_for("onnxruntime", "1.17.3")[1] == {"ir": 9, "opset": 20}
    assert row_for("onnxruntime", "1.0") is None
    assert parse_version("1.24.0.dev20261026") == (1, 24, 0)
