"""Importer and converter entries OT1950-OT1961 (OpenCV DNN, X2Paddle, MNN, onnx-mlir): wordings that
are not their examples still reach them, and the neighbours they were told apart from keep their texts.

The OT1952/OT1955/OT1960 and OT1304 texts were printed here by opencv-python-headless 5.0.0 (other file
names, node names and modes than the entries' examples). The others fill each tool's message format,
quoted from its source in the entry's signature comment, with another node, file or value, to check
that the signatures key on the invariant part of the message."""
from __future__ import annotations

import pytest

from diagnoser import diagnose

REACHES = [
    # opencv-python-headless 5.0.0: an opset-9 Upsample with mode cubic, node named up0
    ("OT1955", "> Node [Upsample@ai.onnx]:(onnx_node_output_0!up0) parse error: OpenCV(5.0.0) "
               "/io/opencv/modules/dnn/src/layers/resize_layer.cpp:47: error: (-2:Unspecified error) in function "
               "'cv::dnn::ResizeLayerImpl::ResizeLayerImpl(const cv::dnn::dnn5_v20260605::LayerParams&)'\n"
               "> >     'interpolation == \"nearest\" || interpolation == \"opencv_linear\" || interpolation == \"bilinear\"'\n"
               "> > where\n> >     'interpolation' is cubic"),
    ("OT1952", "cv2.error: OpenCV(5.0.0) /io/opencv/modules/dnn/src/dnn_read.cpp:53: error: (-2:Unspecified error) "
               "Cannot determine an origin framework of files: model.onnx.txt in function 'readNet'"),
    ("OT1960", "cv2.error: OpenCV(5.0.0) /io/opencv/modules/dnn/src/onnx/onnx_importer2.cpp:745: error: "
               "(-215:Assertion failed) tensor.has_shape() in function 'parseValueInfo'"),
    # the assertion alone is also what Caffe and TensorFlow models meet (a candidate there): the ONNX
    # file read on the line before is what makes it this entry's diagnosis
    ("OT1950", "net = cv2.dnn.readNetFromONNX('yolov8n.onnx')\n"
               "OpenCV(4.7.0) Error: Assertion failed (start <= (int)shape.size() && end <= (int)shape.size() && "
               "start <= end) in cv::dnn::dnn4_v20221220::total, file shape_utils.hpp, line 170"),
    ("OT1951", "cv2.error: OpenCV(4.6.0) graph_simplifier.cpp:76: error: (-212:Parsing error) "
               "Input node with name onnx::Mul_712 not found in function 'getInputNodeId'"),
    ("OT1953", "onnx_importer.cpp:409: error: (-204:Requested object was not found) Blob onnx::MatMul_88 not found "
               "in const blobs in function 'getBlob'"),
    ("OT1954", "dnn.inl.hpp:349: error: (-204:Requested object was not found) Required argument \"ends\" not found "
               "into dictionary in function 'get'"),
    ("OT1956", "onnx_importer.cpp:215: error: (-215:Assertion failed) attribute_proto.ints_size() == 2 "
               "in function 'getLayerParams'"),
    ("OT1957", "Converting node 41 ...     convert failed node:onnx__Slice_97, op_type is Slice"),
    ("OT1958", "TESTERROR logits value error : absMaxV:7.250000 - DiffMax 0.913000"),
    ("OT1959", "Onnx Model Parsing Failed on /models/resnet50-v1-7.onnx"),
    ("OT1961", "Check failed: inputs.size() == 4 ==> \"Onnx Resize should have 4 inputs!\""),
]


@pytest.mark.parametrize(("entry", "text"), REACHES, ids=[e for e, _ in REACHES])
def test_other_wordings_reach_the_entry(entry, text):
    report = diagnose(text=text)
    assert report.diagnoses, [(c.id, c.confidence) for c in report.candidates]
    assert report.diagnoses[0].id == entry, [(d.id, d.confidence) for d in report.diagnoses]


KEEPS = [
    # a node OpenCV cannot parse, with no resize-mode line: the generic importer entry, not OT1955
    ("OT1102", "OT1955", "[ERROR:0@0.652] global onnx_importer.cpp:1092 cv::dnn::dnn5_v20260605::ONNXImporter::handleNode "
                         "DNN/ONNX: ERROR during processing node with 2 inputs and 1 outputs: [Resize]:(onnx_node!Resize_12)"),
    # a file OpenCV opened and could not read: OT1304, not readNet's extension dispatch
    ("OT1304", "OT1952", "cv2.error: OpenCV(5.0.0) /io/opencv/modules/dnn/src/onnx/onnx_importer2.cpp:341: error: "
                         "(-5:Bad argument) Can't read ONNX file: nograph.onnx in function 'parseFile'"),
    # an op MNNConvert has no converter for: OT1110, not the Resize input check or the numeric check
    ("OT1110", "OT1961", "writeFb.cpp:220: These Op Not Support: ONNX::IsInf | ONNX::Resize"),
]


@pytest.mark.parametrize(("keeper", "new", "text"), KEEPS, ids=[f"{k}-not-{n}" for k, n, _ in KEEPS])
def test_neighbours_keep_their_texts(keeper, new, text):
    report = diagnose(text=text)
    ranked = [d.id for d in (*report.diagnoses, *report.candidates)]
    assert new not in [d.id for d in report.diagnoses], ranked
    assert ranked and ranked[0] == keeper, ranked


def test_forward_with_a_wrong_output_name_is_not_the_const_blob_entry():
    """net.forward(['name']) with a layer name the net lacks says 'Requested blob not found': not OT1953
    (the text as quoted in opencv/opencv#17375)."""
    text = "Getting error \n'Requested blob not found in function 'getBlob'"
    report = diagnose(text=text)
    assert all(d.id != "OT1953" for d in report.diagnoses), [(d.id, d.confidence) for d in report.diagnoses]
