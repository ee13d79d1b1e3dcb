"""The tool registry (diagnoser/data/triage_tools.yaml): every tool well formed and cited, its marks
naming its component and stage on real texts (public threads outside the blind sets, cited beside
each, or produced here by the installed tools), and a tool's marks alone never triaging the
neighbouring framework's own error (a tool that also reads TFLite or TorchScript, LABELS.md rule 3).
"""
from __future__ import annotations

import re
import traceback

import pytest

from diagnoser import diagnose
from diagnoser.triage import COMPONENTS, STAGES
from diagnoser.triage import tools as registry
from diagnoser.triage.classify import groups
from tests.triaging import kind_of, triage_of


def test_every_tool_is_well_formed_cites_its_source_and_is_named_once():
    tools = registry.tools()
    assert len(tools) >= 60
    names = [t.name for t in tools]
    assert len(names) == len(set(names))
    rows = {r["name"]: r for r in registry.table("triage_tools")["tools"]}
    for t in tools:
        assert t.component in COMPONENTS and t.stage in (None, *STAGES), t.name
        assert len(rows[t.name]["source"]) > 30, f"{t.name} says nowhere where its marks come from"
        if t.steps is not None:
            en, zh = t.steps
            assert en.isascii() and re.search(r"[\u4e00-\u9fff]", zh), t.name  # bilingual, Chinese throughout


def test_tool_groups_sit_in_one_block_after_the_installation_groups():
    names = [g.name for g in groups()]
    tool_at = [i for i, g in enumerate(groups()) if g.tool is not None]
    assert tool_at == list(range(tool_at[0], tool_at[-1] + 1))
    assert names.index("install-python-import") < tool_at[0] < names.index("ort-core")


CASES = [
    # AXERA-TECH/pulsar2-docs#9: pulsar2's NPU backend cannot tile an op for the target (frozen yamain frames)
    ('Traceback (most recent call last):\n'
     '  File "<frozen yamain.common.error>", line 59, in guard_context\n'
     '  File "<frozen yamain.command.build>", line 1169, in compile_ptq_model\n'
     '  File "<frozen yamain.command.npu_backend_compiler>", line 199, in compile\n'
     '  File "<frozen yasched.test_onepass>", line 3259, in test_onepass_ir\n'
     '  File "<frozen yasched.graph_proc.graph_tiling>", line 134, in run\n'
     'yasched.exceptions.TileFailException: AxQuantizedSin, AxQuantizedSin dont support\n'
     '    op: /Sin',
     ("converter", "convert"), "pulsar2"),
    # kraiskil/onnx2c#31: onnx2c has no implementation of the op
    ("./onnx2c yolov8n.onnx\n"
     "2023-03-27 15-28-59.799 [Fatal] (createNode) Unimplemented: node operation Split\n"
     "Assertion failed: (false), function createNode, file graph.cc, line 483.\n"
     "zsh: abort      ./onnx2c yolov8n.onnx",
     ("converter", "convert"), "onnx2c"),
    # onnx/onnx-mlir#2989: onnx-mlir's compile phases, then an assertion while lowering
    ("$ onnx-mlir encoder-epoch-12-avg-2-chunk-16-left-64.onnx\n"
     '[1/6] Wed Oct 30 15:29:25 2024 (0s) Importing ONNX Model to MLIR Module from "encoder-epoch-12-avg-2-chunk-16-left-64.onnx"\n'
     "[2/6] Wed Oct 30 15:29:25 2024 (0s) Compiling and Optimizing MLIR Module\n"
     "onnx-mlir: /home/tjy/project_cxy/llvm-project/llvm/include/llvm/ADT/ArrayRef.h:84: constexpr "
     "llvm::ArrayRef<T>::ArrayRef(const T*, const T*) [with T = long int]: Assertion `begin <= end' failed.\n"
     "Aborted (core dumped)",
     ("converter", "convert"), "onnx-mlir"),
    # OpenPPL/ppl.nn#579: ppl.nn's engine has no kernel for the imported node (its log names no onnxruntime)
    ("ppl.nn version: [0.8.0], commit: [1b2c923fe0112fba701607b56c2c77938ee94e24]\n"
     "[INFO][2022-06-29 12:12:40.151][pplnn.cc:306] ***** register CudaEngine *****\n"
     "[ERROR][2022-06-29 12:13:09.248][scheduler_common.cc:81] exec kernel[Div_212] of type[:Div:11] failed: unsupported\n"
     "[ERROR][2022-06-29 12:13:09.248][sequential_scheduler.cc:115] execute kernel[Div_212] failed: unsupported\n"
     "[ERROR][2022-06-29 12:13:09.248][runtime_impl.cc:342] Run() failed: unsupported\n"
     "[ERROR][2022-06-29 12:13:09.248][pplnn.cc:1278] Run() failed: unsupported",
     ("converter", "convert"), "pplnn"),
    # NVIDIA-NeMo/Speech#8306: NeMo's own export step (Exportable._export), before torch.onnx runs
    ("Traceback (most recent call last):\n"
     '  File "/Users/urospetrovic/ml_projects/thq-transcription-module/export.py", line 38, in main\n'
     "    model.export(onnx_file, onnx_opset_version=12)\n"
     '  File "/Users/urospetrovic/opt/miniconda3/envs/transcription/lib/python3.10/site-packages/nemo/core/classes/exportable.py", line 113, in export\n'
     "    out, descr, out_example = model._export(\n"
     '  File "/Users/urospetrovic/opt/miniconda3/envs/transcription/lib/python3.10/site-packages/nemo/core/classes/exportable.py", line 177, in _export\n'
     "    input_example = self.input_module.input_example()\n"
     '  File "/Users/urospetrovic/opt/miniconda3/envs/transcription/lib/python3.10/site-packages/torch/nn/modules/module.py", line 1614, in __getattr__\n'
     "    raise AttributeError(\"'{}' object has no attribute '{}'\".format(\n"
     "AttributeError: 'EncDecDiarLabelModel' object has no attribute 'input_module'. Did you mean: 'output_module'?",
     ("converter", "export"), "nemo-export"),
    # TexasInstruments/edgeai-tidl-tools#54: the TVM build in use has no TIDL backend (an installation)
    ("../../../models/public/mobilenetv2-1.0.onnx\n"
     "Traceback (most recent call last):\n"
     '  File "tvm_compilation_onnx_example.py", line 112, in <module>\n'
     "    from tvm.relay.backend.contrib import tidl\n"
     "ImportError: cannot import name 'tidl'",
     ("install", "install"), None),
    # microsoft/foundry-local#318: NuGet cannot find an onnxruntime package (was onnxruntime/load: the package's name)
    ("NuGet Error NU1101: Unable to find package Microsoft.ML.OnnxRuntime.Foundry.\n"
     "No packages exist with this ID in source(s): \n"
     "- C:\\Program Files\\dotnet\\library-packs\n"
     "- Microsoft Visual Studio Offline Packages\n"
     "- nuget.org",
     ("install", "install"), "nuget"),
]


