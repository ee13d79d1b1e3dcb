"""Vendors' and tools' own words (session 9): execution providers that log in their own voice
(Vitis AI under Ryzen AI, CANN), applications built without their onnxruntime backend (FastDeploy,
mmdeploy), onnxruntime's Java classes or library missing, importers with their own frames or
exceptions (Unity Barracuda/Sentis, ailia, CNTK, polygraphy's TensorRT parse), onnxruntime's own
optimizer and ORT-format script, onnxruntime-genai's generator, Foundry Local; and what is no
triage at all: a calling script's own Python error, an application failing after onnxruntime
reported a good session (its notes are dropped). Texts are real pastes from public threads (cited beside each, none from a
blind set), strings of the tool's own source (cited), or produced here by the installed tools;
each case failed on the triage before these rules.
"""
from __future__ import annotations

import subprocess
import sys

import pytest

from diagnoser.matching.text import prepare
from diagnoser.triage import triage
from diagnoser.triage.classify import _outermost_package, without_benign_lines
from tests.triaging import kind_of, triage_of




CASES = [
    # PaddlePaddle/FastDeploy#1215: the serving image's FastDeploy was built without that backend
    ("UseTrtBackend The FastDeploy didn't compile with TrtBackend.", ("install", "install")),
    # open-mmlab/mmdeploy#1976: the SDK has no onnxruntime net backend (was onnxruntime-web's 'backend not found')
    ('[2023-04-11 16:52:50.070] [mmdeploy] [info] [model.cpp:35] [DirectoryModel] Load model: '
     '"/workspace/HOSTDIR/project/openmmlab/mmdeploy/mmdeploy_models/mmdet/sdk"\n'
     "[2023-04-11 16:52:50.071] [mmdeploy] [error] [net_module.cpp:46] Net backend not found: onnxruntime, "
     "available backends: []",
     ("install", "install")),
    # onnx/onnx#4067: the class's static initialiser (loading the native library) failed on an M1 Mac
    ("java.lang.NoClassDefFoundError: Could not initialize class ai.onnxruntime.OrtEnvironment", ("install", "install")),
    # Open-Less/openless#515: libloading could not open the onnxruntime.dll an application ships
    ("[bug] initialize Foundry Local manager: library load error: Failed to load dependency onnxruntime.dll: "
     "LoadLibraryExW failed",
     ("install", "install")),
    # amd/RyzenAI-SW#135: the Vitis AI provider's own log lines, no word of onnxruntime (was a converter)
    ("(ryzen-ai-1.3.0) C:\\Program Files\\RyzenAI\\1.3.0\\quicktest>python quicktest.py\n"
     "Setting environment for PHX/HPT\n"
     "XLNX_VART_FIRMWARE= C:\\Program Files\\RyzenAI\\1.3.0\\voe-4.0-win_amd64\\xclbins\\phoenix\\1x4.xclbin\n"
     "NUM_OF_DPU_RUNNERS= 1\n"
     "XLNX_TARGET_NAME= AMD_AIE2_Nx4_Overlay\n"
     "WARNING: Logging before InitGoogleLogging() is written to STDERR\n"
     "I20241203 22:22:28.195551 104432 vitisai_compile_model.cpp:1046] Vitis AI EP Load ONNX Model Success\n"
     "I20241203 22:22:28.195551 104432 vitisai_compile_model.cpp:1047] Graph Input Node Name/Shape (1)",
     ("onnxruntime", "load")),
    # Unity-Technologies/barracuda-release#239: Barracuda's import evaluating the model's outputs
    ("Unexpected error while evaluating model output mbox_loc. System.ArgumentException: Off-axis dimensions must match\n"
     "  at Unity.Barracuda.TensorExtensions.Concat (Unity.Barracuda.TensorShape[] shapes, System.Int32 axis) [0x000f5] "
     "in C:\\Users\\jzhou\\OneDrive - Computer Enterprises Inc\\Desktop\\UnityBarracudaImageClassification-main\\"
     "UnityBarracudaImageClassification-main\\Library\\PackageCache\\com.unity.barracuda@2.0.0\\Barracuda\\Runtime\\Core\\"
     "TensorExtensions.cs:345 \n"
     "  at Unity.Barracuda.ModelAnalyzer.ListTemporaryTensorShapes (Unity.Barracuda.Model model, "
     "System.Collections.Generic.IDictionary`2[TKey,TValue] inputShapes, System.Collections.Generic.IDictionary`2["
     "System.String,System.Nullable`1[Unity.Barracuda.TensorShape]]& shapesByName) [0x00e1b]",
     ("converter", "convert")),
    # ailia-ai/ailia-models#1430: ailia's network importer has no layer for the op
    ("ailia.core.AiliaUnsupportNetException: code: -9 (Unsupported network.)\n"
     "+ error detail : Layer:/Inverse(Inverse) Error:Unsupported layer: Inverse",
     ("converter", "convert")),
    # onnx/tutorials#69: CNTK's ONNX exporter names the CNTK function it cannot export
    ("RuntimeError: Node 'Combine: Output('ce', [], []), Output('errs', [], []), Output('top5Errs', [], []), "
     "Output('z', [#, ], [1000]) -> Output('ce', [], []), Output('errs', [], []), Output('top5Errs', [], []), "
     "Output('z', [#, ], [1000])': Unsupported node.",
     ("converter", "convert")),
    # onnx/tutorials#26: CNTK saving to ONNX (format=C.ModelFormat.ONNX), the traceback before the message
    ('  File "convert.py", line 5, in <module>\n'
     '    z.save("model2.onnx", format=C.ModelFormat.ONNX)\n'
     '  File "/opt/conda/envs/cntk/lib/python3.4/site-packages/cntk/internal/swig_helper.py", line 69, in wrapper\n'
     "    result = f(*args, **kwds)\n"
     '  File "/opt/conda/envs/cntk/lib/python3.4/site-packages/cntk/ops/functions.py", line 1504, in save\n'
     "    return super(Function, self).save(filename, format.value)",
     ("converter", "convert")),
    # facebookresearch/detectron2 tools/deploy/export_model.py (its source line, as a traceback shows it)
    ("    tracer = Caffe2Tracer(cfg, torch_model, inputs)", ("converter", "convert")),
    # modelscope/FunASR#2530: FunASR's own export step (the model class has no export method)
    ('  File "/Users/jack/miniconda3/envs/l2d-vtb/lib/python3.11/site-packages/funasr/auto/auto_model.py", line 670, in export\n'
     "    export_dir = export_utils.export(model=model, data_in=data_list, **kwargs)\n"
     '  File "/Users/jack/miniconda3/envs/l2d-vtb/lib/python3.11/site-packages/funasr/utils/export_utils.py", line 13, in export\n'
     "    model_scripts = model.export(**kwargs)\n"
     "AttributeError: 'FsmnKWS' object has no attribute 'export'",
     ("converter", "export")),
    # NVIDIA/TensorRT#1677 (its title): polygraphy reports TensorRT's ONNX parser failing (was an optimizer)
    ("polygraphy.exception.exception.PolygraphyException: Could not parse ONNX correctly", ("converter", "convert")),
    # microsoft/onnxruntime onnxruntime/python/tools/transformers/fusion_skiplayernorm.py (older releases): its warning
    ("symbolic shape infer failed. it's safe to ignore this message if there is no issue with optimized model",
     ("optimizer", "convert")),
    # Linzaer/Ultra-Light-Fast-Generic-Face-Detector-1MB#287: caffe2's backend polishing the model (legacy optimizer)
    ("    onnx_model = onnx.utils.polish_model(onnx_model)\nIndexError: Input 405 is undefined!", ("optimizer", "convert")),
    # he-actlab/polymath#2: the legacy optimizer's IR import, the script's own file named for ONNX
    ('  File "benchmarks/onnx_files/onnx_generator.py", line 222, in create_svm\n'
     "    model_proto = optimizer.optimize(model_proto, ['eliminate_identity'])\n"
     "IndexError: Input sub/x:0 is undefined!",
     ("optimizer", "convert")),
    # microsoft/onnxruntime-genai#1126: the generator loop runs the model's sessions
    ('File "...\\phi3v.py", line 103, in run generator.generate_next_token()\n'
     "RuntimeError: Must call ComputeLogits before GenerateNextToken",
     ("onnxruntime", "run")),
]


