"""Which component raised an ONNX-family error, and at which stage.

A traceback says it best: the outermost frame inside a known package is the tool the user called
(quantize_static calling onnxruntime is a quantization failure; torch.onnx.export calling the onnx
checker is an export failure). Without one, the words of the error lines decide, most specific
first. The vocabulary is fixed (COMPONENTS, STAGES) so that labels can be compared across tools.
"""
from __future__ import annotations

import re

COMPONENTS = ("onnxruntime", "torch.onnx", "onnx", "converter", "quantization", "optimizer", "onnxruntime-web", "install")
STAGES = ("export", "convert", "quantize", "load", "run", "install")

# Is the text about the ONNX family at all? Without one of these, no triage.
ONNX_FAMILY = re.compile(
    r"onnx|\bORT_[A-Z_]{3,}|\bOrt(?:Exception|Run|Session\w*|::)|\bort::|ExecutionProvider|InferenceSession|"
    r"ShapeInferenceError|TypeInferenceError|\bopset\b|ort-wasm|ort\.(?:min\.)?js|Microsoft\.ML\.OnnxRuntime|"
    r"Non-zero status code returned|Type parameter \(T\)|of (?:output|input) arg|bound to different types|"
    r"Could not find an implementation for|\bDirectML\b|\bDML\b|"
    # the runtime's own phrases that name no package
    r"Invalid rank for input|Required inputs \(|is missing in 'feeds'|Invalid (?:Feed )?Input Name|Invalid Output Name|"
    r"indices element out of data bounds|BFCArena|MLDataType|VerifyOutputSizes|AssignNodesToEps|kernel def hash|"
    r"is not a registered function/op|protobuf parsing failed|No graph was found in the protobuf|Input must be a list of dictionaries|"
    r"Exception during initialization|Unexpected input data type|Got invalid dimensions|"
    # the exporters' and converters' own phrases
    r"TracerWarning|dynamic_axes|export an ONNX|ONNX symbolic|Tensorflow op \[|Unsupported ops: Counter|MissingShapeCalculator|"
    r"ModelProto|2GiB limit",
    re.I,
)

# Traceback frames: the package a frame's file belongs to.
_FRAME = re.compile(r"(?:File \"|^\s*at |\bin )([^\"\n]{1,300}?\.(?:py|js|ts|cs|java))\b", re.M)
_PACKAGES: tuple[tuple[str, re.Pattern[str]], ...] = (
    ("quantization", re.compile(r"onnxruntime[/\\]quantization|neural_compressor|onnxruntime[/\\]tools[/\\]symbolic_shape", re.I)),
    ("optimizer", re.compile(r"onnxsim|onnxslim|onnxoptimizer|onnx_graphsurgeon|onnxruntime[/\\]transformers[/\\](?:optimizer|fusion|onnx_model)|polygraphy", re.I)),
    ("converter", re.compile(r"tf2onnx|keras2onnx|skl2onnx|paddle2onnx|onnxmltools|onnxconverter_common|onnx_tf|onnx2tf|onnx2torch|hummingbird|jax2onnx|x2paddle|onnx_coreml", re.I)),
    ("torch.onnx", re.compile(r"torch[/\\](?:onnx|export|_dynamo|_export)|optimum[/\\]exporters|transformers[/\\]onnx", re.I)),
    ("onnx", re.compile(r"[/\\]onnx[/\\](?:checker|shape_inference|version_converter|helper|numpy_helper|external_data_helper|__init__|reference|compose)\.py", re.I)),
    ("onnxruntime-web", re.compile(r"onnxruntime-web|onnxruntime-node|onnxruntime-react-native|ort(?:\.min|\.webgpu|\.all)?\.m?js", re.I)),
    ("onnxruntime", re.compile(r"onnxruntime[/\\]capi|onnxruntime_inference_collection|optimum[/\\]onnxruntime", re.I)),
)

