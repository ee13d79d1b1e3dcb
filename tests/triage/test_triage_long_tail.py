"""Triage on the long tail: tools named only by their own words or module paths (onnx-tensorrt's
parser, OpenVINO's ONNX frontend, OpenCV DNN, onnx-coreml, onnx2pytorch, onnxjs, transformers.js),
installations broken in ways every binding shows (.NET assemblies, linkers, headers, duplicate
onnx libraries, circular or shadowed imports), and texts that look like ONNX but are not
(TensorFlow on DirectML, ExecuTorch's QNN backend). Every text is a real paste from the public
thread cited beside it; none comes from a blind set (their sources are in /work/blind/sources.txt).
"""
from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from diagnoser.matching.text import prepare
from tests.triaging import kind_of, triage_of




CONVERTERS = [
    # open-mmlab/mmdeploy#925: onnx-tensorrt's ModelImporter names its parseGraph step
    ("RuntimeError: Failed to parse onnx, In node 28 (parseGraph): INVALID_NODE: Invalid Node - Conv_28 Conv_28: "
     "two inputs (data and weights) are allowed only in explicit-quantization mode."),
    # openvinotoolkit/openvino#15093: OpenVINO's ONNX frontend validating a node
    "RuntimeError: While validating ONNX node '<Node(Conv): Conv_0>':\ngraph_input_cast_0 node not found in graph cache",
    # ultralytics/ultralytics#3164: OpenCV DNN's layer made from an ONNX node (onnx_node!), in modules/dnn/src
    ("[ERROR:0@0.589] global net_impl.cpp:1166 getLayerShapesRecursively OPENCV/DNN: [Reshape]:(onnx_node!Reshape_234): "
     "getMemoryShapes() throws exception. inputs=1 outputs=1/1 blobs=0\n"
     "[ERROR:0@0.589] global net_impl.cpp:1182 getLayerShapesRecursively Exception message: OpenCV(4.7.0-dev) "
     "/home/guerra38/opencv_build/opencv/modules/dnn/src/layers/reshape_layer.cpp:150: error: (-1:Backtrace) "
     "Can't infer a dim denoted by -1 in function 'computeShapeByReshapeMask'"),
    # isty2e/KataGoONNX#1: coremltools' ONNX converter (onnx-coreml moved into coremltools)
    ("1/284: Converting Node Type Slice\nTraceback (most recent call last):\n"
     "  File \"convert.py\", line 12, in <module>\n    new_model = ct.converters.onnx.convert(model)\n"
     "  File \"/Users/huangyiming/opt/miniconda3/envs/katago/lib/python3.7/site-packages/coremltools/converters/onnx/"
     "_converter.py\", line 743, in convert\n    _convert_node(builder, node, graph, err)\n"
     "  File \"/Users/huangyiming/opt/miniconda3/envs/katago/lib/python3.7/site-packages/coremltools/converters/onnx/"
     "_operators.py\", line 2670, in _convert_node\n    return converter_fn(builder, node, graph, err)\n"
     "  File \"/Users/huangyiming/opt/miniconda3/envs/katago/lib/python3.7/site-packages/coremltools/converters/onnx/"
     "_operators.py\", line 1909, in _convert_slice\n    starts = node.attrs[\"starts\"]\nKeyError: 'starts'"),
    # the same paste, its traceback left out: onnx-coreml's progress line alone names the converter
    "1/284: Converting Node Type Slice\nKeyError: 'starts'",
    # Talmaj/onnx2pytorch#63 and #53: onnx2pytorch's message names the ONNX node field op_type
    "NotImplementedError: Conversion not implemented for op_type=If.",
    "NotImplementedError: Conversion not implemented for op_type=LRN.",
]


@pytest.mark.parametrize("text", CONVERTERS)
def test_tools_reading_onnx_into_another_framework_are_a_converter(text):
    assert kind_of(text) == ("converter", "convert")


