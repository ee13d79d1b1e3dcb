"""Triage names the component and stage from the component's own vocabulary: linkers and loaders,
the Java and ML.NET bindings, other frameworks' ONNX importers, onnxruntime's provider-name list,
its quantization calibrator's nodes, and a log read in the wrong encoding.

Texts are real: pasted in public threads (cited beside each; none is in a blind set or its
sources), or produced here by the installed tools. Each positive case fails without the phrase
group or stage words it names (diagnoser/data/triage_phrases.yaml); the negative cases share a
word with them and are not about ONNX.
"""
from __future__ import annotations

import pytest

from diagnoser.triage.classify import groups, matching_group, onnx_importer
from tests.triaging import kind_of




@pytest.mark.parametrize(("text", "want"), [
    # nixiesearch/nixiesearch#365: the Java binding's OrtSession.run() checks the feed count (stage word)
    ("15:12:06.676 ERROR ai.nixiesearch.api.API$ - ai.onnxruntime.OrtException: Unexpected number of inputs, "
     "expected [1,2) found 3", ("onnxruntime", "run")),
    # onnx/onnx#6245: the same check on the requested outputs
    ("ai.onnxruntime.OrtException: Unexpected number of requestedOutputs & pinnedOutputs, expected [1,1) found 2",
     ("onnxruntime", "run")),
    # dotnet/machinelearning#6602: ML.NET's OnnxTransformer checks the fed column (groups ort-mlnet, weak-ort-feed)
    ("System.InvalidOperationException: 'Input shape mismatch: Input 'images' has shape 8,3,1280,1280, but input "
     "data is of length 4915200.'\n"
     "   at Microsoft.ML.Transforms.Onnx.OnnxTransformer.Mapper..ctor(OnnxTransformer parent, DataViewSchema inputSchema)\n"
     "   at Microsoft.ML.Transforms.Onnx.OnnxTransformer.MakeRowMapper(DataViewSchema inputSchema)",
     ("onnxruntime", "run")),
    # ppogg/YOLOv5-Lite#265: GNU ld, the C API's entry point not linked (group ort-link)
    ("/usr/bin/ld: CMakeFiles/demo.dir/main.cpp.o: in function `__static_initialization_and_destruction_0(int, int)':\n"
     "main.cpp:(.text+0x17d6): undefined reference to `OrtGetApiBase'\ncollect2: error: ld returned 1 exit status",
     ("install", "install")),
    # microsoft/onnxruntime#21408: MSVC's LNK2019 on the same symbol
    ("1>UnitTests.obj : error LNK2019: unresolved external symbol OrtGetApiBase referenced in function \"void __cdecl "
     "`dynamic initializer for 'public: static struct OrtApi const * const Ort::Global<void>::api_''(void)\"",
     ("install", "install")),
    # csukuangfj/onnxruntime-libs#37: lld on Android, a static library that does not provide it
    ("ld.lld: error: undefined symbol: OrtGetApiBase\n>>> referenced by onnxruntime_cxx_api.h:117\n"
     "clang++: error: linker command failed with exit code 1 (use -v to see invocation)", ("install", "install")),
    # rockchip-linux/rknn-toolkit2#66: RKNN's load_onnx log lines (group converter-onnx-importers, rknn frames)
    ("E load_onnx: Traceback (most recent call last):\n"
     "E load_onnx:   File \"rknn/api/rknn_base.py\", line 1157, in rknn.api.rknn_base.RKNNBase.load_onnx\n"
     "E load_onnx: UnboundLocalError: local variable 'inp' referenced before assignment", ("converter", "convert")),
    # pip 26.3 here: an onnxruntime wheel for another platform is an installation matter (group install-import-any)
    ("Looking in links: /opt/wheels\n"
     "ERROR: onnxruntime_gpu-1.16.0-cp38-cp38-win_amd64.whl is not a supported wheel on this platform.",
     ("install", "install")),
    # onnxruntime 1.17's provider_registration.cc, the literal message (no format argument): WEBNN there is a
    # provider name, not the web runtime (group ort-provider-names before web-weak)
    ("Unknown provider name. Currently supported values are 'OPENVINO', 'SNPE', 'XNNPACK', 'QNN', 'WEBNN' and 'AZURE'",
     ("onnxruntime", "load")),
])
def test_component_and_stage_from_the_component_s_own_words(text, want):
    assert kind_of(text) == want


