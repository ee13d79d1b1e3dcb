"""Tools recognised by their own words and frames (session 8): serving stacks and applications
built on onnxruntime, other engines and compilers that import an ONNX file, TensorRT's own engine
builder (not ONNX), a missing model file, and the names the TorchScript exporter gives a graph.
Texts are real pastes from public threads (cited beside each, none from a blind set) or produced
here by the installed tools; each case failed on the triage before these rules.
"""
from __future__ import annotations

import re
import subprocess
import sys

import pytest

from diagnoser.triage import triage
from diagnoser.triage.classify import _outermost_package, _table, is_onnx_family
from tests.triaging import kind_of




CASES = [
    # triton-inference-server/server#7022: the container has no onnxruntime backend (rule: installation)
    ("E0322 05:27:28.711963 70 model_lifecycle.cc:638] failed to load 'densenet_onnx' version 1: Invalid argument: "
     "unable to find backend library for backend 'onnxruntime', try specifying runtime on the model configuration.",
     ("install", "install")),
    # huggingface/transformers.js#1363: Node cannot load onnxruntime-node's native addon
    ("  return process.dlopen(module, path.toNamespacedPath(filename));\n                 ^\n\n"
     "Error: The specified module could not be found.\n\\\\?\\C:\\Codes\\nodejs\\cc-test\\node_modules\\@huggingface\\"
     "transformers\\node_modules\\onnxruntime-node\\bin\\napi-v3\\win32\\x64\\onnxruntime_binding.node\n"
     "    at Object..node (node:internal/modules/cjs/loader:1850:18)",
     ("install", "install")),
    # k2-fsa/sherpa-onnx#2110: an application built on onnxruntime, failing while it creates its recognizer
    ("java_vm_ext.cc:594] JNI DETECTED ERROR IN APPLICATION: attempt to access field java.lang.String "
     "com.k2fsa.sherpa.onnx.OfflineNemoEncDecCtcModelConfig.model from an object argument of type "
     "com.k2fsa.sherpa.onnx.OfflineDolphinModelConfig: 0xb3\n"
     "                                                                                                    "
     "java_vm_ext.cc:594]     in call to GetObjectField\n"
     "                                                                                                    "
     "java_vm_ext.cc:594]     from long com.k2fsa.sherpa.onnx.OfflineRecognizer.newFromFile("
     "com.k2fsa.sherpa.onnx.OfflineRecognizerConfig)",
     ("onnxruntime", "load")),
    # llvm/torch-mlir#3593: torch-mlir's ONNX import (torch.operator "onnx.X", torch.onnx.* attributes) is not torch.onnx
    ("repro_transpose.mlir:6:12: error: failed to legalize operation 'torch.operator' that was explicitly marked illegal\n"
     '    %241 = torch.operator "onnx.Transpose"(%240) {torch.onnx.perm = [0 : si64, 2 : si64, 1 : si64]} : '
     "(!torch.vtensor<[],f32>) -> !torch.vtensor<[],f32> ",
     ("converter", "convert")),
    # hailo-ai/hailo_model_zoo#95: Hailo's parser logs onnxruntime's meta-data step, but it is the parser
    ("[info] Translation started on ONNX model xfeat\n"
     "[info] Restored ONNX model xfeat (completion time: 00:00:00.02)\n"
     "[info] Extracted ONNXRuntime meta-data for Hailo model (completion time: 00:00:00.10)\n"
     "[info] Simplified ONNX model for a parsing retry attempt (completion time: 00:00:00.43)\n"
     "Traceback (most recent call last):\n"
     '  File "/home/dx/Downloads/hailo_ai_sw_suite/hailo_venv/lib/python3.10/site-packages/hailo_sdk_client/'
     'sdk_backend/parser/parser.py", line 179, in translate_onnx_model\n'
     "    parsing_results = self._parse_onnx_model_to_hn(onnx_model, valid_net_name, start_node_names,",
     ("converter", "convert")),
    # Unity-Technologies/barracuda-release#249: Unity's import of an .onnx asset
    ('Asset import failed, "Assets/gpt2.onnx" > AssertionException: Assertion failure. Value was False',
     ("converter", "convert")),
    # open-mmlab/mmagic#1056: Ascend ATC names the op by ONNX's own domain (ai.onnx), which is no file name
    ("E19010: No parser is registered for Op [MMCVModulatedDeformConv2d_12097, optype "
     "[ai.onnx::11::MMCVModulatedDeformConv2d]].",
     ("converter", "convert")),
    # onnx/onnxmltools#386: onnxconverter-common's shape-calculator registry
    ("ValueError: Unsupported shape calculation for operator addBroadcastable", ("converter", "convert")),
]


