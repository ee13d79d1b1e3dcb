from __future__ import annotations

from tests.probes.conftest import codes


def test_over_2gb_with_external_data(case):
    found = codes(case("over-2gb-external"))
    assert "model.over-2gb" in found and "external-data.present" in found


def test_small_model_has_no_size_finding(good_model):
    assert not [c for c in codes(good_model) if c.startswith("model.")]
