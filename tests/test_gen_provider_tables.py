"""scripts/gen_provider_tables.py rebuilds the provider tables from their sources.

The excerpts below are written for this test in each source's layout (a few made-up rows), not
copied files: they show the parsers read the format, keep each row's line and skip what is not a row.
"""
from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[1]
_spec = importlib.util.spec_from_file_location("gen_provider_tables", ROOT / "scripts" / "gen_provider_tables.py")
gen = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(gen)

KERNELS = """## Operators implemented by CPUExecutionProvider

| Op Name | Parameters | OpSet Version | Types Supported |
|---------|------------|---------------|-----------------|
|**Operator Domain:** *ai.onnx*||||
|Foo|*in* X:**T**<br> *out* Y:**T**|5+|**T** = tensor(float)|

## Operators implemented by DmlExecutionProvider

| Op Name | Parameters | OpSet Version | Types Supported |
|---------|------------|---------------|-----------------|
|**Operator Domain:** *ai.onnx*||||
|Foo|*in* X:**T**<br> *out* Y:**T**|14+|**T** = tensor(float), tensor(float16)|
|||[7, 13]|**T** = tensor(float)|
|Bar|*in* A:**T1**<br> *out* B:**T2**|9|**T1** = tensor(int64)<br/> **T2** = seq(tensor(float))|
|**Operator Domain:** *com.microsoft*||||
|Baz|*in* X:**T**<br> *out* Y:**T**|1+|**T** = tensor(uint8)|
"""

TRT = """# Supported ONNX Operators

TensorRT 10.0 supports operators in the inclusive range of opset 9 to opset 20. More below.

TensorRT supports the following ONNX data types: FLOAT32, FLOAT16, BFLOAT16, INT64, and BOOL

| Operator | Supported | Supported Types | Restrictions |
|----------|-----------|-----------------|--------------|
| Foo      | Y         | FP32, FP16, BF16 | `axis` must be an initializer |
| Bar      | N         |
"""

OPENVINO = """std::set<std::string> other = {"Nope"};
std::vector<SupportedOp> supported_op_mode = {
    {"Foo", V_2020_4, {"CPU", "GPU"}},
    {"Bar", V_2023_0, {"GPU"}},
    {"Baz", V_2024_4, {"NPU"}},
};
"""

OPLIST = """<!-- a comment -->
|Operator|Note|
|--------|------|
|ai.onnx:Foo||
|com.microsoft:Baz|Weights must be constant.|
"""

QNN = """  {
    CreateSimpleOpBuilder("Foo", *this);
    CreateConvOpBuilder("Bar", *this);
  }
"""


def test_kernels_section_with_versions_types_and_domains():
    rows = gen.parse_kernels(KERNELS, "DmlExecutionProvider")
    assert rows["ai.onnx:Foo"] == {"line": 13, "kernels": [[14, None, {"T": "float float16"}], [7, 13, {"T": "float"}]]}
    assert rows["ai.onnx:Bar"]["kernels"] == [[9, 9, {"T1": "int64", "T2": "seq:float"}]]
    assert rows["com.microsoft:Baz"]["line"] == 17 and len(rows) == 3  # the CPU section is not read


def test_tensorrt_page_header_types_and_rows():
    table = gen.parse_tensorrt(TRT)
    assert (table["tensorrt"], table["max_opset"], table["int64_cast"]) == ("10.0", 20, False)
    assert set(table["dtypes"].split()) == {"float", "float16", "bfloat16", "int64", "bool"}
    assert table["rows"]["ai.onnx:Foo"] == {"line": 9, "supported": True, "types": "float float16 bfloat16", "restrictions": "`axis` must be an initializer"}
    assert table["rows"]["ai.onnx:Bar"] == {"line": 10, "supported": False}
    old = TRT.replace("10.0 supports operators in the inclusive range of opset 9 to opset 20", "8.6 supports operators up to Opset 17")
    old += "\n> Note: There is limited support for INT32, INT64, and DOUBLE types. TensorRT will attempt to cast down INT64 to INT32.\n"
    table = gen.parse_tensorrt(old)
    assert (table["tensorrt"], table["max_opset"], table["int64_cast"]) == ("8.6", 17, True) and "int32" in table["dtypes"]


def test_openvino_lists_per_device_and_npu_takes_the_cpu_list():
    assert set(gen.parse_openvino(OPENVINO, "CPU")) == {"*:Foo"}
    assert set(gen.parse_openvino(OPENVINO, "GPU")) == {"*:Foo", "*:Bar"}
    npu = gen.parse_openvino(OPENVINO, "NPU")
    assert set(npu) == {"*:Foo", "*:Baz"} and npu["*:Foo"] == {"line": 3, "since": "V_2020_4"}


def test_op_lists():
    assert gen.parse_oplist(OPLIST) == {"ai.onnx:Foo": {"line": 4}, "com.microsoft:Baz": {"line": 5, "note": "Weights must be constant."}}
    assert gen.parse_qnn(QNN) == {"*:Foo": {"line": 2}, "*:Bar": {"line": 3}}


def _sources(folder: Path) -> Path:
    files = {"OperatorKernels.md": KERNELS.replace("DmlExecutionProvider", "CUDAExecutionProvider") + KERNELS.split("\n\n", 1)[1],
             "operators-trt10.md": TRT, "operators-trt8.md": TRT, "data_ops.cc": OPENVINO,
             "coreml_supported_neuralnetwork_ops.md": OPLIST, "coreml_supported_mlprogram_ops.md": OPLIST,
             "nnapi_supported_ops.md": OPLIST, "op_builder_factory.cc": QNN}
    for name, text in files.items():
        (folder / name).write_text(text, encoding="utf-8")
    return folder


def test_rebuild_writes_a_table_per_source_with_its_revision(tmp_path):
    src = _sources(tmp_path)
    out = tmp_path / "providers.yaml"
    assert gen.main(["--sources", str(src), "--out", str(out)]) == 0
    data = yaml.safe_load(out.read_text(encoding="utf-8"))
    assert out.read_text(encoding="utf-8").startswith("# GENERATED")
    for name, table in data["tables"].items():
        assert table["revision"].split("@")[1] in table["source"], name
    assert set(data["tables"]["cuda"]["rows"]) == {"ai.onnx:Foo", "ai.onnx:Bar", "com.microsoft:Baz"}
    assert gen.main(["--sources", str(src), "--out", str(out), "--check"]) == 0
    out.write_text(out.read_text(encoding="utf-8") + "# hand edit\n", encoding="utf-8")
    assert gen.main(["--sources", str(src), "--out", str(out), "--check"]) == 1


def test_a_missing_source_is_one_line_error(tmp_path, capsys):
    assert gen.main(["--sources", str(tmp_path), "--out", str(tmp_path / "x.yaml")]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("gen_provider_tables: error:")


def test_shipped_table_is_the_generators_output():
    """The shipped file carries the generator's header and the generator's behaviour facts, so
    nobody edited rows or facts by hand."""
    text = (ROOT / "diagnoser" / "data" / "providers.yaml").read_text(encoding="utf-8")
    assert text.startswith(gen.HEADER)
    assert yaml.safe_load(text)["providers"] == gen.TARGETS