def test_opencv_dnn_on_another_frameworks_model_is_not_about_onnx():
    # opencv/opencv#18209: OpenCV DNN reads Caffe, TensorFlow and Darknet models too. Its own files make a text
    # ONNX-family only when the text names no other format it reads (session 12: its ONNX importer is what the
    # blind sets' OpenCV DNN texts were about); beside a TensorFlow graph the same line is not about ONNX
    text = ("cv2.error: OpenCV(4.4.0) /build/opencv/src/opencv-4.4.0/modules/dnn/src/layers/reshape_layer.cpp:149: "
            "error: (-215:Assertion failed) dstTotal != 0 in function 'computeShapeByReshapeMask'")
    assert kind_of(text) == ("converter", "convert")
    assert kind_of("net = cv2.dnn.readNetFromTensorflow('frozen_graph.pb')\n" + text) is None


def test_openvino_inside_onnxruntime_stays_onnxruntime():
    # microsoft/onnxruntime#18042: the OpenVINO provider's session creation, whose frontend words appear inside
    text = ("ERROR - [ONNXRuntimeError] : 6 : RUNTIME_EXCEPTION : Exception during initialization: "
            "/home/onnxruntimedev/onnxruntime/onnxruntime/core/providers/openvino/ov_interface.cc:53 "
            "onnxruntime::openvino_ep::OVExeNetwork onnxruntime::openvino_ep::OVCore::LoadNetwork(const string&, "
            "std::string&, ov::AnyMap&, std::string) [OpenVINO-EP]  Exception while Loading Network for graph: "
            "OpenVINOExecutionProvider_OpenVINO-EP-subgraph_3_0Check 'false' failed at src/inference/src/core.cpp:149:\n"
            "Check 'false' failed at src/frontends/onnx/frontend/src/core/graph_cache.cpp:25:\n"
            "output/pos:0 node not found in graph cache")
    assert kind_of(text) == ("onnxruntime", "load")


WEB = [
    # microsoft/onnxjs#310: ONNX.js's graph builder on an optional input left empty ('')
    ("Uncaught (in promise) Error: unrecognized input '' for node: Resize_61\n    at t.buildGraph (graph.ts:313)\n"
     "    at new t (graph.ts:139)\n    at Object.from (graph.ts:77)\n    at t.load (model.ts:25)", "load"),
    # microsoft/onnxruntime#15006: onnxruntime-web's webgl backend (the onnxjs code) loading the model
    ("Uncaught (in promise) TypeError: Cannot read properties of undefined (reading 'inputs')\n"
     "    at graph.ts:644:35\n    at Array.forEach (<anonymous>)\n    at p.finalizeGraph (graph.ts:643:29)\n"
     "    at p.transformGraph (graph.ts:576:10)\n    at new p (graph.ts:155:10)\n    at Object.from (graph.ts:83:7)\n"
     "    at e.Model.loadFromOnnxFormat (model.ts:44:25)\n    at e.Model.load (model.ts:22:14)", "load"),
    # jacoblee93/fully-local-pdf-chatbot#13: transformers.js reporting onnxruntime-web's failed run
    ('An error occurred during model execution: "Error: failed to call OrtRun(). error code = 6.', "run"),
]


@pytest.mark.parametrize("text,stage", WEB)
def test_onnxjs_and_transformers_js_are_the_web_runtime(text, stage):
    assert kind_of(text) == ("onnxruntime-web", stage)


