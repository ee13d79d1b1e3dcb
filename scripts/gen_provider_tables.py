#!/usr/bin/env python3
"""Rebuild diagnoser/data/providers.yaml from each provider's own sources.

Support tables are data generated from the files the providers publish (like Ruff's rule table),
never rows copied by hand: a maintainer downloads the source files named in SOURCES into one
folder (nothing here reaches the network), then runs

    python scripts/gen_provider_tables.py --sources DIR            # write the table
    python scripts/gen_provider_tables.py --sources DIR --check    # exit 1 when it is stale

Third-party files are not committed. Every table records its source URL and revision, every row
the line of the source it came from. What a provider does with a node outside its table (fall
back to the CPU provider, or fail) is a documented behaviour, kept in TARGETS with its citation.
"""
from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path
from typing import Any

OUT = Path(__file__).resolve().parents[1] / "diagnoser" / "data" / "providers.yaml"
ORT_REV = "735e69a396afe7e1bdfbc6b38c1d43eeb68b8484"  # onnxruntime main, 1.25.0 development, 2026-02-13
TRT10_REV = "96e781103cfc4adf4a6bb557e94bac8e693f6f4c"  # onnx-tensorrt "ONNX-TensorRT 10.1 GA release"
TRT8_REV = "6872a9473391a73b96741711d52b98c2c3e25146"  # onnx-tensorrt, TensorRT 8.6 operators page
_ORT = f"https://github.com/microsoft/onnxruntime/blob/{ORT_REV}/"
_TRT = "https://github.com/onnx/onnx-tensorrt/blob/{rev}/docs/operators.md"

# table name -> (local file name, parser, parser argument, source URL, revision)
SOURCES: dict[str, tuple[str, str, str, str, str]] = {
    "cuda": ("OperatorKernels.md", "kernels", "CUDAExecutionProvider", _ORT + "docs/OperatorKernels.md#cudaexecutionprovider", f"microsoft/onnxruntime@{ORT_REV[:12]}"),
    "dml": ("OperatorKernels.md", "kernels", "DmlExecutionProvider", _ORT + "docs/OperatorKernels.md#dmlexecutionprovider", f"microsoft/onnxruntime@{ORT_REV[:12]}"),
    "tensorrt-10": ("operators-trt10.md", "tensorrt", "", _TRT.format(rev=TRT10_REV), f"onnx/onnx-tensorrt@{TRT10_REV[:12]}"),
    "tensorrt-8": ("operators-trt8.md", "tensorrt", "", _TRT.format(rev=TRT8_REV), f"onnx/onnx-tensorrt@{TRT8_REV[:12]}"),
    "openvino-cpu": ("data_ops.cc", "openvino", "CPU", _ORT + "onnxruntime/core/providers/openvino/ov_versions/data_ops.cc", f"microsoft/onnxruntime@{ORT_REV[:12]}"),
    "openvino-gpu": ("data_ops.cc", "openvino", "GPU", _ORT + "onnxruntime/core/providers/openvino/ov_versions/data_ops.cc", f"microsoft/onnxruntime@{ORT_REV[:12]}"),
    "openvino-npu": ("data_ops.cc", "openvino", "NPU", _ORT + "onnxruntime/core/providers/openvino/ov_versions/data_ops.cc", f"microsoft/onnxruntime@{ORT_REV[:12]}"),
    "coreml-neuralnetwork": ("coreml_supported_neuralnetwork_ops.md", "oplist", "", _ORT + "tools/ci_build/github/apple/coreml_supported_neuralnetwork_ops.md", f"microsoft/onnxruntime@{ORT_REV[:12]}"),
    "coreml-mlprogram": ("coreml_supported_mlprogram_ops.md", "oplist", "", _ORT + "tools/ci_build/github/apple/coreml_supported_mlprogram_ops.md", f"microsoft/onnxruntime@{ORT_REV[:12]}"),
    "nnapi": ("nnapi_supported_ops.md", "oplist", "", _ORT + "tools/ci_build/github/android/nnapi_supported_ops.md", f"microsoft/onnxruntime@{ORT_REV[:12]}"),
    "qnn": ("op_builder_factory.cc", "qnn", "", _ORT + "onnxruntime/core/providers/qnn/builder/op_builder_factory.cc", f"microsoft/onnxruntime@{ORT_REV[:12]}"),
}

