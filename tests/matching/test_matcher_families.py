"""A known problem in words the entry's first examples did not use (issue 11, item 2).

Each case is a real text: the installed tools' own output, or a public thread cited beside it
(none of them a blind-set source). Signatures are anchored on the fixed words of the message's
format string, so a cut-off paste, an application's log line around the message, the same
message from another library of the family, or a translated debugger line still reach the entry;
and the negatives show that the anchor is not a wrapper any error has.
"""
from __future__ import annotations

import onnx
import onnxruntime as ort
import pytest
from onnx import TensorProto, helper

from diagnoser import diagnose


def _top(text: str) -> str | None:
    report = diagnose(text=text)
    return report.diagnoses[0].id if report.diagnoses else None


def _type_error() -> str:
    """onnxruntime's own Type Error for int64 into Sqrt (float-only at opset 13)."""
    node = helper.make_node("Sqrt", ["x"], ["y"], name="sq")
    graph = helper.make_graph([node], "g", [helper.make_tensor_value_info("x", TensorProto.INT64, [2])],
                              [helper.make_tensor_value_info("y", TensorProto.INT64, [2])])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
    model.ir_version = 8
    with pytest.raises(Exception) as err:
        ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
    return str(err.value)


def test_a_type_error_cut_off_after_the_operator_still_names_the_problem():
    full = _type_error()
    assert "of operator (Sqrt) in node (sq) is invalid" in full
    assert _top(full) == "OT0206"
    cut = full[:full.index("of operator (Sqrt") + len("of operator (Sqrt")]  # a paste that stops there
    assert _top(cut) == "OT0206"


@pytest.mark.parametrize("text", [
    # https://github.com/microsoft/onnxruntime/issues/22252 (the debugger's English line)
    "Exception thrown at 0x00007FFE7576352C (onnxruntime.dll) in model_benchmark.exe: 0xC0000005: Access violation reading location 0x0000018FE4BB8080.",
    # https://github.com/microsoft/onnxruntime/issues/8579 (the same line in a Chinese Visual Studio)
    "0x00007FFB0AF2ACFF (onnxruntime_providers_cuda.dll)处(位于 yolox_demo.exe 中)引发的异常: 0xC0000005: 读取位置 0x000000000000009C 时发生访问冲突。",
    # the same with full-width parentheses and colon, as a Chinese IME types them
    "0x00007FFB0AF2ACFF （onnxruntime_providers_cuda.dll）处(位于 yolox_demo.exe 中)引发的异常： 0xC0000005: 读取位置 0x000000000000009C 时发生访问冲突。",
])
def test_the_debuggers_access_violation_in_an_onnx_module_is_a_crash(text):
    assert _top(text) == "OT0401"


def test_an_access_violation_in_another_module_is_not_onnxruntimes_crash():
    # the debugger's line is only about onnxruntime when the faulting module is
    line = "Exception thrown at 0x00007FFE7576352C (nvcuda64.dll) in model_benchmark.exe: 0xC0000005: Access violation reading location 0x0000018FE4BB8080."
    assert _top(line) != "OT0401"


def test_a_missing_model_in_an_applications_own_words(tmp_path):
    # Python's own words are OT0420's; insightface's and sherpa-onnx's have entries of their own
    with pytest.raises(FileNotFoundError) as err:
        onnx.load(str(tmp_path / "models" / "missing.onnx"))
    assert _top(f"FileNotFoundError: {err.value}") == "OT0420"
    # insightface's assertion inside ComfyUI's log line, https://github.com/Gourieff/ComfyUI-ReActor/issues/59
    assert _top("!!! Exception during processing !!! model_file /Users/lishrliu/StableDiffusion/ComfyUI/models/insightface/inswapper_128.onnx should exist") == "OT1504"
    # sherpa-onnx's Android asset reader, https://github.com/k2-fsa/sherpa-onnx/issues/2189
    assert _top("Read binary file: Load sherpa-onnx-streaming-zipformer-bilingual-zh-en-2023-02-20/decoder-epoch-99-avg-1.onnx failed") == "OT1503"


