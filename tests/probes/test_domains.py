from __future__ import annotations

from onnx import helper

from tests.fixtures.build_broken_models import F, model, save, vi
from tests.probes.conftest import codes


def test_custom_domain_op(case):
    assert "domain.custom-op" in codes(case("custom-op"))


def test_model_local_function_is_not_a_custom_op(case):
    found = codes(case("local-function"))
    assert "function.model-local" in found and "domain.custom-op" not in found


def test_contrib_op(tmp_path):
    m = model([helper.make_node("Gelu", ["x"], ["y"], name="gelu", domain="com.microsoft")], [vi("x", F, [2])], [vi("y", F, [2])], domains={"com.microsoft": 1})
    found = codes(save(m, tmp_path / "m.onnx"))
    assert "domain.contrib-op" in found and "domain.custom-op" not in found


def test_standard_model_has_no_domain_finding(good_model):
    assert not [c for c in codes(good_model) if c.startswith(("domain.", "function."))]