@pytest.mark.parametrize(("text", "want", "tool"), CASES)
def test_a_tool_s_own_marks_name_its_component_and_stage(text, want, tool):
    t = triage_of(text)
    assert t is not None and (t.component, t.stage) == want
    assert t.facts.get("tool") == tool


# a tool that also reads other formats: its marks alone, on the other format, are that framework's error
NEIGHBOURS = [
    # apache/tvm#6268: TVM's PyTorch frontend (no ONNX anywhere): TVM's marks do not make it ONNX-family
    ('  File "tvm/python/tvm/relay/frontend/pytorch.py", line 2580, in convert_operators\n'
     "    relay_out = relay_op(inputs, _get_input_types(op_node, default_dtype=default_dtype))\n"
     '  File "tvm/python/tvm/ir/module.py", line 222, in from_expr\n'
     "    return _ffi_api.Module_FromExpr(expr, funcs, defs)\n"
     '  File "tvm/python/tvm/_ffi/_ctypes/packed_func.py", line 225, in __call__\n'
     "    raise get_last_ffi_error()\n"
     "tvm._ffi.base.TVMError: Traceback (most recent call last):\n"
     "  [bt] (8) tvm/build/libtvm.so(tvm::relay::ExprVisitor::VisitExpr_(tvm::relay::CallNode const*)+0x13c) [0x7f21a6454bdc]"),
    # alibaba/MNN#94: MNNConvert on a TFLite model
    ("$ ./MNNConvert -f TFLITE --modelFile note_model.tflite --MNNModel note_model.mnn --bizCode MNN\n\n"
     "MNNConverter Version: 0.0.0.1 - MNN @ 2018\n\n"
     "Start to Convert Other Model Format To MNN Model...\n"
     "terminate called after throwing an instance of 'Error'\n"
     "  what():  [22:40:02] /home/valwang/project/MNN-master/tools/converter/source/tflite/liteConverter.cpp:90: "
     "Check failed: creator ==> NOT_SUPPORTED_OP: [ 18 ]\n"
     "Aborted (core dumped)"),
    # alibaba/MNN#3591: the same converter, a TFLite op it lacks
    ("Start to Convert Other Model Format To MNN Model..., target version: 3.1\n"
     "[17:06:36] MNN-3.1.0/tools/converter/source/tflite/liteConverter.cpp:297: Check failed: creator ==> NOT_SUPPORTED_OP: [ ARG_MAX ]\n"
     "[ERROR] Convert error, please check your file format."),
    # OpenVINO 2026.4.1 here: Core().read_model on an IR whose layer names an opset the runtime lacks
    # (the IR's own XML, not an ONNX file)
    ("RuntimeError: Exception from src/inference/src/cpp/core.cpp:84:\n"
     "Exception from src/core/xml_util/src/xml_deserialize_util.cpp:1316:\n"
     "Cannot create Relu layer weird id:1 from unsupported opset: opset99"),
]