def _reshape_run_error() -> str:
    """onnxruntime 1.32.0's own run failure (a Reshape to 2x3 fed 5 values); it also logs the
    sequential_executor line to stderr."""
    import numpy as np
    import onnxruntime as ort
    from onnx import TensorProto, helper

    graph = helper.make_graph(
        [helper.make_node("Reshape", ["x", "s"], ["y"], name="r")], "g",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, None)],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)],
        [helper.make_tensor("s", TensorProto.INT64, [2], [2, 3])])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    sess = ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
    with pytest.raises(Exception) as err:
        sess.run(None, {"x": np.zeros(5, np.float32)})
    return str(err.value)


def test_the_newer_provider_name_list_is_named_by_its_own_group():
    # microsoft/onnxruntime#28625 (its description quotes the release it fixes)
    text = ("RuntimeError: Unknown provider name 'CPU'. Currently supported values are 'DML'/'DmlExecutionProvider', ...")
    group = matching_group(text, text)
    assert group is not None and group.name == "ort-provider-names"
    assert kind_of(text) == ("onnxruntime", "load")


def test_a_node_the_calibrator_added_puts_a_runtime_failure_under_quantization():
    import onnxruntime.quantization.calibrate as calibrate

    # the installed calibrator still names the nodes it adds this way
    source = open(calibrate.__file__, encoding="utf-8").read()
    assert 'reduce_output + "_Reshape"' in source and 'tensor_name + "_" + reduce_op_name' in source
    # microsoft/onnxruntime#20026, the error quantize_static met on such a node (OT0268's example)
    text = ("onnxruntime.capi.onnxruntime_pybind11_state.RuntimeException: [ONNXRuntimeError] : 6 : RUNTIME_EXCEPTION : "
            "Non-zero status code returned while running Reshape node. Name:'/Reshape_16_output_0_ReduceMax_Reshape' "
            "Status Message: /onnxruntime_src/onnxruntime/core/providers/cpu/tensor/reshape_helper.h:26 "
            "onnxruntime::ReshapeHelper::ReshapeHelper(const onnxruntime::TensorShape&, onnxruntime::TensorShapeVector&, "
            "bool) i < input_shape.NumDimensions() was false. The dimension with value zero exceeds the dimension "
            "size of the input tensor.")
    assert kind_of(text) == ("quantization", "quantize")
    assert kind_of(text.replace("_ReduceMax_Reshape", "_Reshape")) == ("onnxruntime", "run")  # a model's own Reshape


def test_a_log_written_as_utf16_is_read_without_its_letter_spacing(capfd):
    _reshape_run_error()
    line = next(ln for ln in capfd.readouterr().err.splitlines() if "sequential_executor" in ln)
    # what a console shows when that log line was written as UTF-16 and is read as 8-bit text
    garbled = line.encode("utf-16-le").decode("latin-1").replace("\x00", " ")
    assert "s e q u e n t i a l" in garbled
    assert kind_of(garbled) == ("onnxruntime", "run")


def test_onnx_importers_come_from_the_table_only():
    rx = onnx_importer()
    flagged = [g for g in groups() if g.importer]
    assert {g.name for g in flagged} == {"converter-onnx-importers", "converter-opencv-dnn", "converter-onnx-to-framework",
                                         "converter-rust-importers", "converter-tensorrt-parser", "converter-unity-import",
                                         "converter-unity-namespaces", "converter-ailia", "converter-x2paddle"}
    for name in ("onnx_tf", "onnx2tf", "onnx2torch", "onnx2keras", "onnx_coreml", "x2paddle", "onnx_importer.cpp",
                 "candle-onnx", "ModelImporter.cpp"):
        assert rx.search(f"File \"/site-packages/{name}/x.py\"") or rx.search(name), name
    for name in ("tf2onnx", "keras2onnx", "skl2onnx", "hummingbird", "jax2onnx"):  # exporters to ONNX are not importers
        assert not rx.search(name), name


def test_the_checker_s_verdict_in_an_importer_s_traceback_is_onnx_in_an_exporter_s_the_converter():
    tail = ("onnx.onnx_cpp2py_export.checker.ValidationError: Field 'shape' of 'type' is required but missing.")
    importer = ("Traceback (most recent call last):\n  File \"/usr/lib/python3/site-packages/onnx2torch/converter.py\", "
                f"line 61, in convert\n    onnx.checker.check_model(onnx_model)\n{tail}")
    exporter = importer.replace("onnx2torch/converter.py", "tf2onnx/convert.py")
    assert kind_of(importer)[0] == "onnx"
    assert kind_of(exporter)[0] == "converter"