def test_a_missing_file_that_is_not_the_model_is_not_a_missing_model(tmp_path):
    import torch

    with pytest.raises(FileNotFoundError) as err:
        torch.load(str(tmp_path / "GFPGANv1.4.pth"))
    assert _top(f"FileNotFoundError: {err.value}") != "OT0420"


def test_tensorrts_engine_refusal_alone_is_a_stale_engine():
    # the runtime's line without the archive reader's reason, https://github.com/NVIDIA/TensorRT/issues/2041
    line = "[06/08/2022-15:28:47] [TRT] [E] 4: [runtime.cpp::deserializeCudaEngine::50] Error Code 4: Internal Error (Engine deserialization failed.)"
    assert _top(line) == "OT0513"


# --- likeness: the problem's words, not the user's particulars ---

def test_likeness_reads_a_path_by_its_file_name_and_keeps_urls():
    from diagnoser.matching.index import example_key

    # https://github.com/commaai/commavq/issues/12 (an OT0162 example): the folders are this
    # user's; the file name and the runtime's words are the message
    key = example_key("InvalidProtobuf: [ONNXRuntimeError] : 7 : INVALID_PROTOBUF : Load model from "
                      "/home/mojo/dev/commavq-challenge/commavq/models/decoder.onnx failed:Protobuf parsing failed.")
    assert "load model from decoder.onnx failed:protobuf parsing failed" in key and "mojo" not in key
    # the tool's own source tree stays (https://github.com/microsoft/onnxruntime/issues/10038, OT0708)
    assert "onnxruntime_src/include/onnxruntime/core/common/logging/logging.h:294" in example_key(
        "what():  /onnxruntime_src/include/onnxruntime/core/common/logging/logging.h:294 static const onnxruntime::logging::Logger&")
    # a relative path is the package's layout (https://github.com/huggingface/transformers.js/issues/895, OT0523)
    assert "../bin/napi-v3/darwin/arm64/onnxruntime_binding.node" in example_key(
        "`Error: Cannot find module '../bin/napi-v3/darwin/arm64/onnxruntime_binding.node'`")
    # a tool's link is its own words (torch.onnx's SARIF wrapper prints it with every failure)
    url = "SARIF logs can be loaded in VS Code SARIF viewer extension, or SARIF web viewer (https://microsoft.github.io/sarif-web-component/)."
    assert "https://microsoft.github.io/sarif-web-component/" in example_key(url)


def test_a_faulting_address_is_not_a_word():
    from diagnoser.matching.similarity import tokens
    from diagnoser.matching.text import without_particulars

    # https://github.com/microsoft/onnxruntime/issues/8828: the hex digits of an address made words
    line = "Unhandled exception at 0x00007FFBF13DACFF (onnxruntime_providers_cuda.dll) in ***.exe: 0xC0000005"
    assert "dacff" in tokens(line) and "dacff" not in tokens(without_particulars(line))


def test_coverage_ranks_but_never_diagnoses():
    """An entry's examples together may cover a text no single example resembles: that ranks the
    fallback's candidates; it is capped below what likeness alone needs for a diagnosis."""
    from diagnoser.matching.index import default_index
    from diagnoser.matching.similarity import COVERAGE_CAP, best_by_entry

    vectors = default_index().vectors
    # https://github.com/microsoft/onnxruntime/issues/8579 (an OT0401 example)
    text = "0x00007FFB0AF2ACFF (onnxruntime_providers_cuda.dll)处(位于 yolox_demo.exe 中)引发的异常: 0xC0000005: 读取位置 0x000000000000009C 时发生访问冲突。"
    plain, covered = best_by_entry(vectors, text, coverage=False), best_by_entry(vectors, text)
    assert all(covered[i] >= v for i, v in plain.items())
    assert all(v <= max(COVERAGE_CAP, plain.get(i, 0.0)) for i, v in covered.items())