@pytest.mark.parametrize(("text", "want"), CASES)
def test_a_vendor_or_tool_is_named_by_its_own_words(text, want):
    assert kind_of(text) == want


def test_onnxruntime_s_transformer_optimizer_in_its_old_package_and_its_own_log():
    # huggingface/notebooks#109: the deprecated onnxruntime_tools package's optimizer (IPython frames);
    # its onnx_model_bert.py is no transformers.onnx frame (was torch.onnx)
    frames = ("/usr/local/lib/python3.7/dist-packages/onnxruntime_tools/transformers/optimizer.py in optimize_model(input, "
              "model_type, num_heads, hidden_size, optimization_options, opt_level, use_gpu, only_onnxruntime)\n"
              "    310 \n    311     if not only_onnxruntime:\n--> 312         optimizer.optimize(optimization_options)\n\n"
              "/usr/local/lib/python3.7/dist-packages/onnxruntime_tools/transformers/onnx_model_bert.py in optimize(self, "
              "options, add_dynamic_axes)\n    277 \n"
              "    278         if (options is None) or options.enable_skip_layer_norm:\n--> 279             self.fuse_skip_layer_norm()")
    assert _outermost_package(frames) == "optimizer"
    assert kind_of(frames) == ("optimizer", "convert")
    # onnxruntime 1.32.0's onnx_model.py prints the failure of its symbolic shape inference (produced here)
    script = ("import os, sys, onnxruntime\n"
              "sys.path.insert(0, os.path.join(os.path.dirname(onnxruntime.__file__), 'transformers'))\n"
              "from onnx import TensorProto, helper\n"
              "from onnxruntime.transformers.onnx_model import OnnxModel\n"
              "node = helper.make_node('Add', ['x', 'missing'], ['y'])\n"
              "graph = helper.make_graph([node], 'g', [helper.make_tensor_value_info('x', TensorProto.FLOAT, ['b', 4])],\n"
              "                          [helper.make_tensor_value_info('y', TensorProto.FLOAT, None)])\n"
              "OnnxModel(helper.make_model(graph, opset_imports=[helper.make_opsetid('', 17)])).infer_runtime_shape({'b': 2})\n")
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=300)
    line = next((ln for ln in out.stdout.splitlines() if ln.startswith("failed in shape inference")), None)
    assert line, out.stdout[-500:] + out.stderr[-500:]
    assert kind_of(line) == ("optimizer", "convert")