INSTALLS = [
    # PaddlePaddle/Paddle2ONNX#1610: the converter's own native module does not load
    ("Traceback (most recent call last):\n  File \"<frozen runpy>\", line 198, in _run_module_as_main\n"
     "  File \"D:\\languages\\python\\Lib\\site-packages\\paddle2onnx\\__init__.py\", line 54, in <module>\n"
     "    from .convert import export  # noqa: F401\n"
     "  File \"D:\\languages\\python\\Lib\\site-packages\\paddle2onnx\\convert.py\", line 18, in <module>\n"
     "    import paddle2onnx.paddle2onnx_cpp2py_export as c_p2o\n"
     "ImportError: DLL load failed while importing paddle2onnx_cpp2py_export: 找不到指定的程序。"),
    # crewAIInc/crewAI#2846: chromadb's check that importing onnxruntime works
    ("  File \"D:\\aproject\\pythonProject3\\crew_new\\.venv\\Lib\\site-packages\\chromadb\\utils\\embedding_functions\\"
     "onnx_mini_lm_l6_v2.py\", line 65, in __init__\n    raise ValueError(\n"
     "ValueError: The onnxruntime python package is not installed. Please install it with `pip install onnxruntime`"),
    # gmalivenko/onnx2keras#69: a script named onnx2keras.py imports itself
    ("Traceback (most recent call last):\n  File \"onnx2keras.py\", line 2, in <module>\n"
     "    from onnx2keras import onnx_to_keras\n  File \"/home/shreyas/pose/pretrained/onnx2keras.py\", line 2, in <module>\n"
     "    from onnx2keras import onnx_to_keras\n"
     "ImportError: cannot import name 'onnx_to_keras' from partially initialized module 'onnx2keras' "
     "(most likely due to a circular import)"),
    # microsoft/onnxruntime#25287: .NET cannot bind the onnxruntime assembly the caller was built against
    ("Unhandled exception. System.IO.FileNotFoundException: Could not load file or assembly 'Microsoft.ML.OnnxRuntime, "
     "Version=1.22.0.0, Culture=neutral, PublicKeyToken=f27f157f0a5b7bb6'. The system cannot find the file specified.\n"
     "File name: 'Microsoft.ML.OnnxRuntime, Version=1.22.0.0, Culture=neutral, PublicKeyToken=f27f157f0a5b7bb6'"),
    # microsoft/onnxruntime#10048: a method the caller was compiled against is missing from the loaded assembly
    ("System.MissingMethodException: Method not found: System.Memory`1<!0> "
     "Microsoft.ML.OnnxRuntime.Tensors.DenseTensor`1.get_Buffer()"),
    # luncliff/vcpkg-registry#382: onnx's operator schemas registered twice (onnx linked beside onnxruntime's own)
    ("Schema error: Trying to register schema with name Abs (domain:  version: 1) from file "
     "D:\\tools\\vcpkg\\buildtrees\\onnx\\src\\v1.16.2-24dd2633c0.clean\\onnx\\defs\\math\\old.cc line 1761, but it is "
     "already registered from file D:\\tools\\vcpkg\\buildtrees\\onnx\\src\\v1.16.2-24dd2633c0.clean\\onnx\\defs\\math\\"
     "old.cc line 1761"),
    # onnx/onnx-tensorrt#546: linking onnx2trt without the libraries TensorRT needs
    ("[ 83%] Linking CXX executable onnx2trt\n/usr/bin/ld: warning: libcudnn.so.7, needed by "
     "/usr/local/tensorrt/lib/libnvinfer.so, not found (try using -rpath or -rpath-link)\n"
     "/usr/local/tensorrt/lib/libnvinfer.so: undefined reference to `cublasCreate_v2@libcublas.so.10.0'"),
    # UNeedCryDear/yolov8-opencv-onnxruntime-cpp#8: the onnxruntime headers are not on the include path
    ("/home/mad/yolov8-opencv-onnxruntime-cpp/yolov8_onnx.h:6:32: fatal error: onnxruntime_cxx_api.h: "
     "No such file or directory\ncompilation terminated."),
    # microsoft/onnxruntime#21891: MSVC's form
    "error C1083: Cannot open include file: “onnxruntime_cxx_api.h”: No such file or directory",
]


@pytest.mark.parametrize("text", INSTALLS)
def test_broken_installations_are_install(text):
    assert kind_of(text) == ("install", "install")


