"""Other frameworks' ONNX importers (OpenCV DNN, TVM, Unity Barracuda, onnx-tensorrt, ncnn, MNN, RKNN,
OpenVINO's Model Optimizer): their errors are a converter failing to read an ONNX file, not
onnxruntime loading it. Texts are real pastes from public threads (cited beside each); none comes
from a blind set.
"""
from __future__ import annotations

import pytest

from tests.triaging import triage_of

CASES = [
    # opencv/opencv#18853
    ("cv2.error: OpenCV(4.0.0) C:\\projects\\opencv-python\\opencv\\modules\\dnn\\src\\onnx\\onnx_importer.cpp:215: "
     "error: (-215:Assertion failed) attribute_proto.ints_size() == 2 in function "
     "'cv::dnn::dnn4_v20180917::ONNXImporter::getLayerParams'"),
    # opencv/opencv#23886
    ("[ERROR:0@1.522] global onnx_importer.cpp:1064 cv::dnn::dnn4_v20230620::ONNXImporter::handleNode DNN/ONNX: "
     "ERROR during processing node with 1 inputs and 1 outputs: [Neg]:(onnx_node!/encoder/blocks.1/blocks.1.0/conv_dw/Neg) "
     "from domain='ai.onnx'"),
    # Unity-Technologies/barracuda-release#261
    "OnnxImportException: Unknown type ScatterND encountered while parsing layer 316.",
    # Unity-Technologies/barracuda-release#197
    ('Asset import failed, "Assets/Scripts/Model/output.onnx" > OnnxImportException: Unexpected error while '
     "parsing layer 512 of type Gemm."),
    # hpc203/yolov5-dnn-cpp-python-v2#10
    ("/media/yzl/C4A8E8FBE4769FDE/sr/cpp/opencv-4.2.0/modules/dnn/src/onnx/onnx_importer.cpp:327: error: "
     "(-215:Assertion failed) model_proto.has_graph() in function 'populateNet'"),
]


@pytest.mark.parametrize("text", CASES)
def test_importer_errors_are_a_converter_at_convert(text):
    t = triage_of(text)
    assert t is not None and (t.component, t.stage) == ("converter", "convert"), t


def test_importer_source_line_beside_onnxruntime_error_lets_onnxruntime_win():
    # onnxruntime's own message in the error line decides: the session failed, whatever else the log holds
    text = ("[ONNXRuntimeError] : 1 : FAIL : Load model from m.onnx failed:Protobuf parsing failed.\n"
            "earlier: readNetFromONNX was tried first")
    t = triage_of(text)
    assert t is not None and t.component == "onnxruntime", t


def test_weak_importer_phrases_do_not_open_the_family_alone():
    # "Error converting operator" is TVM's relax frontend wording, but other converters print it too
    assert triage_of("Error converting operator foo: not handled") is None