def test_sentence_transformers_optimising_an_onnx_model_is_an_optimizer():
    # UKPLab/sentence-transformers docs (docs/sentence_transformer/usage/efficiency.rst): the helper that runs
    # optimum's ORTOptimizer on a model loaded with backend="onnx"
    assert kind_of('export_optimized_onnx_model(model, "O3", "sentence-transformers/all-MiniLM-L6-v2")') == \
        ("optimizer", "convert")


def test_the_cann_provider_s_call_failure_names_it_and_a_stream_sync_is_run_time():
    # microsoft/onnxruntime#27495: the CANN provider's CALL macro (cann_call.cc), a kernel failing
    call = ("2026-02-28 15:35:35.090868634 [E:onnxruntime:YOLO, cann_call.cc:139 CannCall] CANN failure 500001: "
            "ACL_ERROR_FAILURE ; NPU=0 ; hostname=9f5959ee0b26 ; expr=aclopCompileAndExecute(opname.c_str(), "
            "prepare.inputDesc_.size(), prepare.inputDesc_.data(), prepare.inputBuffers_.data(), prepare.outputDesc_.size(), "
            "prepare.outputDesc_.data(), prepare.outputBuffers_.data(), prepare.opAttr_, ACL_ENGINE_SYS, ACL_COMPILE_SYS, "
            "__null, Stream(ctx));")
    t = triage_of(call)
    assert t.component == "onnxruntime" and t.facts.get("provider") == "CANNExecutionProvider"
    # a face-swap application's log (found by find_string in a public repository): CUDA's stream
    # synchronisation failing in cuda_execution_provider.cc reports a run's kernels
    sync = ("[ONNXRuntimeError] : 1 : FAIL : CUDA failure 900: operation not permitted when stream is capturing ; "
            "GPU=0 ; hostname=AMAAN-IDEAPAD-3 ; file=E:\\_work\\1\\s\\onnxruntime\\core\\providers\\cuda\\"
            "cuda_execution_provider.cc ; line=534 ; expr=cudaStreamSynchronize(static_cast<cudaStream_t>(stream_));")
    assert kind_of(sync) == ("onnxruntime", "run")