def test_build_words_alone_do_not_open_the_family():
    # dotnet/machinelearning#6779: a TypeLoadException of ML.NET's TorchSharp package, nothing ONNX
    text = ("System.TypeLoadException\n  HResult=0x80131522\n  Message=Method 'call' in type "
            "'Microsoft.ML.TorchSharp.NasBert.Models.TransformerEncoder' from assembly 'Microsoft.ML.TorchSharp, "
            "Version=1.0.0.0, Culture=neutral, PublicKeyToken=cc7b13ffcd2ddd51' does not have an implementation.")
    assert kind_of(text) is None


NOT_ONNX = [
    # microsoft/WSL#5455: TensorFlow on DirectML (tensorflow-directml), no ONNX component involved
    ("2020-06-20 16:32:45.432744: F tensorflow/core/common_runtime/dml/dml_adapter_impl.cc:123] Check failed: "
     "(((HRESULT)((DXCoreCreateAdapterFactory(__uuidof(**(&adapter_factory)), IID_PPV_ARGS_Helper(&adapter_factory)))))"
     " >= 0) == true (0 vs. 1)"),
    # microsoft/T-MAC#102: ExecuTorch's Qualcomm backend finalizing a QNN graph
    ("[ERROR] [Qnn ExecuTorch]: graph_prepare.cc:2939:ERROR:Graph prepare failed during optimization with err: 17, "
     "Fatal Optimize\n[ERROR] [Qnn ExecuTorch]:  <E> RouterX86 graph prepare failed 17\n"
     "[ERROR] [Qnn ExecuTorch]:  <E> Failed to finalize graph (id: 1) with err 1002\n"
     "[ERROR] [Qnn ExecuTorch]: Failed to finalize Qnn Graph with error: 1002\n"
     "[ERROR] [Qnn ExecuTorch]: Fail to compile QNN graph"),
]


@pytest.mark.parametrize("text", NOT_ONNX)
def test_other_frameworks_backends_get_no_triage(text):
    assert kind_of(text) is None


def test_qnn_sdk_words_inside_onnxruntime_s_log_name_the_provider():
    # microsoft/onnxruntime#21221: the QNN SDK's QnnDsp line, logged by onnxruntime
    text = ("2024-07-01 21:56:45.190532281 [V:onnxruntime:test, qnn_backend_manager.cc:249 QnnLogging] "
            "QnnDsp <E> Failed to finalize graph (id: 1) with err 1002")
    t = triage_of(text)
    assert t is not None and t.component == "onnxruntime" and t.facts["provider"] == "QNNExecutionProvider"
    assert triage_of(text.split("QnnLogging] ")[1]) is None  # the SDK's line alone is any QNN user's


def test_optimum_s_validation_of_the_exported_model_is_the_exporter():
    # huggingface/optimum#449: optimum.exporters.onnx comparing the ONNX outputs with PyTorch's (converter, export
    # as the blind sets label optimum's exporter)
    text = ("Validating ONNX model...\n\t-[✓] ONNX model output names match reference model (logits)\n"
            "\t- Validating ONNX Model output \"logits\":\n\t\t-[✓] (2, 16, 32128) matches (2, 16, 32128)\n"
            "\t\t-[x] values not close enough, max diff: 0.003337860107421875 (atol: 1e-05)")
    assert kind_of(text) == ("converter", "export")


