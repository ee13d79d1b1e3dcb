"""Tells found on set J's confident wrong answers (issue 11, session 12).

Each test holds a general tell, not one text: a log line that only logs before another problem, a
weak wording other libraries share, a warning whose load went on to fail elsewhere, bytes that are
not a name, and OpenCV's importer assertions. Texts come from public threads outside the blind
sets (cited beside each) or are printed here by the installed onnxruntime and numpy.
"""
from __future__ import annotations

import os
import subprocess
import sys
import warnings

import numpy as np
import onnxruntime as ort
import pytest
from onnx import TensorProto, helper

from diagnoser import diagnose


def _ids(text: str) -> tuple[list[str], list[str]]:
    report = diagnose(text=text)
    return [d.id for d in report.diagnoses], [d.id for d in report.candidates]


def _save(tmp_path, nodes, opsets, name="m.onnx", inputs=None, outputs=None) -> str:
    inputs = inputs or [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2])]
    outputs = outputs or [helper.make_tensor_value_info("y", TensorProto.FLOAT, [2])]
    model = helper.make_model(helper.make_graph(nodes, "g", inputs, outputs),
                              opset_imports=[helper.make_opsetid(d, v) for d, v in opsets], ir_version=10)
    path = tmp_path / name
    path.write_bytes(model.SerializeToString())
    return str(path)


# --- a weak signature's line only logs; the problem is reported after it (OT0301) ---

def _nan_after_applied_providers(tmp_path) -> str:
    """insightface's log of the providers a session applied, then numpy's warning on the session's
    NaN output cast to uint8 (both printed here: the session by onnxruntime, the warning by numpy)."""
    path = _save(tmp_path, [helper.make_node("Sqrt", ["x"], ["y"])], [("", 17)])
    sess = ort.InferenceSession(path, providers=["CPUExecutionProvider"])
    # insightface's format, as in OT0301's example from deepinsight/insightface#2394
    logged = f"Applied providers: {sess.get_providers()}, with options: {sess.get_provider_options()}"
    out = sess.run(None, {"x": np.array([-1.0, 4.0], dtype=np.float32)})[0]
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        np.clip(255 * out, 0, 255).astype(np.uint8)
    w = next(c for c in caught if issubclass(c.category, RuntimeWarning))
    return logged + "\n" + warnings.formatwarning(w.message, w.category, "swap.py", 56,
                                                  "bgr_fake = np.clip(255 * img_fake, 0, 255).astype(np.uint8)")


def test_nan_output_after_the_cpu_providers_log_is_not_the_cpu_package(tmp_path):
    text = _nan_after_applied_providers(tmp_path)
    assert "Applied providers: ['CPUExecutionProvider'], with options: {'CPUExecutionProvider': {}}" in text
    assert "RuntimeWarning: invalid value encountered in cast" in text
    assert "OT0301" not in _ids(text)[0]


def test_the_cpu_providers_log_alone_is_still_ot0301():
    # OT0301's own example line (https://github.com/deepinsight/insightface/issues/2394): nothing after it
    text = "Applied providers: ['CPUExecutionProvider'], with options: {'CPUExecutionProvider': {}}"
    assert "OT0301" in [*_ids(text)[0], *_ids(text)[1]]


def test_specified_provider_not_available_warning_stays_ot0301():
    # OT0301's strong signature is no weak log line: https://github.com/microsoft/onnxruntime/issues/23736
    text = ("UserWarning: Specified provider 'CUDAExecutionProvider' is not in available provider names."
            "Available providers: 'AzureExecutionProvider, CPUExecutionProvider'")
    assert _ids(text)[0][:1] == ["OT0301"]


# --- a weak wording other libraries share, with nothing of ONNX in the text (OT0625) ---

def test_a_training_forward_missing_an_argument_is_not_an_export_problem():
    # https://github.com/minar09/ACGPN/issues/15 (the issue title: a training script, no ONNX)
    text = "TypeError: forward() missing 1 required positional argument: 'mask_fore'"
    assert "OT0625" not in _ids(text)[0]


def test_forward_missing_an_argument_under_torch_onnx_export_stays_ot0625():
    # OT0625's example, https://github.com/pytorch/pytorch/issues/20009: the export call is in the text
    text = ('torch.onnx.export(trained_model, dummy_input, "sentiment.onnx")\n'
            "TypeError: forward() missing 1 required positional argument: 'hidden'")
    assert _ids(text)[0][:1] == ["OT0625"]


# --- the opset warning before a load that failed on an op (OT0201 vs OT0204) ---