@pytest.mark.parametrize("text", [
    # hugocornellier/flutter_litert#6: Dart's symbol lookup on TensorFlow Lite's library
    "Invalid argument(s): Failed to lookup symbol 'TfLiteXNNPackDelegateCreate': The specified procedure could not "
    "be found.\n   (error code: 127)",
    # geaxgx/depthai_hand_tracker#8: OpenVINO's Model Optimizer with no word of ONNX (it reads TensorFlow too)
    "[ ERROR ]  Cannot infer shapes or values for node \"If_38\".\n"
    "[ ERROR ]  There is no registered \"infer\" function for node \"If_38\" with op = \"If\". Please implement this "
    "function in the extensions.\n[ ERROR ]  It can happen due to bug in custom shape infer function <UNKNOWN>.",
    # dusty-nv/jetson-inference#1870: its model-file message for a UFF model (group converter-jetson-model-file
    # only names the component of a text already about an ONNX file)
    "error:  model file 'networks/SSD-Mobilenet-v2/ssd_mobilenet_v2_coco.uff' was not found.\n"
    "        if loading a built-in model, maybe it wasn't downloaded before.\n\n"
    "[TRT]    detectNet -- failed to initialize.",
    # pip 26.3 here, on a wheel built for another platform (a package of no ONNX family)
    "Looking in links: /opt/wheels\n"
    "ERROR: tensorflow-2.15.0-cp38-cp38-win_amd64.whl is not a supported wheel on this platform.",
])
def test_texts_sharing_a_word_with_these_rules_but_not_about_onnx_get_no_triage(text):
    assert kind_of(text) is None


@pytest.mark.parametrize("text", [
    # microsoft/onnxruntime#8177 (OT0506's example): the bridge library, not a provider, failed to load
    "2021-06-28 18:09:32.6703074 [E:onnxruntime:test, provider_bridge_ort.cc:902 "
    "onnxruntime::ProviderSharedLibrary::Ensure] Failed to load library, error code: 126",
    # microsoft/onnxruntime#8111 (OT0506's example): the Python module's warning after it
    "2021-06-21 20:40:26.585217320 [W:onnxruntime:Default, onnxruntime_pybind_state.cc:1615 "
    "pybind11_init_onnxruntime_pybind11_state] Init provider bridge failed.",
])
def test_the_provider_bridge_missing_is_an_incomplete_installation(text):
    assert kind_of(text) == ("install", "install")
    # a provider's own library failing to load is the provider's setup, at load (group ort-provider-library)
    cuda = ("[E:onnxruntime:Default, provider_bridge_ort.cc:1022 onnxruntime::ProviderLibrary::Get] LoadLibrary failed "
            "with error 126 \"\" when trying to load \"C:\\\\onnxruntime\\\\capi\\\\onnxruntime_providers_cuda.dll\"")
    assert kind_of(cuda) == ("onnxruntime", "load")


def test_the_checker_s_ir_version_rule_is_onnx_s_own():
    import onnx
    from onnx import helper

    model = helper.make_model(helper.make_graph([], "g", [], []), opset_imports=[helper.make_opsetid("", 17)])
    model.ir_version = 2
    with pytest.raises(onnx.checker.ValidationError) as err:
        onnx.checker.check_model(model)
    text = f"onnx.onnx_cpp2py_export.checker.ValidationError: {err.value}"
    assert "cannot have opset_import specified" in text
    assert kind_of(text.split(": ", 1)[1]) == ("onnx", "convert")  # the checker's words alone (group onnx-checker)


def test_a_frame_in_onnxscript_s_optimizer_names_the_optimizer():
    import traceback

    import onnxscript.optimizer

    try:
        onnxscript.optimizer.optimize(42)  # not a model: the installed optimizer's own assertion
    except AssertionError:
        text = traceback.format_exc()
    else:  # pragma: no cover - a release that accepts anything
        pytest.skip("this onnxscript release does not check its input")
    assert "onnxscript/optimizer" in text.replace("\\", "/")
    assert kind_of(text) == ("optimizer", "convert")


def test_the_second_half_of_a_node_s_run_failure_still_says_run():
    message = _reshape_run_error()
    assert "Non-zero status code returned while running Reshape node" in message
    tail = message[message.index("Status Message: "):]  # what a paste keeps when the first half scrolled away
    assert "onnxruntime" in tail and kind_of(tail) == ("onnxruntime", "run")


def test_tract_s_typing_pass_on_an_onnx_file_is_a_converter():
    # arition/torch-js#15: tractjs (tract compiled for JS) loading an ONNX file (group converter-onnx-importers-weak)
    text = ('const model = await tractjs.load("qa_model.onnx", {\n'
            'Error {\n    context: "Translating node #32 \\"NonZero_16\\" NonZero ToTypedTranslator",\n'
            '    source: "Node #32 \\"NonZero_16\\" NonZero can not be typed",\n}')
    assert kind_of(text) == ("converter", "convert")
    assert kind_of(text.replace('tractjs.load("qa_model.onnx", {', "tractjs.load(path, {")) is None  # no word of ONNX