def test_the_vitis_ai_provider_s_xclbin_failure_names_the_provider():
    # amd/RyzenAI-SW#396: the NPU overlay binary cannot be opened while the session is set up
    text = ("E20260827 08:17:12.221364 10332 xclbin_fingerprint.cpp:71] Failed to open xclbin\n"
            "2026-08-27 08:17:12.2217463 [E:onnxruntime:, xclbin_fingerprint.cpp:71 xclbin_fingerprint.cpp] "
            "Failed to open xclbin")
    t = triage_of(text)
    assert (t.component, t.stage) == ("onnxruntime", "load")
    assert t.facts.get("provider") == "VitisAIExecutionProvider"


def test_foundry_local_s_webgpu_provider_is_the_native_one():
    # microsoft/foundry-local#1109: Foundry Local registering the native WebGPU provider (was onnxruntime-web)
    text = ("2026-09-15 13:44:25.605 +00:00 [INF] ExecuteCommandWithCallbackManaged: download_and_register_eps\n"
            'Data:{"Params":{"Names":"CUDAExecutionProvider,WebGpuExecutionProvider"}}\n'
            "2026-09-15 13:44:25.605 +00:00 [INF] DownloadAndRegisterEpsAsync called\n"
            "2026-09-15 13:44:25.605 +00:00 [INF] DownloadAndRegisterEpsAsync: processing 2 bootstrapper(s) (userAgent:\n"
            "FoundryLocalCore)")
    assert kind_of(text)[0] == "onnxruntime"


def test_onnxruntime_s_ort_format_script_is_onnxruntime_converting(tmp_path):
    # the script's own traceback on a file that is no model (onnxruntime 1.32.0, produced here); its
    # head, down to the script's helper, is what names the step (the session it opens fails below)
    bad = tmp_path / "broken.onnx"
    bad.write_bytes(b"not a model")
    out = subprocess.run([sys.executable, "-m", "onnxruntime.tools.convert_onnx_models_to_ort", str(bad)],
                         capture_output=True, text=True, timeout=300)
    lines = (out.stdout + out.stderr).splitlines()
    cut = next(i for i, ln in enumerate(lines) if ln.rstrip().endswith("in _convert"))
    head = "\n".join(ln for ln in lines[:cut + 2] if ln.startswith((" ", "Traceback")))
    assert "convert_onnx_models_to_ort.py" in head, "\n".join(lines[-20:])
    assert kind_of(head) == ("onnxruntime", "convert")


def test_a_julia_onnx_importer_is_a_converter_but_onnxruntime_s_binding_is_not():
    # FluxML/ONNX.jl#22: the Julia ONNX importer's own frame
    importer = ("ERROR: KeyError: key \"convolution.W\" not found\nStacktrace:\n [1] getindex at .\\dict.jl:478 [inlined]\n"
                " [2] (::getfield(ONNX, Symbol(\"##118#120\")){Dict{String,IVertex}})(::String) at "
                "C:\\Users\\bguenter\\.julia\\packages\\ONNX\\7ZopS\\src\\graph\\graph.jl:61")
    assert _outermost_package(importer) == "converter"
    # jw3126/ONNXRunTime.jl keeps its C API wrapper in src/capi.jl: a frame there is onnxruntime's binding
    binding = " [3] set_lib!(path::String) at C:\\Users\\me\\.julia\\packages\\ONNXRunTime\\Ad1yw\\src\\capi.jl:43"
    assert _outermost_package(binding) != "converter"