def _opset_warning_then_unknown_contrib_op(tmp_path) -> tuple[str, str]:
    """onnxruntime's warning for an opset under development (ALLOW_RELEASED_ONNX_OPSET_ONLY=0 makes
    it a warning) and the load error for a com.microsoft op it does not know, printed here."""
    opset = ort.capi.onnxruntime_pybind11_state  # noqa: F841 (the installed build is the one run)
    path = _save(tmp_path, [helper.make_node("NoSuchContribOp", ["x"], ["y"], domain="com.microsoft")],
                 [("", 29), ("com.microsoft", 1)])
    code = ("import onnxruntime as ort\ntry:\n"
            f"    ort.InferenceSession({path!r}, providers=['CPUExecutionProvider'])\n"
            "except Exception as e:\n    print(e)")
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120,
                         env={**os.environ, "ALLOW_RELEASED_ONNX_OPSET_ONLY": "0"})
    warning = next((ln for ln in run.stderr.splitlines() if "is under development" in ln), "")
    return warning, run.stdout.strip()


def test_an_op_not_registered_after_the_opset_warning_is_the_op(tmp_path):
    warning, error = _opset_warning_then_unknown_contrib_op(tmp_path)
    if not warning:
        pytest.skip("this onnxruntime knows no opset under development past its release")
    assert "is not a registered function/op" in error
    # an application's logging callback relays the message without onnxruntime's log prefix
    message = warning.split("] ", 1)[1].replace("\x1b[m", "")
    text = message + "\n" + error
    diagnoses, candidates = _ids(text)
    assert diagnoses[:1] == ["OT0204"] and "OT0201" not in diagnoses and "OT0201" in candidates


def test_the_opset_error_alone_stays_ot0201(tmp_path):
    path = _save(tmp_path, [helper.make_node("Relu", ["x"], ["y"])], [("", 29)])
    with pytest.raises(Exception) as err:
        ort.InferenceSession(path, providers=["CPUExecutionProvider"])
    if "is under development" not in str(err.value):
        pytest.skip("this onnxruntime loads opset 29")
    assert _ids(str(err.value))[0][:1] == ["OT0201"]


# --- bytes that are not text in a name are a freed string (OT0262), not a wrong name (OT0261) ---

def test_replacement_characters_in_an_output_name_are_ot0262(tmp_path):
    path = _save(tmp_path, [helper.make_node("Relu", ["x"], ["y"])], [("", 17)])
    sess = ort.InferenceSession(path, providers=["CPUExecutionProvider"])
    with pytest.raises(Exception) as err:
        sess.run(["h\ufffd\ufffd\ufffd"], {"x": np.zeros(2, dtype=np.float32)})
    text = f"  what():  {str(err.value).split(' : ')[-1]}"  # a C++ app prints the message after what()
    assert "Invalid output name:h\ufffd" in text
    assert _ids(text)[0][:1] == ["OT0262"]


def test_a_readable_wrong_output_name_stays_ot0261():
    # https://github.com/zullum/roop-unleashed/issues/1
    assert _ids("Error in execution: Invalid Output Name:1288")[0][:1] == ["OT0261"]


# --- OpenCV's importer: no graph in the parsed file, a layer's shapes (OT1304, OT1102) ---

def test_model_proto_has_no_graph_is_a_file_opencv_cannot_read():
    # https://github.com/hpc203/yolov5-dnn-cpp-python-v2/issues/10 (OpenCV 4.2.0)
    text = ("/media/yzl/C4A8E8FBE4769FDE/sr/cpp/opencv-4.2.0/modules/dnn/src/onnx/onnx_importer.cpp:327: "
            "error: (-215:Assertion failed) model_proto.has_graph() in function 'populateNet'")
    assert _ids(text)[0][:1] == ["OT1304"]


def test_shape_utils_total_on_an_onnx_model_is_opencvs_shape_check():
    # https://github.com/ultralytics/yolov5/issues/4471 (OpenCV 4.5.3; the call and the error from the report)
    text = ('model = cv2.dnn.readNetFromONNX("runs/train/exp10/weights/best.onnx")\n'
            "opencv2/dnn/shape_utils.hpp:171: error: (-215:Assertion failed) start <= (int)shape.size() && "
            "end <= (int)shape.size() && start <= end in function 'cv::dnn::dnn4_v20210608::total'")
    assert _ids(text)[0][:1] == ["OT1950"]


def test_shape_utils_total_with_nothing_of_onnx_is_a_candidate_at_most():
    # https://github.com/opencv/opencv/issues/19441 (mobilenetSSD.forward(): OpenCV DNN also reads Caffe files)
    text = ("Error: Assertion failed (start <= (int)shape.size() && end <= (int)shape.size() && start <= end) "
            "in cv::dnn::dnn4_v20201117::total, file C:\\build\\master_winpack-build-win64-vc15\\opencv\\modules\\dnn"
            "\\include\\opencv2/dnn/shape_utils.hpp, line 171")
    assert _ids(text)[0] == []


# --- onnxruntime-web's WebGL kernel without a form of its op (OT0707) ---

def test_webgl_resize_without_nearest_mode_is_the_webgl_backend():
    # https://github.com/microsoft/onnxruntime/issues/12842 (the title; OT0707 keeps it as a holdout)
    text = "Error: resize (packed) does not support mode: 'nearest' at WebGLInferenceHandler"
    assert _ids(text)[0][:1] == ["OT0707"]