@pytest.mark.parametrize(("text", "want"), CASES)
def test_a_tool_is_named_by_its_own_words(text, want):
    assert kind_of(text) == want


def test_tensorrt_s_own_engine_builder_is_not_onnx_but_its_parser_is():
    # open-mmlab/mmdeploy#2381: the builder finds no tactic for a fused region (node names from onnx::)
    builder = ("[08/28/2023-15:07:02] [TRT] [E] 10: Could not find any implementation for node "
               "{ForeignNode[onnx::Equal_453...Transpose_115 + Reshape_119]}.")
    assert kind_of(builder) is None
    # the same builder words beside onnxruntime's TensorRT provider stay onnxruntime's
    assert not is_onnx_family(builder) and is_onnx_family(builder + "\nTensorrtExecutionProvider")
    # open-mmlab/mmdeploy#48: mmdeploy's onnx2tensorrt step, the builder out of memory for a tactic
    deploy = ("[01/06/2022-14:53:21] [TRT] [W] Skipping tactic 0 due to insuficient memory on requested size of "
              "1459519488 detected for tactic 0.\n"
              "[01/06/2022-14:53:21] [TRT] [E] 10: [optimizer.cpp::computeCosts::2011] Error Code 10: Internal Error "
              "(Could not find any implementation for node {ForeignNode[2337...Reshape_1696]}.)\n"
              "2022-01-06:14:53:21,root ERROR [deploy.py:67] Failed to create TensorRT engine\n"
              "Traceback (most recent call last):\n"
              'File "/home/aiuser/workspace/lab_mmdeploy/MMDeploy/mmdeploy/backend/tensorrt/onnx2tensorrt.py", '
              "line 64, in onnx2tensorrt\nengine = create_trt_engine(")
    assert kind_of(deploy) is None
    # NVIDIA/TensorRT#4488: the ONNX parser's own failure stays in scope (converter, convert)
    parser = ('[06/13/2025-19:41:36] [E] [TRT] parsers/onnx/ModelImporter.cpp:961: While parsing node number 267 '
              '[Conv -> "/model/prediction/layers/layers.0/Conv_output_0"]:')
    assert kind_of(parser) == ("converter", "convert")


def test_a_rust_panic_names_its_crate():
    # tracel-ai/burn#1714: the panic's file is in burn's ONNX reader (crates/onnx-ir)
    text = ("thread 'main' panicked at /root/.cargo/git/checkouts/burn-6c277d792b0d5d7a/1f5ccd4/crates/onnx-ir/src/"
            "node/where_op.rs:17:5:\n  assertion `left == right` failed: Where x and y have different element types!")
    assert _outermost_package(text) == "converter"


def test_onnx_s_serialiser_registry_is_onnx_s(tmp_path):
    import onnx
    from onnx import helper

    model = helper.make_model(helper.make_graph([], "g", [], []))
    with pytest.raises(ValueError) as err:
        onnx.save_model(model, str(tmp_path / "m.onnx"), format="pb")
    text = f"ValueError: {err.value}"
    assert "Supported formats are: dict_keys(" in text
    assert kind_of(text) == ("onnx", "convert")


def test_placing_an_ortvalue_on_a_device_is_run_time():
    # the device lookup of onnxruntime's OrtValue / IOBinding helpers (roop-style 'mkl' device)
    script = ("import numpy as np, onnxruntime as ort\n"
              "ort.OrtValue.ortvalue_from_numpy(np.zeros(2, np.float32), 'mkl')\n")
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120)
    assert "get_ort_device_type" in out.stderr and "Unsupported device type" in out.stderr, out.stderr[-500:]
    assert kind_of(out.stderr) == ("onnxruntime", "run")


def test_the_torchscript_exporter_s_names_make_a_text_about_an_onnx_graph():
    torch = pytest.importorskip("torch")
    import io

    import onnx

    class M(torch.nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.linear1 = torch.nn.Linear(4, 3)

        def forward(self, x):
            return torch.relu(self.linear1(x)) / 2

    buf = io.BytesIO()
    torch.onnx.export(M(), (torch.randn(2, 4),), buf, dynamo=False, opset_version=17)
    graph = onnx.load_from_string(buf.getvalue()).graph
    scoped = [name for n in graph.node for name in (n.name, *n.output) if name.count("/") >= 2]
    assert "/linear1/Gemm" in scoped and "/linear1/Gemm_output_0" in scoped
    family = _table()[0]
    for name in scoped:
        assert family.search(f"KeyError: '{name}'"), name
    # a file path or URL ending in a capitalised word is no node name
    for path in ("/usr/lib/Add", "/Users/Max", "https://example.com/a/Add", "C:/data/Concat"):
        assert not family.search(path) or re.search(r"onnx", path, re.I), path