@pytest.mark.skipif(shutil.which("gcc") is None, reason="needs gcc")
def test_an_extension_module_whose_onnxruntime_library_is_missing_is_its_installation(tmp_path):
    """CPython's own ImportError for an extension module linked with a provider library that is not
    there (built here with gcc: the library is linked, then removed)."""
    lib = tmp_path / "lib"
    lib.mkdir()
    (tmp_path / "stub.c").write_text("int ort_stub(void) { return 0; }\n")
    (tmp_path / "ext.c").write_text("int ort_stub(void);\nint probe(void) { return ort_stub(); }\n")
    so = lib / "libonnxruntime_providers_cuda.so"
    for cmd in (["gcc", "-shared", "-fPIC", str(tmp_path / "stub.c"), "-o", str(so)],
                ["gcc", "-shared", "-fPIC", str(tmp_path / "ext.c"), "-L", str(lib), "-lonnxruntime_providers_cuda",
                 "-o", str(tmp_path / "sherpa_probe.so")]):
        subprocess.run(cmd, check=True, capture_output=True, timeout=120)
    so.unlink()
    out = subprocess.run([sys.executable, "-c", "import sherpa_probe"], cwd=tmp_path, capture_output=True, text=True,
                         timeout=60)
    assert "ImportError: libonnxruntime_providers_cuda.so: cannot open shared object file" in out.stderr
    assert kind_of(out.stderr) == ("install", "install")
    # microsoft/onnxruntime#21684: onnxruntime itself loading the provider, whose dependency is missing, is the session's
    text = ("FAIL : Failed to load library libonnxruntime_providers_cuda.so with error: libcublasLt.so.11: "
            "cannot open shared object file: No such file or directory")
    assert kind_of(text) == ("onnxruntime", "load")


def _run(tmp_path: Path, folder: str, code: str) -> str:
    """The traceback CPython prints for a script `code` run from a folder named `folder`."""
    app = tmp_path / folder
    app.mkdir()
    (app / "app.py").write_text(code)
    out = subprocess.run([sys.executable, str(app / "app.py")], capture_output=True, text=True, timeout=120)
    assert out.returncode != 0
    return out.stderr


def test_another_package_missing_from_an_onnx_application_is_that_package_s_problem(tmp_path):
    text = _run(tmp_path, "onnx_app", "import no_such_package_here\n")
    assert "onnx_app" in text and "No module named 'no_such_package_here'" in text
    assert kind_of(text) is None
    # an ONNX package missing is the installation's, whatever the application
    text = _run(tmp_path, "app2", "import onnxruntime_no_such_build\n")
    assert kind_of(text) == ("install", "install")


def test_a_missing_model_file_is_the_session_s_load_but_a_name_alone_says_nothing(tmp_path):
    # bench/data/LABELS.md: an .onnx file the application cannot find is filed under onnxruntime's
    # load (the session it was for was never created), as the blind sets' threads mostly do
    text = _run(tmp_path, "voices", "open('voices/en_US-test.onnx', 'rb')\n")
    assert "FileNotFoundError" in text and kind_of(text) == ("onnxruntime", "load")
    # pydantic's ValidationError is not onnx.checker's, and a path that is no file says nothing missing
    text = _run(tmp_path, "settings", "from pathlib import Path\nfrom pydantic import BaseModel, FilePath\n"
                "class Settings(BaseModel):\n    model_path: FilePath\nSettings(model_path=Path('model.onnx'))\n")
    assert "1 validation error for Settings" in text and kind_of(text) is None
    # onnxruntime's own words on the same missing file are the session's
    text = _run(tmp_path, "ort", "import onnxruntime\nonnxruntime.InferenceSession('voices/en_US-test.onnx')\n")
    assert kind_of(text) == ("onnxruntime", "load")
    # qdrant/fastembed#127: a library that only runs ONNX models with onnxruntime, its cache emptied
    assert kind_of("Could not find model.onnx in /var/folders/.../fastembed_cache/model-name") == ("onnxruntime", "load")