_PARTITION = ("onnxruntime assigns each node to the first listed provider that claims it and gives the rest to the CPU provider "
              "(https://onnxruntime.ai/docs/execution-providers/)")
_NPU_DML = ("DirectML on an NPU compiles the whole graph and fails with 0x887A0004 outside its supported set "
            "(entry OT0003; https://github.com/microsoft/DirectML/issues/611)")
_NPU_OV = (_ORT + "onnxruntime/core/providers/openvino/ov_versions/capability.cc#L37 (an NPU device is judged with the CPU "
           "operator list; the NPU entries of data_ops.cc are added)")
_TRT_PART = ("the TensorRT provider hands the subgraphs its parser rejects to the next provider (CUDA, then CPU); a TensorRT-only "
             "engine (trtexec, or a session with session.disable_cpu_ep_fallback) fails "
             "(https://onnxruntime.ai/docs/execution-providers/TensorRT-ExecutionProvider.html)")

_TRT_PROFILE = ("inputs with dynamic dimensions are built per optimization profile (trt_profile_min_shapes / opt / max), "
                "else the engine is rebuilt when a new shape arrives (https://onnxruntime.ai/docs/execution-providers/TensorRT-ExecutionProvider.html)")
_NNAPI_STATIC = "'NNAPI and CoreML do not support dynamic input shapes' (https://onnxruntime.ai/docs/tutorials/mobile/helpers/make-dynamic-shape-fixed.html)"
_QNN_STATIC = "'QNN EP does not support models with dynamic shapes' (https://onnxruntime.ai/docs/execution-providers/QNN-ExecutionProvider.html)"

# provider -> default target, target -> how it behaves; each fact says where it comes from
TARGETS: dict[str, dict[str, Any]] = {
    "CUDAExecutionProvider": {"default": "gpu", "targets": {
        "gpu": {"table": "cuda", "unsupported": "fallback", "why": _PARTITION}}},
    "DmlExecutionProvider": {"default": "gpu", "targets": {
        "gpu": {"table": "dml", "unsupported": "fallback", "why": _PARTITION},
        "npu": {"table": "dml", "unsupported": "fail", "float16_expected": True, "why": _NPU_DML}}},
    "OpenVINOExecutionProvider": {"default": "cpu", "targets": {
        "cpu": {"table": "openvino-cpu", "unsupported": "fallback", "why": _PARTITION},
        "gpu": {"table": "openvino-gpu", "unsupported": "fallback", "why": _PARTITION},
        "npu": {"table": "openvino-npu", "unsupported": "fallback", "why": f"{_PARTITION}; {_NPU_OV}"}}},
    "TensorrtExecutionProvider": {"default": "10", "targets": {
        "10": {"table": "tensorrt-10", "unsupported": "fallback", "dynamic_shapes": "profile", "dynamic_why": _TRT_PROFILE, "why": _TRT_PART},
        "8": {"table": "tensorrt-8", "unsupported": "fallback", "dynamic_shapes": "profile", "dynamic_why": _TRT_PROFILE, "why": _TRT_PART}}},
    "CoreMLExecutionProvider": {"default": "neuralnetwork", "targets": {
        "neuralnetwork": {"table": "coreml-neuralnetwork", "unsupported": "fallback", "why": _PARTITION},
        "mlprogram": {"table": "coreml-mlprogram", "unsupported": "fallback", "why": _PARTITION}}},
    "NnapiExecutionProvider": {"default": "android", "targets": {
        "android": {"table": "nnapi", "unsupported": "fallback", "dynamic_shapes": "static", "dynamic_why": _NNAPI_STATIC, "why": _PARTITION}}},
    "QNNExecutionProvider": {"default": "npu", "targets": {
        "npu": {"table": "qnn", "unsupported": "fallback", "dynamic_shapes": "static", "dynamic_why": _QNN_STATIC, "why": _PARTITION}}},
}

_SHORT = re.compile(r"tensor\((\w+)\)|seq\(tensor\((\w+)\)\)")


