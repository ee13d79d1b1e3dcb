"""What an ONNX-family error text says about itself: provider, binding, source file, op, node,
status, exporter and aten op, converter. Each fact only where the text states it."""
from __future__ import annotations

import re

from diagnoser.matching import facts as generic
from diagnoser.triage.classify import groups

# onnxruntime's OrtErrorCode (onnxruntime_c_api.h); the JS and C APIs print the number alone.
_STATUS_NAMES = {
    "1": "FAIL", "2": "INVALID_ARGUMENT", "3": "NO_SUCHFILE", "4": "NO_MODEL", "5": "ENGINE_ERROR",
    "6": "RUNTIME_EXCEPTION", "7": "INVALID_PROTOBUF", "8": "MODEL_LOADED", "9": "NOT_IMPLEMENTED",
    "10": "INVALID_GRAPH", "11": "EP_FAIL",
}
_STATUS = (
    re.compile(r"\[ONNXRuntimeError\]\s*:\s*(\d{1,2})\s*:\s*([A-Z_]{3,30})"),
    re.compile(r"\[ErrorCode:(\w{2,40})\]"),
    re.compile(r"\bORT_([A-Z_]{3,30})\b"),
    re.compile(r"\berror code = (\d{1,2})\b|\bcode=(\d{1,2}), message="),  # JS; Dart's _OrtException
)
_BINDINGS = (
    ("C#", re.compile(r"Microsoft\.ML\.OnnxRuntime|OnnxRuntimeException|\.cs:line \d")),
    ("Dart", re.compile(r"_OrtException|package:onnxruntime/|\.dart:\d")),
    ("Java", re.compile(r"ai\.onnxruntime|OrtException|\.java:\d|java\.lang\.")),
    ("JavaScript", re.compile(r"onnxruntime-(?:web|node|react-native)|ort(?:\.min)?\.js|\.m?js:\d|Uncaught|\bwasm\b", re.I)),
    ("Rust", re.compile(r"\bort::|Result::unwrap|panicked at|\.rs:\d")),
    ("Go", re.compile(r"onnxruntime_go|\.go:\d")),
    ("Objective-C/Swift", re.compile(r"Error Domain=onnxruntime|\.swift:\d|ORTSession")),
    ("C++", re.compile(r"Ort::Exception|terminate called after|what\(\):|libc\+\+abi|Ort::Session")),
    ("Python", re.compile(r"Traceback \(most recent|\.py\"|onnxruntime_pybind11_state|File \"")),
)
_PROVIDER_LIB = re.compile(r"onnxruntime_providers_(cuda|tensorrt|openvino|dnnl|rocm|migraphx|qnn|vitisai|cann)\b", re.I)
_PROVIDER_NAMES = {
    "dml": "DmlExecutionProvider", "coreml": "CoreMLExecutionProvider", "nnapi": "NnapiExecutionProvider",
    "webgpu": "WebGpuExecutionProvider", "js": "JsExecutionProvider", "xnnpack": "XnnpackExecutionProvider",
    "cuda": "CUDAExecutionProvider", "tensorrt": "TensorrtExecutionProvider", "openvino": "OpenVINOExecutionProvider",
    "dnnl": "DnnlExecutionProvider", "rocm": "ROCMExecutionProvider", "migraphx": "MIGraphXExecutionProvider",
    "qnn": "QNNExecutionProvider", "vitisai": "VitisAIExecutionProvider", "cann": "CANNExecutionProvider",
}
_EP = re.compile(r"\bep:'(\w{2,60})'")
_PROVIDER_SRC = re.compile(
    r"providers[/\\](cuda|tensorrt|openvino|dml|qnn|coreml|nnapi|rocm|migraphx|dnnl|webgpu|js|xnnpack|vitisai|cann)[/\\]|"
    r"\b(cuda|tensorrt|openvino|dml|qnn|coreml|nnapi|rocm|migraphx|dnnl|webgpu|xnnpack|vitisai|cann)_execution_provider\b", re.I)
