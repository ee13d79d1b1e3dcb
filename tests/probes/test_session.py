from __future__ import annotations

from pathlib import Path

import pytest

from diagnoser.probes import session
from tests.probes.conftest import codes, run


def test_good_model_loads_and_runs(good_model):
    report = run(good_model, probes="all")
    f = next(f for f in report.findings if f.code == "session.ok")
    assert f.details["used"] == ["CPUExecutionProvider"] and f.details["outputs"] == [[1, 2]]


def test_static_mode_skips_the_session(good_model):
    assert not [c for c in codes(good_model) if c.startswith("session.")]


def test_create_failure_text_goes_back_through_the_matcher(case):
    report = run(case("session-create-fails"), probes="all")
    f = next(f for f in report.findings if f.code == "session.create-failed")
    assert "Type Error" in f.details["error_text"] or "type" in f.details["error_text"].lower()


def test_run_failure_on_synthesized_inputs_is_only_a_warning(case):
    report = run(case("session-run-fails"), probes="all")
    f = next(f for f in report.findings if f.code == "session.run-failed")
    assert f.severity == "warning" and f.details["synthetic"] is True
    assert not report.diagnoses


def test_user_shape_is_used(case):
    report = run(case("session-run-fails"), probes="all", shapes={"x": [14]})
    f = next(f for f in report.findings if f.code.startswith("session."))
    assert f.code == "session.ok" and f.details["shapes"] == {"x": [14]}


def test_hang_becomes_timeout(good_model):
    report = run(good_model, probes="all", session_timeout=0.01)
    assert "session.timeout" in {f.code for f in report.findings}


def test_memory_limit_becomes_a_finding(good_model):
    report = run(good_model, probes="all", session_memory_mb=64)
    found = {f.code for f in report.findings}
    assert found & {"session.out-of-memory", "session.crashed", "session.probe-error"}
    assert "session.ok" not in found


def test_crash_becomes_a_finding(good_model, tmp_path, monkeypatch):
    fake = tmp_path / "child.py"
    fake.write_text("import json, os\nprint(json.dumps({'stage': 'create'}), flush=True)\nos.abort()\n")
    real = session.os.path.join
    monkeypatch.setattr(session.os.path, "join", lambda *a: str(fake) if a[-1] == "_session_child.py" else real(*a))
    report = run(good_model, probes="all")
    f = next(f for f in report.findings if f.code == "session.crashed")
    assert f.details["signal"] == "SIGABRT" and "creating the session" in f.message


def test_custom_op_model_fails_cleanly_and_no_library_is_loaded(case):
    child = Path(session.__file__).with_name("_session_child.py").read_text()
    assert "register_custom_ops_library" not in child and "RegisterCustomOps" not in child
    report = run(case("custom-op"), probes="all")
    f = next(f for f in report.findings if f.code.startswith("session."))
    assert f.code == "session.create-failed" and "FancyOp" in f.details["error_text"]


# -- declared dynamic dimensions honoured: a second run at another size -----------------------

def _export(net, args, path: Path, axes: dict) -> Path:
    import warnings

    import torch

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the TracerWarnings are the point of these models
        torch.onnx.export(net.eval(), args, str(path), input_names=["x"], dynamic_axes=axes, dynamo=False, opset_version=17)
    return path


def _runs(path: Path, shape: tuple[int, ...], dtype: str = "float32") -> bool:
    import numpy as np
    import onnxruntime as ort

    sess = ort.InferenceSession(str(path), providers=["CPUExecutionProvider"])
    try:
        sess.run(None, {"x": np.ones(shape, dtype=dtype)})
        return True
    except Exception:
        return False


