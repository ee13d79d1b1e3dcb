"""OT1401: removed experimental ops named by a tool reading a model are the model's problem; the same
SchemaError raised while an old converter registers its own translation table is not."""
from __future__ import annotations

import subprocess
import sys

from diagnoser import diagnose


def _traceback(tmp_path, body: str, name: str) -> str:
    """The traceback the installed onnx prints for `body`, run as the converter module `name`."""
    (tmp_path / name).write_text(body)
    done = subprocess.run([sys.executable, name], cwd=tmp_path, capture_output=True, text=True, timeout=60)
    assert done.returncode != 0
    return done.stderr


def test_a_converter_reading_the_models_removed_op_is_diagnosed(tmp_path):
    text = _traceback(tmp_path, (
        "import onnx\n"
        "def convert(node_op, opset):\n"
        "    return onnx.defs.get_schema(node_op, opset)\n"
        "convert('ImageScaler', 8)\n"), "convert_model.py")
    report = diagnose(text=text)
    assert report.diagnoses and report.diagnoses[0].id == "OT1401"


def test_an_old_converter_registering_its_translations_is_not_called_the_models_fault(tmp_path):
    text = _traceback(tmp_path, (
        "from onnx import defs\n"
        "def register_op_schema(name, versions):\n"
        "    for version in versions:\n"
        "        defs.get_schema(name, version, '')\n"
        "register_op_schema('ScaledTanh', [1, 6])\n"), "onnx_translations.py")
    assert "No schema registered for 'ScaledTanh'" in text
    report = diagnose(text=text)
    assert "OT1401" not in [d.id for d in report.diagnoses]
