"""File sanity (diagnoser/model/modelfile.py): an unusable file is a coded finding and a diagnosis; a path
that is no file is a one-line usage error; never a traceback."""
from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from diagnoser import UserInputError, diagnose
from diagnoser.model import modelfile
from diagnoser.frontends.cli import command
from tests.fixtures.build_broken_models import CASES

FILE_CASES = [n for n, (_, code, _) in CASES.items() if code.startswith("file.")]


@pytest.mark.parametrize("name", FILE_CASES)
def test_unusable_file_is_a_coded_user_error(case, name):
    with pytest.raises(UserInputError) as exc:
        modelfile.load(case(name))
    assert exc.value.code == CASES[name][1]
    assert "\n" not in str(exc.value)


@pytest.mark.parametrize("name", FILE_CASES)
def test_unusable_file_is_diagnosed_in_the_report(case, name):
    """Empty, truncated, an LFS pointer, a checkpoint, no IR version: the diagnosis the user came
    for, in the same report (JSON included), exit 0; never a traceback."""
    result = CliRunner().invoke(command, ["--model", str(case(name)), "--json"])
    assert result.exit_code == 0, result.output
    data = json.loads(result.output)
    found = [f for f in data["findings"] if f["code"] == CASES[name][1]]
    assert found and found[0]["severity"] == "error"
    top = data["diagnoses"][0]["id"]
    assert CASES[name][1] in kb_entry(top).findings.confirm
    assert "Traceback" not in result.output


def kb_entry(eid: str):
    from diagnoser.matching.index import default_index

    return next(ce.entry for ce in default_index().entries if ce.entry.id == eid)


def test_no_ir_version_is_not_called_no_graph(case):
    """onnxruntime says 'Missing model IR version' for a complete graph without ir_version."""
    from tests.models import ort_error

    path = case("no-ir-version")
    assert "Missing model IR version" in ort_error(path)
    report = diagnose(model=path, probes="static")
    assert report.diagnoses[0].id == "OT0440" and "no ONNX graph" not in report.findings[0].message


def test_a_valid_model_loads_without_reading_weights(good_model):
    loaded = modelfile.load(good_model)
    assert loaded.proto.graph.node[0].op_type == "Conv"
    assert loaded.size == good_model.stat().st_size


def test_missing_file_and_directory_are_one_line_errors(tmp_path):
    for target in (tmp_path / "nope.onnx", tmp_path):
        result = CliRunner().invoke(command, ["--model", str(target)])
        assert result.exit_code == 2 and len(result.output.strip().splitlines()) == 1


def test_a_plain_zip_is_not_called_a_checkpoint(tmp_path):
    import zipfile

    p = tmp_path / "model.onnx"
    with zipfile.ZipFile(p, "w") as zf:
        zf.writestr("readme.txt", "hi")
    with pytest.raises(UserInputError) as exc:
        modelfile.load(p)
    assert exc.value.code == "file.not-onnx"