def _version(cell: str) -> tuple[int, int | None]:
    """'13+' -> (13, None), '13' -> (13, 13), '[6, 12]' -> (6, 12)."""
    cell = cell.strip()
    if cell.endswith("+"):
        return int(cell[:-1]), None
    if cell.startswith("["):
        lo, hi = cell.strip("[]").split(",")
        return int(lo), int(hi)
    return int(cell), int(cell)


def _types(cell: str) -> dict[str, str]:
    """'**T** = tensor(float), tensor(int64)<br/> **T1** = ...' -> {'T': 'float int64', ...}."""
    out = {}
    for part in cell.split("<br/>"):
        m = re.match(r"\s*\*\*(\w+)\*\*\s*=\s*(.*)", part)
        if m:
            names = [a or f"seq:{b}" for a, b in _SHORT.findall(m.group(2))]
            out[m.group(1)] = " ".join(names)
    return out


def parse_kernels(text: str, provider: str) -> dict[str, Any]:
    """One provider's section of onnxruntime's docs/OperatorKernels.md: 'domain:op' -> line, kernels."""
    rows: dict[str, Any] = {}
    inside, domain, current = False, "ai.onnx", None
    for number, line in enumerate(text.splitlines(), 1):
        if line.startswith("## Operators implemented by "):
            inside = line.split()[-1] == provider
            continue
        if not inside or not line.startswith("|"):
            continue
        cells = [c.strip() for c in line.split("|")[1:-1]]
        if len(cells) < 4 or cells[0] == "Op Name" or re.fullmatch(r"-+", cells[0]):
            continue
        dom = re.match(r"\*\*Operator Domain:\*\* \*([\w.]+)\*", cells[0])
        if dom:
            domain = dom.group(1)
            continue
        if cells[0]:
            current = f"{domain}:{cells[0]}"
            rows[current] = {"line": number, "kernels": []}
        if current is None or not re.match(r"\s*\[?\d", cells[2]):
            continue
        start, end = _version(cells[2])
        rows[current]["kernels"].append([start, end, _types(cells[3])])
    return {k: v for k, v in rows.items() if v["kernels"]}


_TRT_TYPES = {"FP32": "float", "FLOAT32": "float", "FP16": "float16", "FLOAT16": "float16", "BF16": "bfloat16", "BFLOAT16": "bfloat16",
              "INT32": "int32", "INT64": "int64", "INT8": "int8", "UINT8": "uint8", "BOOL": "bool", "DOUBLE": "double",
              "FP8": "float8e4m3fn", "INT4": "int4"}


def parse_tensorrt(text: str) -> dict[str, Any]:
    """onnx-tensorrt docs/operators.md: the TensorRT version and opset range, the data types it
    names, whether it casts INT64 down, and per operator Y/N, types and restrictions."""
    head = re.search(r"TensorRT (\d+(?:\.\d+)?) supports operators (?:in the inclusive range of opset \d+ to opset|up to Opset) (\d+)", text)
    if head is None:
        raise ValueError("no 'TensorRT X supports operators ... opset N' line")
    kinds = re.search(r"supports the following ONNX data types: ([^\n]+)", text)
    named = {_TRT_TYPES[w] for w in re.findall(r"[A-Z]+\d*", kinds.group(1)) if w in _TRT_TYPES} if kinds else set()
    limited = re.search(r"limited support for ([A-Z0-9, and]+) types?", text)
    if limited:
        named |= {_TRT_TYPES[w] for w in re.findall(r"[A-Z]+\d*", limited.group(1)) if w in _TRT_TYPES}
    rows: dict[str, Any] = {}
    for number, line in enumerate(text.splitlines(), 1):
        cells = [c.strip() for c in line.split("|")[1:]]
        if len(cells) < 2 or cells[1] not in ("Y", "N"):
            continue
        types = [_TRT_TYPES[t.strip()] for t in (cells[2] if len(cells) > 2 else "").split(",") if t.strip() in _TRT_TYPES]
        row: dict[str, Any] = {"line": number, "supported": cells[1] == "Y"}
        if types:
            row["types"] = " ".join(types)
        if len(cells) > 3 and cells[3]:
            row["restrictions"] = cells[3][:200]
        rows[f"ai.onnx:{cells[0]}"] = row
    return {"tensorrt": head.group(1), "max_opset": int(head.group(2)), "dtypes": " ".join(sorted(named)),
            "int64_cast": bool(re.search(r"cast down INT64", text)), "rows": rows}


