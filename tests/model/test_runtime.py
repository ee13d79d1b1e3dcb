"""diagnoser.model.runtime against the real onnxruntime, and against stand-in packages (run in a
subprocess that finds them first on sys.path) for the cases the real one cannot show: a new
install, and an install that fails to import."""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from diagnoser.model import runtime

ROOT = Path(__file__).resolve().parents[2]

_FAKE_INIT = '''__version__ = "{version}"
def get_available_providers():
    return ["FakeExecutionProvider", "CPUExecutionProvider"]
'''
_FAKE_STATE = '''class _K:
    provider, domain, op_name, version_range = "CPUExecutionProvider", "", "Relu", (14, 2147483647)
    type_constraints = {{"T": ["tensor(float)"]}}
def get_all_opkernel_def():
    return [_K()] * {count}
'''
_ASK = ("import json; from diagnoser.model import runtime; rt = runtime.snapshot(); "
        "print(json.dumps([rt.version, rt.cached, rt.error, list(rt.providers), len(rt.kernels)]))")


def _fake(site: Path, version: str = "9.9.9", count: int = 1, broken: str | None = None) -> None:
    pkg = site / "onnxruntime"
    (pkg / "capi").mkdir(parents=True, exist_ok=True)
    init = f"raise ImportError({broken!r})\n" if broken else _FAKE_INIT.format(version=version)
    (pkg / "__init__.py").write_text(init)
    (pkg / "capi" / "__init__.py").write_text("")
    (pkg / "capi" / "_pybind_state.py").write_text(_FAKE_STATE.format(count=count))


def _run(site: Path, cache: Path, code: str = _ASK) -> list:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(site), str(ROOT)]), "XDG_CACHE_HOME": str(cache)}
    cp = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=120)
    assert cp.returncode == 0, cp.stderr
    return json.loads(cp.stdout)


def test_the_cached_snapshot_is_what_the_runtime_says(monkeypatch, tmp_path):
    import onnxruntime
    from onnxruntime.capi import _pybind_state as C

    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    runtime.snapshot.cache_clear()
    first = runtime.snapshot()
    runtime.snapshot.cache_clear()
    second = runtime.snapshot()
    runtime.snapshot.cache_clear()
    assert not first.cached and second.cached
    assert first == second.__class__(**{**second.__dict__, "cached": False})
    assert second.version == onnxruntime.__version__
    assert list(second.providers) == onnxruntime.get_available_providers()
    assert len(second.kernels) == len(C.get_all_opkernel_def()) > 100
    assert any(k[2] == "Add" and k[0] == "CPUExecutionProvider" for k in second.kernels)


def test_live_asks_the_runtime_even_when_cached(monkeypatch, tmp_path):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    runtime.snapshot.cache_clear()
    runtime.snapshot()
    live = runtime.snapshot(live=True)
    runtime.snapshot.cache_clear()
    assert not live.cached and live.error is None


def test_a_changed_install_is_asked_again(tmp_path):
    site, cache = tmp_path / "site", tmp_path / "cache"
    _fake(site)
    assert _run(site, cache) == ["9.9.9", False, None, ["FakeExecutionProvider", "CPUExecutionProvider"], 1]
    assert _run(site, cache)[:2] == ["9.9.9", True]
    _fake(site, version="9.10.0", count=3)  # an upgrade rewrites the package's files
    assert _run(site, cache) == ["9.10.0", False, None, ["FakeExecutionProvider", "CPUExecutionProvider"], 3]


def test_a_failed_import_is_reported_and_never_cached(tmp_path):
    site, cache = tmp_path / "site", tmp_path / "cache"
    _fake(site, broken="DLL load failed while importing onnxruntime_pybind11_state")
    version, cached, error, providers, kernels = _run(site, cache)
    assert version is None and not cached and "DLL load failed" in error and not providers and not kernels
    assert not list(cache.rglob("runtime-*.json"))


def test_probes_on_a_broken_install_report_it_once_and_fail_nowhere(tmp_path):
    site, cache = tmp_path / "site", tmp_path / "cache"
    _fake(site, broken="numpy.core.multiarray failed to import")
    from tests.fixtures.build_broken_models import good, save

    model = save(good(), tmp_path / "m.onnx")
    code = ("import json, sys; from diagnoser import diagnose; "
            f"r = diagnose(model={str(model)!r}, probes='static'); print(json.dumps([f.code for f in r.findings]))")
    found = _run(site, cache, code)
    assert "env.onnxruntime-import-failed" in found
    assert "probe.failed" not in found and "checker.invalid" not in found


def test_fingerprint_is_none_without_the_package(monkeypatch):
    import importlib.util

    real = importlib.util.find_spec
    assert runtime.fingerprint() is not None
    monkeypatch.setattr(importlib.util, "find_spec", lambda name, *a: None if name == "onnxruntime" else real(name, *a))
    assert runtime.fingerprint() is None
