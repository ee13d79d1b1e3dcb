from __future__ import annotations

from pathlib import Path

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