def parse_openvino(text: str, device: str) -> dict[str, Any]:
    """onnxruntime's OpenVINO EP operator list (ov_versions/data_ops.cc, supported_op_mode):
    the ops whose device list names this device. An NPU is judged with the CPU list plus its own
    entries (capability.cc maps the NPU device to CPU)."""
    want = {"CPU", "NPU"} if device == "NPU" else {device}
    block = text.split("std::vector<SupportedOp> supported_op_mode = {", 1)
    if len(block) < 2:
        raise ValueError("no supported_op_mode list")
    offset = block[0].count("\n")
    rows: dict[str, Any] = {}
    for number, line in enumerate(block[1].split("};", 1)[0].splitlines(), offset + 1):
        m = re.search(r'\{"(\w+)",\s*(V_\w+),\s*\{([^}]*)\}\}', line)
        if m and want & set(re.findall(r'"(\w+)"', m.group(3))):
            rows.setdefault(f"*:{m.group(1)}", {"line": number, "since": m.group(2)})
    return rows


def parse_oplist(text: str) -> dict[str, Any]:
    """onnxruntime's '|ai.onnx:Op|Note|' support lists (NNAPI, CoreML)."""
    rows: dict[str, Any] = {}
    for number, line in enumerate(text.splitlines(), 1):
        m = re.match(r"\|([\w.]+):(\w+)\|(.*)\|\s*$", line)
        if m:
            row: dict[str, Any] = {"line": number}
            if m.group(3).strip():
                row["note"] = re.sub(r"<br/?>", " ", m.group(3)).strip()[:200]
            rows[f"{m.group(1)}:{m.group(2)}"] = row
    return rows


def parse_qnn(text: str) -> dict[str, Any]:
    """The ops the QNN EP registers an op builder for (qnn/builder/op_builder_factory.cc)."""
    rows: dict[str, Any] = {}
    for number, line in enumerate(text.splitlines(), 1):
        for op in re.findall(r'Create\w*OpBuilder\("(\w+)"', line):
            rows.setdefault(f"*:{op}", {"line": number})
    return rows


def build(sources: Path) -> dict[str, Any]:
    """Every table from the files in `sources`; raises FileNotFoundError naming a missing file."""
    tables: dict[str, Any] = {}
    for name, (fname, kind, arg, url, rev) in SOURCES.items():
        text = (sources / fname).read_text(encoding="utf-8")
        table: dict[str, Any] = {"source": url, "revision": rev, "file": fname, "kind": kind}
        if kind == "kernels":
            table["rows"] = parse_kernels(text, arg)
        elif kind == "tensorrt":
            table.update(parse_tensorrt(text))
        elif kind == "openvino":
            table["rows"] = parse_openvino(text, arg)
        elif kind == "oplist":
            table["rows"] = parse_oplist(text)
        else:
            table["rows"] = parse_qnn(text)
        if not table["rows"]:
            raise ValueError(f"{fname}: no rows parsed for {name}")
        tables[name] = table
    return {"providers": TARGETS, "tables": tables}


HEADER = ("# GENERATED by scripts/gen_provider_tables.py from the sources each table names (URL and revision;\n"
          "# 'line' is the row's line in that file). Do not edit: download the sources and run the script.\n")


def render(data: dict[str, Any]) -> str:
    import yaml

    return HEADER + yaml.safe_dump(data, sort_keys=False, default_flow_style=None, width=160, allow_unicode=True)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--sources", required=True, type=Path, help="folder holding the downloaded source files")
    ap.add_argument("--out", type=Path, default=OUT)
    ap.add_argument("--check", action="store_true", help="exit 1 when the table differs from a rebuild")
    args = ap.parse_args(argv)
    try:
        text = render(build(args.sources))
    except (OSError, ValueError) as exc:
        print(f"gen_provider_tables: error: {exc}", file=sys.stderr)
        return 2
    if args.check:
        stale = not args.out.exists() or args.out.read_text(encoding="utf-8") != text
        print(f"{args.out}: {'stale' if stale else 'up to date'}")
        return 1 if stale else 0
    args.out.write_text(text, encoding="utf-8")
    print(f"wrote {args.out} ({len(text)} bytes)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