# Words of the error itself, most specific first.
_WORDS: tuple[tuple[str, re.Pattern[str]], ...] = (
    ("install", re.compile(
        r"No module named '?(?:onnx|onnxruntime|tf2onnx|skl2onnx|onnxsim|onnxslim)\b|DLL load failed while importing (?:onnx|onnxruntime)|"
        r"No matching distribution found for (?:onnx|onnxruntime)|requirement (?:onnx|onnxruntime)|requested API version \[\d+\] is not available|"
        r"UnsatisfiedLinkError|(?:lib)?onnxruntime[\w.-]*\.(?:so|dylib|dll)[^\n]{0,80}(?:cannot open|not found|image not found|could not be found|Unable to load)|"
        r"Unable to load (?:DLL|shared library) '?onnxruntime|onnxruntime\w*\.(?:so|dll)[^\n]{0,40}undefined symbol|"
        r"cannot import name '\w+' from '(?:onnx|onnxruntime)|module '(?:onnx|onnxruntime)' has no attribute", re.I)),
    ("onnxruntime-web", re.compile(
        r"onnxruntime-(?:web|node|react-native)|ort-wasm|ort\.(?:min\.)?js|\bwasm\b|WebAssembly|WebGPU|WebGL|WebNN|JsExecutionProvider|"
        r"no available backend found|backend not found", re.I)),
    ("quantization", re.compile(
        r"quantize_(?:dynamic|static|qat)|quant_pre_process|CalibrationDataReader|calibrat(?:e|ion|or)\b|QDQQuantizer|QuantFormat|"
        r"onnxruntime\.quantization|MatMul(?:4Bits|NBits)Quantizer", re.I)),
    ("optimizer", re.compile(r"\bonnxsim\b|onnx-simplifier|onnx_simplifier|onnxslim|onnxoptimizer|onnx-optimizer|optimize_model\(", re.I)),
    ("converter", re.compile(
        r"tf2onnx|keras2onnx|skl2onnx|sklearn-onnx|paddle2onnx|onnxmltools|onnxconverter[-_]common|convert_float_to_float16|onnx[-_]tf\b|"
        r"onnx2tf|onnx2torch|hummingbird|jax2onnx|x2paddle|MissingShapeCalculator|Tensorflow op \[", re.I)),
    ("torch.onnx", re.compile(
        r"torch\.onnx|torch\.export|torch\._dynamo|aten::|\baten\.\w|symbolic_opset|SymbolicValueError|OnnxExporterError|"
        r"Exporting the operator|ONNX export|export failure|dynamo_export|TorchExportError|torch\.jit|TracerWarning|ExportedProgram|"
        r"export an ONNX|ONNX symbolic|symbolic expected|TorchScript graph|prim::|dynamic_axes|dynamic_shapes", re.I)),
    ("onnx", re.compile(
        r"onnx\.(?:checker|shape_inference|version_converter|helper|onnx_cpp2py_export)|ShapeInferenceError|TypeInferenceError|"
        r"ValidationError|version_converter|No Op registered for|check_model|infer_shapes|onnx/defs|onnx\\\\defs|"
        r"ModelProto exceeds|2GiB limit|Failed to serialize proto|No graph was found in the protobuf|Bad node spec", re.I)),
    ("onnxruntime", re.compile(
        r"ONNXRuntimeError|onnxruntime|\bORT_[A-Z_]{3,}|OrtException|Ort::Exception|\bort::|ExecutionProvider|InferenceSession|"
        r"Non-zero status code|Load model from|Microsoft\.ML\.OnnxRuntime", re.I)),
)

_RUN = re.compile(
    r"Invalid rank for input|indices element out of data bounds|BFCArena|relative difference|is missing in 'feeds'|"
    r"Input must be a list of dictionaries|reshaped to the requested shape|VerifyOutputSizes|Could not create tensor|"
    r"Non-zero status code returned while running|\.run\(|\bRun\(|OrtRun|RunOptions|Got invalid dimensions|Unexpected input data type|"
    r"Required inputs? \([^)\n]{0,200}\) (?:is|are) missing|Invalid (?:Feed )?Input Name|Invalid Output Name|data type discovered|"
    r"_sess\.run|session\.run|sess\.run|\.predict\(|Kernel \"\[|failed to inference|run failed", re.I)
_INSTALL = re.compile(
    r"No module named|DLL load failed|No matching distribution|requested API version|UnsatisfiedLinkError|cannot open shared object|"
    r"Unable to load (?:DLL|shared library)|undefined symbol|pip install|backend not found|no available backend|Illegal instruction|"
    r"GLIBC_|Failed to load (?:the )?(?:wasm|WebAssembly)|magic word|MIME type|Cannot find module|cannot import name", re.I)
_CONVERT = re.compile(r"version_converter|convert_version", re.I)
_SERIALISE = re.compile(r"ModelProto exceeds|2GiB limit|Failed to serialize proto|SerializeToString", re.I)
_PARSE = re.compile(r"Protobuf parsing failed|No graph was found|ModelProto does not have a graph|external data|Deserialize tensor", re.I)
# the runtime's provider libraries and the packages that carry them: an installation matter
_PROVIDER_SETUP = re.compile(
    r"onnxruntime_providers_(?:cuda|tensorrt|shared|rocm|openvino)|libcudnn|libcublas|cudnn64|cublas(?:Lt)?64|cudart|CUDA_PATH|"
    r"not in available provider names|subset of available providers|EntryPointNotFound|requested API version", re.I)


def _outermost_package(text: str) -> str | None:
    for m in _FRAME.finditer(text):
        path = m.group(1)
        for component, rx in _PACKAGES:
            if rx.search(path):
                return component
    return None


def component_of(text: str, error_lines: str) -> str:
    """The component: the outermost known traceback frame, else the error lines' words, else the
    whole text's words (onnxruntime when only the family is named)."""
    framed = _outermost_package(text)
    if framed:
        if framed in ("onnxruntime", "onnx") and _WORDS[0][1].search(error_lines):
            return "install"
        return framed
    for scope in (error_lines, text):
        for component, rx in _WORDS:
            if rx.search(scope):
                return component
    return "onnxruntime"


def stage_of(component: str, text: str, error_lines: str) -> str:
    """The stage, from the component and what the error lines say was being done."""
    if component == "install":
        return "install"
    if component == "torch.onnx":
        return "export"
    if component in ("converter", "optimizer"):
        return "convert"
    if component == "quantization":
        return "quantize"
    if component == "onnx":
        # the entries file checker and shape-inference complaints under the step that made the
        # model (convert); parsing a file is loading it, writing one past 2 GB is exporting it
        if _SERIALISE.search(error_lines):
            return "export"
        return "load" if _PARSE.search(text) and not _CONVERT.search(text) else "convert"
    if _INSTALL.search(error_lines) or _PROVIDER_SETUP.search(error_lines):
        return "install"
    if _RUN.search(error_lines) or _RUN.search(text):
        return "run"
    return "load"