def test_a_local_file_named_like_an_onnx_package_is_the_installation(tmp_path):
    """A script named skl2onnx.py imports itself instead of the package (produced here with CPython):
    run as the script (3.8+ says 'partially initialized ... circular import'), or imported by another
    script once complete (every release says only "module 'skl2onnx' has no attribute")."""
    app = tmp_path / "app"
    app.mkdir()
    (app / "skl2onnx.py").write_text("def convert():\n    import skl2onnx\n    return skl2onnx.convert_sklearn(None)\n"
                                     "if __name__ == '__main__':\n    import skl2onnx\n    skl2onnx.convert_sklearn(None)\n")
    (app / "main.py").write_text("import skl2onnx\nskl2onnx.convert()\n")
    for script in ("skl2onnx.py", "main.py"):
        out = subprocess.run([sys.executable, script], cwd=app, capture_output=True, text=True, timeout=60)
        assert "has no attribute 'convert_sklearn'" in out.stderr and "skl2onnx.py\", line" in out.stderr
        assert kind_of(out.stderr) == ("install", "install"), out.stderr


LAZY_IMPORTS = [
    # philschmid/optimum-transformers-optimizations#1: optimum's lazy module and a transformers it does not fit
    ("RuntimeError: Failed to import optimum.onnxruntime.optimization because of the following error (look up to see "
     "its traceback):\ncannot import name 'cached_path' from 'transformers.file_utils' "
     "(d:\\Programs\\anaconda3\\envs\\optimum\\lib\\site-packages\\transformers\\file_utils.py)"),
    # huggingface/optimum#1177
    ("  File \"/home/tupk/anaconda3/envs/nlp/lib/python3.8/site-packages/transformers/utils/import_utils.py\", line 1093, "
     "in _get_module\n    raise RuntimeError(\nRuntimeError: Failed to import optimum.onnxruntime.modeling_decoder because "
     "of the following error (look up to see its traceback):\ncannot import name 'ORTModelForCausalLM' from "
     "'optimum.onnxruntime'"),
]


@pytest.mark.parametrize("text", LAZY_IMPORTS)
def test_a_lazy_module_failing_to_import_is_the_installation(text):
    assert kind_of(text) == ("install", "install")


def test_barracuda_s_layer_import_exception_is_its_onnx_importer():
    # Unity-Technologies/barracuda-release#272: Barracuda's ONNXTensor rejecting a constant (the first line of the paste)
    text = ('Asset import failed, "Assets/hand_pose_classifier 1.onnx" > OnnxLayerImportException: Could not read tensor '
            "data for constant tensor.")
    assert kind_of(text) == ("converter", "convert")


MORE_CONVERTERS = [
    # apple/coremltools#1056: coremltools' ONNX converter listing the ops Core ML has no layer for
    "NotImplementedError: Unsupported ONNX ops of type: If,NonMaxSuppression,Range",
    # Tencent/TNN#1315: TNN's converter script around its onnx2tnn tool
    ("Converter ONNX to TNN Model...\n\nConverter ONNX to TNN check_onnx_dim...\n\nConverter ONNX to TNN check_onnx_dim...\n\n"
     "Converter ONNX to TNN model failed!"),
]


@pytest.mark.parametrize("text", MORE_CONVERTERS)
def test_more_onnx_to_framework_converters(text):
    assert kind_of(text) == ("converter", "convert")


@pytest.fixture(scope="module")
def examples() -> dict[str, list[str]]:
    from kb import load

    return {eid: [ex.text for ex in d.entry.examples] for eid, d in load(strict=False).documents.items()}


@pytest.mark.parametrize(("entry", "needle"), [
    ("OT1114", "Failed to parse onnx file"),  # trtexec reading the ONNX file with onnx-tensorrt's parser
    ("OT0856", "builtin_op_importers.cpp"),  # onnx-tensorrt's op importers, quoted by paddle2onnx users
])
def test_tensorrt_s_onnx_parser_is_its_onnx_importer(examples, entry, needle):
    # the blind sets label TensorRT's ONNX parser converter/convert, as OpenCV's or OpenVINO's importer
    texts = [t for t in examples[entry] if needle in t]
    assert texts and all(kind_of(t) == ("converter", "convert") for t in texts), texts
