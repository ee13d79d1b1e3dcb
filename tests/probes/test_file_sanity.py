"""File sanity (diagnoser/modelfile.py): unusable files give a coded one-line error, never a traceback."""
from __future__ import annotations

import pytest
from click.testing import CliRunner

from diagnoser import UserInputError, modelfile
from diagnoser.cli import command
from tests.fixtures.build_broken_models import CASES

FILE_CASES = [n for n, (_, code, _) in CASES.items() if code.startswith("file.")]


@pytest.mark.parametrize("name", FILE_CASES)
def test_unusable_file_is_a_coded_user_error(case, name):
    with pytest.raises(UserInputError) as exc:
        modelfile.load(case(name))
    assert exc.value.code == CASES[name][1]
    assert "\n" not in str(exc.value)


@pytest.mark.parametrize("name", FILE_CASES)
def test_cli_prints_one_line_and_exits_2(case, name):
    result = CliRunner().invoke(command, ["--model", str(case(name))])
    assert result.exit_code == 2
    lines = [ln for ln in result.output.splitlines() if ln.strip()]
    assert len(lines) == 1 and lines[0].startswith("diagnose: error:") and CASES[name][1] in lines[0]
    assert "Traceback" not in result.output


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
