"""Session 11: onnxruntime built from source is an installation matter; tract's and onnx-coreml's
own words name an importer; run-time words for CUDA graph capture; ORTModule's export wrapper is
torch.onnx's export; Windows ML's provider packages that do not install and pkg_resources' missing
distribution are installations; torch.export alone is no ONNX text. Texts are pasted from public
threads (cited beside each, none used by a blind set) or printed here by the installed tools; each
case failed on the triage of main before this change.
"""
from __future__ import annotations

import subprocess
import sys

import pytest

from tests.triaging import kind_of

CASES = [
    # microsoft/onnxruntime#9815: nvcc and make failing on CUDA files of onnxruntime's own tree (build.sh --use_cuda)
    ('1 error detected in the compilation of "/tmp/tmpxft_00005f68_00000000-11_softmax_impl.compute_70.cpp1.ii".\n'
     "gmake[2]: *** [CMakeFiles/onnxruntime_providers_cuda.dir/home/sqy/onnxruntime/onnxruntime/core/providers/cuda/"
     "math/softmax_impl.cu.o] Error 1\n"
     "[ 60%] Building CXX object CMakeFiles/onnxruntime_providers.dir/home/sqy/onnxruntime/onnxruntime/core/providers/"
     "get_execution_providers.cc.o",
     ("install", "install")),
    # microsoft/onnxruntime#4048: GCC 4.8 on a file of the build tree (onnx fetched under cmake/external)
    ("/res/onnxruntime/cmake/external/onnx/onnx/defs/logical/defs.cc:22:15: error: unterminated raw",
     ("install", "install")),
    # sonos/tract#1028: tract's analyser cannot unify two symbolic batch dimensions
    ('Failed analyse for node #10 "sequential_dense_1_Sigmoid" Sigmoid\n\nCaused by:\n    0: Infering facts\n'
     "    1: Applying rule inputs[0].shape == outputs[0].shape\n    2: Unifying shapes unk__6,1 and unk__7,1\n"
     "    3: Impossible to unify Sym(unk__6) with Sym(unk__7).",
     ("converter", "convert")),
    # sonos/tract#1030: the same analyser inside an If node's branch
    ('Error Failed analyse for node #127 "If_33" If\n\nCaused by:\n    0: Infering facts\n'
     '    1: Failed analyse for node #1 "Squeeze_35" Squeeze13\n    2: Infering facts\n'
     "    3: Applying rule outputs[0].shape == 1,1,1792\n    4: Unifying shapes S,S,S and 1,1,1792\n"
     "    5: Impossible to unify Sym(Symbol('S', 1)) with Val(1).",
     ("converter", "convert")),
    # apple/coremltools#1042: the ONNX converter's ErrorHandling on a node it cannot map
    ("TypeError: Error while converting op of type: Slice. Error message: Input shape not available \n"
     " Please try converting with higher minimum_ios_deployment_target.",
     ("converter", "convert")),
    # microsoft/onnxruntime#32081: a session's CUDA graph replayed into a stream the caller is capturing
    ("CUDA failure 900: operation not permitted when stream is capturing ;\n"
     "  expr=cudaGraphLaunch(graph_exec, stream_);",
     ("onnxruntime", "run")),
    # microsoft/foundry-local#659 (its title): Windows ML's provider package did not install (rule 9)
    ("Failed to download or register the following EPs: VitisAIExecutionProvider.",
     ("install", "install")),
    # microsoft/onnxruntime#9190: ORTModule wraps torch.onnx.export's failure
    ("RuntimeError: There was an error while exporting the PyTorch model to ONNX: unexpected tensor scalar type",
     ("torch.onnx", "export")),
]


@pytest.mark.parametrize(("text", "want"), CASES, ids=[w[0] + "-" + str(i) for i, (_, w) in enumerate(CASES)])
def test_triage(text, want):
    assert kind_of(text) == want


def test_a_runtime_message_quoting_onnxruntime_s_source_is_not_a_build():
    # the runtime quotes its own files as '<file>:<line> <function>' (no column, no 'error:'), as in this
    # paste from visual-layer/fastdup#192: it stays the runtime's
    text = ("[E:onnxruntime:, sequential_executor.cc:368 Execute] Non-zero status code returned while running Squeeze "
            "node. Name:'V3Small_feat/global_average_pooling2d_12/Mean_Squeeze__4424' Status Message: "
            "/Users/dannybickson/mount/data/onnxruntime/onnxruntime/core/framework/execution_frame.cc:161 "
            "onnxruntime::common::Status onnxruntime::IExecutionFrame::GetOrCreateNodeOutputMLValue(const int, int, "
            "const onnxruntime::TensorShape *, OrtValue *&, const onnxruntime::Node &) shape && tensor.Shape() == "
            "*shape was false. OrtValue shape verification failed. Current shape:{1,384} Requested shape:{1,576}")
    assert kind_of(text) == ("onnxruntime", "run")


def test_pkg_resources_missing_distribution_is_an_installation():
    pkg_resources = pytest.importorskip("pip._vendor.pkg_resources")  # pip vendors pkg_resources (setuptools >= 81 dropped it)
    with pytest.raises(pkg_resources.DistributionNotFound) as err:
        pkg_resources.require("onnxruntime-gpu")
    text = f"pkg_resources.DistributionNotFound: {err.value}"
    assert "The 'onnxruntime-gpu' distribution was not found and is required by" in text
    assert kind_of(text) == ("install", "install")


def test_torch_export_alone_is_no_onnx_text():
    pytest.importorskip("torch")
    script = "import torch\ntorch.export.export(lambda x: x, (torch.randn(4),))\n"
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=300)
    assert "torch/export/__init__.py" in out.stderr.replace("\\", "/") and "onnx" not in out.stderr.lower(), out.stderr[-500:]
    assert kind_of(out.stderr) is None


def test_onnx_ir_s_own_warning_is_a_graph_tool_s():
    # onnx_ir (onnxscript's IR) reading a graph whose output no node produces, as onnx_ir 1.1.0 logs it here
    pytest.importorskip("onnx_ir")
    script = ("import logging, onnx_ir as ir\nfrom onnx import helper, TensorProto\nlogging.basicConfig()\n"
              "g = helper.make_graph([], 'g', [helper.make_tensor_value_info('x', TensorProto.FLOAT, [2])],\n"
              "                      [helper.make_tensor_value_info('ones_like', TensorProto.FLOAT, [2])])\n"
              "ir.from_proto(helper.make_model(g))\n")
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120)
    assert "is not produced by any node" in out.stderr, out.stderr[-500:]
    assert kind_of(out.stderr) == ("optimizer", "convert")
