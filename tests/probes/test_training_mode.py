from __future__ import annotations

import numpy as np
import pytest
from onnx import helper, numpy_helper

from tests.fixtures.build_broken_models import F, model, save, vi
from tests.probes.conftest import codes, run

torch = pytest.importorskip("torch")
# the exports below are the legacy exporter with training=TRAINING, as users run it; torch warns about both
pytestmark = pytest.mark.filterwarnings("ignore")


def _export(tmp_path, train: bool):
    m = torch.nn.Sequential(torch.nn.Conv2d(3, 4, 3), torch.nn.BatchNorm2d(4), torch.nn.ReLU(), torch.nn.Flatten(),
                            torch.nn.Dropout(0.5), torch.nn.Linear(4 * 6 * 6, 2))
    path = tmp_path / ("train.onnx" if train else "eval.onnx")
    if train:
        m.train()
        torch.onnx.export(m, (torch.randn(2, 3, 8, 8),), path, dynamo=False, training=torch.onnx.TrainingMode.TRAINING, do_constant_folding=False)
    else:
        m.eval()
        torch.onnx.export(m, (torch.randn(2, 3, 8, 8),), path, dynamo=False)
    return path


def test_a_module_exported_in_training_mode_is_found(tmp_path):
    report = run(_export(tmp_path, train=True))
    f = next(f for f in report.findings if f.code == "node.training-mode")
    assert f.details["batchnorm"] == ["/1/BatchNormalization"] and f.details["dropout"] == ["/4/Dropout"]
    assert "OT0425" in {c.id for c in report.candidates} | {d.id for d in report.diagnoses}


def test_the_same_module_exported_in_eval_mode_is_not(tmp_path):
    assert "node.training-mode" not in codes(_export(tmp_path, train=False))


@pytest.mark.parametrize("flag,found", [(True, True), (False, False)])
def test_dropout_follows_its_constant_training_flag(flag, found, tmp_path):
    ratio = numpy_helper.from_array(np.array(0.5, dtype=np.float32), "ratio")
    mode = numpy_helper.from_array(np.array(flag), "training_mode")
    node = helper.make_node("Dropout", ["x", "ratio", "training_mode"], ["y"], name="drop")
    m = model([node], [vi("x", F, [2, 3])], [vi("y", F, [2, 3])], [ratio, mode], opset=13)
    assert ("node.training-mode" in codes(save(m, tmp_path / "m.onnx"))) == found


def test_batchnorm_with_one_output_and_no_flag_is_inference(tmp_path):
    params = [numpy_helper.from_array(np.ones(3, dtype=np.float32), n) for n in ("s", "b", "mean", "var")]
    node = helper.make_node("BatchNormalization", ["x", "s", "b", "mean", "var"], ["y"], name="bn")
    m = model([node], [vi("x", F, [1, 3, 4, 4])], [vi("y", F, [1, 3, 4, 4])], params, opset=15)
    assert "node.training-mode" not in codes(save(m, tmp_path / "m.onnx"))