def test_a_batch_baked_by_view_1_is_a_diagnosis(tmp_path):
    torch = pytest.importorskip("torch")

    class Head(torch.nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.conv, self.fc = torch.nn.Conv2d(3, 4, 3, 2, 1), torch.nn.Linear(4 * 8 * 8, 5)

        def forward(self, x):
            return self.fc(self.conv(x).view(1, -1))  # the batch of the example input, frozen

    path = _export(Head(), (torch.rand(1, 3, 16, 16),), tmp_path / "m.onnx", {"x": {0: "batch"}})
    assert _runs(path, (1, 3, 16, 16)) and not _runs(path, (2, 3, 16, 16))  # what the real runtime does
    report = run(path, probes="all")
    f = next(f for f in report.findings if f.code == "session.fixed-size")
    assert f.severity == "error" and f.details["kind"] == "batch" and f.node == "/fc/Gemm"
    assert f.details["worked"] == {"x": [1, 3, 16, 16]} and f.details["failed"] == {"x": [2, 3, 16, 16]}
    assert f.details["constants"][0]["op"] == "Reshape" and f.details["constants"][0]["values"][0] == 1
    assert report.diagnoses and not report.failures


def test_a_transformer_block_that_works_only_at_its_export_length(tmp_path):
    """A legacy-exported nn.TransformerEncoder freezes the sequence length: every everyday size
    fails, the probe finds the length in the model's shape constants, runs there, and proves
    another length fails: a diagnosis, not a warning."""
    torch = pytest.importorskip("torch")

    class Block(torch.nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.emb = torch.nn.Embedding(50, 16)
            self.enc = torch.nn.TransformerEncoder(torch.nn.TransformerEncoderLayer(16, 2, 32, batch_first=True), 1)

        def forward(self, x):
            return self.enc(self.emb(x))

    path = _export(Block(), (torch.randint(0, 50, (1, 9)),), tmp_path / "m.onnx", {"x": {0: "batch", 1: "seq"}})
    assert _runs(path, (1, 9), "int64") and not _runs(path, (1, 18), "int64")
    report = run(path, probes="all")
    ok = next(f for f in report.findings if f.code == "session.ok")
    assert ok.details["shapes"] == {"x": [1, 9]}
    f = next(f for f in report.findings if f.code == "session.fixed-size")
    assert f.details["failed"] == {"x": [1, 18]} and "Reshape" in f.node
    assert any(9 in c["values"] for c in f.details["constants"])
    assert report.diagnoses[0].id == "OT0256" and "session.run-failed" not in {x.code for x in report.findings}


def test_a_truly_dynamic_model_passes_the_second_run(tmp_path):
    import onnx
    from onnx import TensorProto, helper

    g = helper.make_graph([helper.make_node("Relu", ["x"], ["y"], name="relu")], "g",
                          [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["batch", "seq", 4])],
                          [helper.make_tensor_value_info("y", TensorProto.FLOAT, ["batch", "seq", 4])])
    path = tmp_path / "m.onnx"
    onnx.save(helper.make_model(g, opset_imports=[helper.make_opsetid("", 17)], ir_version=9), str(path))
    report = run(path, probes="all")
    ok = next(f for f in report.findings if f.code == "session.ok")
    assert ok.details["other_sizes"] == ["vary-ran", "vary-ran"]
    assert "session.fixed-size" not in {f.code for f in report.findings} and not report.failures


def test_user_shapes_are_not_varied(case):
    report = run(case("session-run-fails"), probes="all", shapes={"x": [14]})
    ok = next(f for f in report.findings if f.code == "session.ok")
    assert ok.details["other_sizes"] is None


def test_a_crash_while_trying_another_size_keeps_the_first_verdict(good_model, tmp_path, monkeypatch):
    """The model ran; the larger run then died (memory limit, a crash): no failure is claimed."""
    fake = tmp_path / "child.py"
    fake.write_text("import json, os\n"
                    "for r in ({'stage': 'created', 'providers': ['CPUExecutionProvider']},\n"
                    "          {'stage': 'ran', 'outputs': [[1, 2]], 'shapes': {'x': [1, 3]}, 'synthetic': True},\n"
                    "          {'stage': 'vary', 'kind': 'batch', 'shapes': {'x': [2, 3]}, 'worked': {'x': [1, 3]}}):\n"
                    "    print(json.dumps(r), flush=True)\n"
                    "os.abort()\n")
    real = session.os.path.join
    monkeypatch.setattr(session.os.path, "join", lambda *a: str(fake) if a[-1] == "_session_child.py" else real(*a))
    found = {f.code for f in run(good_model, probes="all").findings}
    assert "session.ok" in found and not found & {"session.crashed", "session.fixed-size", "session.out-of-memory"}
