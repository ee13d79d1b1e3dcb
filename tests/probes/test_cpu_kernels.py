from __future__ import annotations

from onnx import helper

from diagnoser import kernels
from tests.fixtures.build_broken_models import F16, model, save, vi
from tests.probes.conftest import codes, run


def test_bfloat16_sin_has_no_cpu_kernel(case):
    report = run(case("bfloat16-no-kernel"))
    f = next(f for f in report.findings if f.code == "kernel.cpu-missing")
    assert f.details["bfloat16"] and f.node == "sin"


def test_float16_runs_through_inserted_casts(case):
    found = codes(case("float16-via-cast"))
    assert "kernel.cpu-via-cast" in found and "kernel.cpu-missing" not in found


def test_float16_op_with_its_own_kernel_is_plain(tmp_path):
    m = model([helper.make_node("Identity", ["x"], ["y"], name="id")], [vi("x", F16, [2])], [vi("y", F16, [2])])
    assert not codes(save(m, tmp_path / "m.onnx")) & {"kernel.cpu-missing", "kernel.cpu-via-cast"}


def test_verdicts_follow_the_runtime():
    assert kernels.cpu_verdict("", "Relu", 14, {"T": ("float",)}) == "ok"
    assert kernels.cpu_verdict("", "Sin", 7, {"T": ("bfloat16",)}) == "missing-types"
    assert kernels.cpu_verdict("", "NoSuchOp", 1, {}) == "missing-op"
    assert kernels.cpu_verdict("", "Relu", 14, {"T": (None,)}) == "ok"  # unknown dtype: not judged


def test_valid_model_needs_no_missing_kernel(good_model):
    assert "kernel.cpu-missing" not in codes(good_model)