def test_the_model_s_export_hook_is_torch_onnx_tracing_it():
    torch = pytest.importorskip("torch")
    import io
    import traceback

    class Detector(torch.nn.Module):
        """mmdetection 2.x's pattern: forward hands over to onnx_export while torch.onnx traces."""

        def forward(self, img):
            if torch.onnx.is_in_onnx_export():
                return self.onnx_export(img)
            return img

        def onnx_export(self, img):
            return img[1]  # a one-image batch has no second image

    try:
        torch.onnx.export(Detector(), (torch.zeros(1, 3),), io.BytesIO(), dynamo=False)
    except Exception:
        tb = traceback.format_exc()
    else:
        pytest.fail("the export was expected to fail")
    # the paste users show: the model's last frames and the error, torch's own frames cut off
    lines = tb.rstrip().splitlines()
    start = max(i for i, ln in enumerate(lines) if "in forward" in ln)
    tail = "\n".join(lines[start:])
    assert "in onnx_export" in tail and "torch/onnx" not in tail.replace("\\", "/")
    assert kind_of(tail) == ("torch.onnx", "export")


@pytest.mark.parametrize("text", [
    # WongKinYiu/yolov7#1016: the script unpacks four outputs from an engine that gave two (its folder is named ONNX)
    "Traceback (most recent call last):\n"
    '  File "/home/dinahaamed/Projects/ONNX/trt-engine-w4.py", line 323, in <module>\n'
    "    origin_img, t = pred.queue_inference()\n"
    '  File "/home/dinahaamed/Projects/ONNX/trt-engine-w4.py", line 86, in queue_inference\n'
    "    num, final_boxes, final_scores, final_cls_inds = self.infer(img)\n"
    "ValueError: not enough values to unpack (expected 4, got 2)",
    # ibaiGorordo/ONNX-YOLOv8-Instance-Segmentation#5: the example's own post-processing unpacks a shape
    "Traceback (most recent call last):\n"
    '  File "C:\\AI\\yolo\\ONNX-YOLOv8-Instance-Segmentation\\image_instance_segmentation.py", line 15, in <module>\n'
    "    boxes, scores, class_ids, masks = yoloseg(img)\n"
    '  File "C:\\AI\\yolo\\ONNX-YOLOv8-Instance-Segmentation\\yoloseg\\YOLOSeg.py", line 99, in process_mask_output\n'
    "    num_mask, mask_height, mask_width = mask_output.shape  # CHW\n"
    "ValueError: not enough values to unpack (expected 3, got 2)",
])
def test_a_script_s_own_python_error_is_no_triage(text):
    assert kind_of(text) is None


def test_onnxruntime_s_node_assignment_notes_are_no_error_of_their_own():
    # amd/RyzenAI-SW#146: a session that was created (its node-assignment notes), then the Vitis AI
    # provider's own error: the notes are dropped, the provider's error still names onnxruntime
    notes = ("[W:onnxruntime:, session_state.cc:1166 onnxruntime::VerifyEachNodeIsAssignedToAnEp] Some nodes were not "
             "assigned to the preferred execution providers which may or may not have an negative impact on performance. "
             "e.g. ORT explicitly assigns shape related ops to CPU to improve perf\n\n"
             "[W:onnxruntime:, session_state.cc:1168 onnxruntime::VerifyEachNodeIsAssignedToAnEp] Rerunning with verbose "
             "output on a non-minimal build will show node assignments.")
    error = "[custom_op.cpp:552] -- Error: Failed to create GE handle: Error: No compatible xclbin file found"
    kept = without_benign_lines(f"{notes}\n\n{error}")
    assert "VerifyEachNodeIsAssignedToAnEp" not in kept and error in kept
    assert without_benign_lines(notes) == notes  # the notes alone are what the user asks about
    assert kind_of(notes) is not None
    t = triage_of(f"[Vitis AI EP] No. of Operators :   CPU     2    NPU   398\n{notes}\n\n{error}")
    assert t.component == "onnxruntime" and t.facts.get("provider") == "VitisAIExecutionProvider"