@pytest.mark.parametrize("text", NEIGHBOURS)
def test_a_tool_that_reads_other_formats_does_not_triage_the_other_format(text):
    assert kind_of(text) is None
    assert diagnose(text=text).triage is None


def _traceback_of(fn) -> str:
    try:
        fn()
    except Exception:
        return traceback.format_exc()
    raise AssertionError("expected the tool to fail")


def _reshape_without_shape():
    import onnx
    from onnx import TensorProto, helper

    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 3])
    shape = helper.make_tensor_value_info("shape", TensorProto.INT64, None)  # no shape: the script takes its len()
    r = helper.make_tensor_value_info("r", TensorProto.FLOAT, None)
    g = helper.make_graph([helper.make_node("Reshape", ["x", "shape"], ["r"])], "g", [x, shape], [r])
    return helper.make_model(g, opset_imports=[helper.make_opsetid("", 17)], ir_version=8), onnx


def test_symbolic_shape_inference_on_its_own_is_a_graph_tool_under_quantization_it_is_quantization(tmp_path):
    pytest.importorskip("onnxruntime")
    from onnxruntime.quantization.shape_inference import quant_pre_process
    from onnxruntime.tools.symbolic_shape_infer import SymbolicShapeInference

    model, onnx = _reshape_without_shape()
    alone = _traceback_of(lambda: SymbolicShapeInference.infer_shapes(model))
    assert "symbolic_shape_infer.py" in alone
    assert kind_of(alone) == ("optimizer", "convert")
    path = tmp_path / "m.onnx"
    onnx.save(model, path)
    inside = _traceback_of(lambda: quant_pre_process(str(path), str(tmp_path / "p.onnx")))
    assert "quantization" in inside and "symbolic_shape_infer.py" in inside
    assert kind_of(inside) == ("quantization", "quantize")


def test_a_tool_s_next_step_comes_first_and_is_bilingual():
    t = triage_of(CASES[1][0])
    assert t is not None and "onnx2c" in t.next_steps[0] and "onnx2c" in t.next_steps_zh[0]
    assert t.facts["op"] == "Split"  # onnx2c's own words name the op it lacks
    assert len(t.next_steps) == len(t.next_steps_zh) <= 2


def test_a_log_that_ends_with_the_tool_s_success_line_is_no_failure():
    # mindspore-ai/mindspore converter.cc prints 'CONVERT RESULT SUCCESS:0' last when the conversion ended well
    # (the line as MindSpore Lite's converter documentation shows it)
    assert registry.succeeded("CONVERT RESULT SUCCESS:0\n")
    assert not any(registry.succeeded(text) for text, _, _ in CASES)


@pytest.mark.parametrize(("name", "onnx"), [
    # the older TorchScript exporter's flat node names (torch <= 1.12), for op types only ONNX names nodes after
    ("Gemm_12", True), ("Unsqueeze_7", True), ("Resize_3", True), ("BatchNormalization_5", True),
    # TensorFlow's default node names number its own ops the same way; Keras's layers are lower case
    ("Add_1", False), ("MatMul_3", False), ("Relu_2", False), ("batch_normalization_1", False), ("ConcatV2_1", False),
])
def test_the_older_exporters_flat_node_names_open_the_family(name, onnx):
    from diagnoser.triage.classify import is_onnx_family

    assert is_onnx_family(f"node {name}") is onnx


def test_a_virtual_environment_named_like_a_tool_is_no_mark_of_it(tmp_path):
    # PyTorch's own error, raised by a script under a conda environment the user named 'onnx' (produced here
    # with the installed torch): the environment's name is the user's choice, not a component's mark
    import subprocess
    import sys

    pytest.importorskip("torch")
    script = tmp_path / "miniconda3" / "envs" / "onnx" / "lib" / "shapes.py"
    script.parent.mkdir(parents=True)
    script.write_text("import torch\ntorch.zeros(2) + torch.zeros(3)\n", encoding="utf-8")
    err = subprocess.run([sys.executable, str(script)], capture_output=True, text=True).stderr
    assert "envs/onnx/lib/shapes.py" in err.replace("\\", "/") and "RuntimeError" in err
    assert kind_of(err) is None