_SOURCE = re.compile(r"([\w.-]{1,80}\.(?:cc|cpp|cu|cxx|h|hpp|inl))[:(](\d{1,6})")
_PY_FRAME = re.compile(r"File \"([^\"\n]{1,300}\.py)\", line (\d{1,6})")
_OPS = (
    re.compile(r"(?:implementation|kernel) for (?:the node \S{0,200}:)?(?P<op>[A-Z][\w.]{0,60})\((?P<opset>\d{1,3})\)"),
    re.compile(r"No Op registered for (?P<op>\w{1,60}) with domain_version of (?P<opset>\d{1,3})"),
    re.compile(r"Op \((?P<op>\w{1,60})\)|Optype \((?P<op2>\w{1,60})\)|op_type:\s?(?P<op3>\w{1,60})|OpType: (?P<op4>\w{1,60})"),
    re.compile(r"running (?P<op>\w{1,60}) node"),
    re.compile(r"and type \((?P<op>\w{1,60})\)"),
    re.compile(r"Kernel \"\[(?P<op>\w{1,60})\]"),
    re.compile(r"\bfor (?:operator |op )?(?P<op>[A-Z][A-Za-z]{1,40})\((?P<opset>\d{1,3})\)"),
    # importers' own words for an op they lack (the tools of diagnoser/data/triage_tools.yaml): kraiskil/onnx2c
    # src/graph.cc 'Unimplemented: node operation %s', OpenPPL/ppl.nn graph_parser.cc 'unsupported op:
    # domain[%s], type[%s], version[%d]', alibaba/MNN's converters 'NOT_SUPPORTED_OP: [ %s ]', onnx/onnx-tensorrt
    # 'No importer registered for op: %s', apache/tvm relay/frontend/onnx.py and OpenVINO's ONNX frontend
    # listing the ops they do not support
    re.compile(r"Unimplemented: node operation (?P<op>[A-Z]\w{1,60})"),
    re.compile(r"unsupported op: domain\[[\w.]{0,40}\], type\[(?P<op>\w{1,60})\](?:, version\[(?P<opset>\d{1,3})\])?"),
    re.compile(r"NOT_SUPPORTED_OP: \[ (?P<op>[A-Z][A-Za-z]\w{0,60}) \]"),
    re.compile(r"No importer registered for op: (?P<op>\w{1,60})"),
    re.compile(r"(?:not supported for frontend ONNX|does not support the following ONNX operations): (?P<op>[A-Z]\w{1,60})"),
)
_NODES = (
    re.compile(r"node:'(?P<node>[^'\n]{1,300})'"),
    re.compile(r"node name: (?P<node>[^)\n]{1,300})\)"),
    re.compile(r"Node \((?P<node>[^)\n]{1,300})\) (?:Op|output)"),
    re.compile(r"\(node (?P<node>[^)\n]{1,300})\)"),
    re.compile(r"Kernel \"\[\w{1,60}\] (?P<node>[^\"\n]{1,300})\""),
)
_ATEN = re.compile(r"aten::(\w{1,80})|\baten\.(\w{1,80})(?:\.\w{1,40})?")
_DYNAMO = re.compile(r"dynamo=True|dynamo_export|torch\._dynamo|torch\.export|torch/onnx/_internal/(?:exporter|fx)|onnxscript|ExportedProgram|FakeTensor|torch\._export|TorchExportError", re.I)
_TORCHSCRIPT = re.compile(r"torch/onnx/utils\.py|torch\\onnx\\utils\.py|symbolic_opset|_jit_pass|TorchScript|torch\.jit|_run_symbolic_function|SymbolicValueError|UnsupportedOperatorError|TracerWarning|dynamo=False", re.I)
_CONVERTERS = re.compile(
    r"\b(tf2onnx|keras2onnx|skl2onnx|sklearn-onnx|paddle2onnx|onnxmltools|onnxconverter[-_]common|onnx[-_]tf|onnx2tf|onnx2torch|"
    r"hummingbird|jax2onnx|x2paddle|onnx-coreml|onnxsim|onnxslim|onnxoptimizer|mmdeploy|optimum)\b", re.I)


def _status(text: str) -> str | None:
    for rx in _STATUS:
        m = rx.search(text)
        if m:
            if rx is _STATUS[0]:
                return m.group(2)
            if rx is _STATUS[1]:
                return re.sub(r"(?<=[a-z])(?=[A-Z])", "_", m.group(1)).upper()
            if rx is _STATUS[3]:
                return _STATUS_NAMES.get(m.group(1) or m.group(2))
            return m.group(1)
    return None


def extract(text: str, error_lines: str, component: str) -> dict[str, str]:
    """Facts by name; error lines are read first, then the whole text."""
    out: dict[str, str] = {}
    base = generic.extract(error_lines) or generic.extract(text)
    for key in ("op", "opset", "node", "provider"):
        if base.get(key):
            out[key] = base[key]
    if "provider" not in out:
        m = _EP.search(text) or _PROVIDER_LIB.search(text) or _PROVIDER_SRC.search(text)
        if m:
            name = next(g for g in m.groups() if g)
            out["provider"] = name if m.re is _EP else _PROVIDER_NAMES[name.lower()]
    if "provider" not in out:
        named = next((g.provider for g in groups() if g.provider and g.rx.search(text)), None)
        if named:
            out["provider"] = named
    binding = next((name for name, rx in _BINDINGS if rx.search(text)), None)
    if binding:
        out["binding"] = binding
    src = _SOURCE.search(error_lines) or _SOURCE.search(text)
    if src:
        out["source_file"] = f"{src.group(1)}:{src.group(2)}"
    else:
        frames = _PY_FRAME.findall(text)
        if frames:
            path, line = frames[-1]
            name = re.split(r"[/\\\\]", path)[-1]
            out["source_file"] = f"{name}:{line}"
    for scope in (error_lines, text):
        if "op" in out:
            break
        for rx in _OPS:
            m = rx.search(scope)
            if m:
                d = {k: v for k, v in m.groupdict().items() if v}
                op = d.get("op") or d.get("op2") or d.get("op3") or d.get("op4")
                if op:
                    out["op"] = op
                    if d.get("opset"):
                        out.setdefault("opset", d["opset"])
                    break
    if "node" not in out:
        for rx in _NODES:
            m = rx.search(error_lines) or rx.search(text)
            if m:
                out["node"] = m.group("node").strip()
                break
    status = _status(error_lines) or _status(text)
    if status:
        out["status"] = status
    if component == "torch.onnx":
        out["exporter"] = "dynamo" if _DYNAMO.search(text) else ("torchscript" if _TORCHSCRIPT.search(text) else "unknown")
        aten = _ATEN.search(error_lines) or _ATEN.search(text)
        if aten:
            out["aten_op"] = "aten::" + (aten.group(1) or aten.group(2))
    conv = _CONVERTERS.search(error_lines) or _CONVERTERS.search(text)
    if conv and component in ("converter", "optimizer"):
        out["converter"] = conv.group(1).lower().replace("_", "-")
    if "opset" in out:
        out["op_version"] = out.pop("opset")
    return out