def test_the_tensorrt_parser_s_ir_version_warning_is_a_note_its_errors_still_name_it():
    # onnx/onnx-tensorrt#487: the parser warns that the file is newer than itself, then fails on a node
    text = ('WARNING: ONNX model has a newer ir_version (0.0.6) than this parser was built against (0.0.4).\n'
            "Parsing model\n"
            'While parsing node number 0 [Conv -> "377"]:\n'
            "ERROR: /home/fffan/fffan_files/other/onnx-tensorrt-5.1/ModelImporter.cpp:552 In function importModel:\n"
            "[5] Assertion failed: tensors.count(input_name)")
    assert "newer ir_version" not in without_benign_lines(text)  # a note: what follows it is the error
    assert kind_of(text) == ("converter", "convert")  # the parser's own error names it


def test_coremltools_onnx_converter_after_onnx_s_shape_inference_is_the_converter():
    # apple/coremltools coremltools/converters/onnx/_converter.py, its convert(): onnx's shape inference
    # runs first, then the converter prepares the graph (its source lines, as a traceback shows them)
    text = ("    onnx_model = onnx.shape_inference.infer_shapes(onnx_model)\n"
            "--> graph = _prepare_onnx_graph(onnx_model.graph, transformers, onnx_model.ir_version)")
    assert kind_of(text) == ("converter", "convert")


def test_x_anylabeling_s_prediction_failure_is_onnxruntime_s_run():
    # CVHub520/X-AnyLabeling#902: the application's model manager, running a YOLO11-OBB ONNX model
    text = ("2025-04-16 09:27:54,712 | ERROR   | model_manager:predict_shapes:2031 - Error in predict_shapes: '<=' not "
            "supported between instances of 'int' and 'str'")
    assert kind_of(text) == ("onnxruntime", "run")


@pytest.mark.parametrize(("text", "want"), [
    # entries/OT0161 (onnx 1.23.2's onnx.load of a model whose data file is shorter, the entry's reproduction)
    ("ValueError: External data length (16384) exceeds available data (4096 bytes from offset 0) for tensor "
     "'decoder.lm_head.weight'", ("onnx", "load")),
    # entries/OT0164 (onnxsim 0.8.1's CLI on a two-input model, the entry's reproduction)
    ('RuntimeError: The model has more than 1 inputs, please use the format "input_name:dim0,dim1,...,dimN" in '
     "--input-shape", ("optimizer", "convert")),
    # entries/OT0957, from zhenhuaw-me/tflite2onnx#82: the converter has no converter for the TFLite op
    ("NotImplementedError: Unsupported TFLite OP: 124 DENSIFY!", ("converter", "convert")),
    # entries/OT0855, from TrojanXu/onnxparser-trt-plugin-sample#2: TensorRT's ONNX parser has no importer
    ("UNSUPPORTED_NODE: No importer registered for op: GridSampler", ("converter", "convert")),
])
def test_a_tool_s_own_message_in_an_entry_names_it(text, want):
    assert kind_of(text) == want


@pytest.mark.parametrize("text", [
    # entries/OT1451, from huggingface/candle#1975: candle-onnx prints the ONNX node it cannot evaluate
    "thread 'main' panicked at src/main.rs:33:72:\ncalled `Result::unwrap()` on an `Err` value: Msg(\"unsupported op_type "
    'Identity for op NodeProto { input: [\\"model.49.dfl.conv.weight\\"], output: [\\"model.49.dfl2.conv.weight\\"], '
    'name: \\"Identity_346\\", op_type: \\"Id',
    # entries/OT1456, from apache/mxnet#18776: MXNet's exporter to ONNX has no converter for the op
    "AttributeError: No conversion function registered for op type _rnn_param_concat yet.",
])
def test_an_importer_or_exporter_named_by_its_own_message_in_an_entry(text):
    assert kind_of(text) == ("converter", "convert")
