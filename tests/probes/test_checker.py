from __future__ import annotations

from tests.probes.conftest import codes, run


def test_unsorted_graph_is_invalid(case):
    report = run(case("checker-order"))
    f = next(f for f in report.findings if f.code == "checker.invalid")
    assert "topologically sorted" in f.details["error_text"]


def test_valid_model_passes(good_model):
    assert "checker.invalid" not in codes(good_model)
