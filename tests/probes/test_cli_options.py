from __future__ import annotations

import json

from click.testing import CliRunner

from diagnoser.frontends.cli import command


def test_static_model_report_as_json(good_model):
    result = CliRunner().invoke(command, ["--model", str(good_model), "--probes", "static", "--json"])
    data = json.loads(result.output)
    assert result.exit_code == 1 and data["input"]["probes"] == "static"
    assert not [f for f in data["findings"] if f["code"].startswith("session.")]


def test_shape_and_target_options(case):
    path = case("session-run-fails")
    result = CliRunner().invoke(command, ["--model", str(path), "--shape", "x=14", "--ort-version", "1.17", "--json"])
    data = json.loads(result.output)
    assert any(f["code"] == "session.ok" for f in data["findings"]) and data["input"]["ort_version"] == "1.17"


def test_bad_option_values_are_one_line_errors(good_model):
    for args in (["--shape", "x=1xbad"], ["--ort-version", "latest"]):
        result = CliRunner().invoke(command, ["--model", str(good_model), *args])
        assert result.exit_code == 2 and len(result.output.strip().splitlines()) == 1
