"""Session 12's triage rules: what does not make a text ONNX-family (a user's own paths holding the
word onnx, a lower-case `dml` variable) and the tells that name a component or stage (onnxruntime's
own messages without its name, DeepSparse's engine, OpenCV DNN's files and its CUDA backend). Every
text is real: printed here by the installed tools (cited with the command) or pasted in a public
thread outside the blind sets (cited beside it)."""
from __future__ import annotations

import pytest

from tests.triaging import kind_of

# torch 2.13.0, printed here by `python pth2onnx.py` (a script whose only line is torch.load of a missing
# checkpoint): the script's name holds the word onnx, the error is a checkpoint file not found
SCRIPT_NAMED_FOR_ONNX = '''Traceback (most recent call last):
  File "/tmp/t10x/pth2onnx.py", line 2, in <module>
    net = torch.load("weights/best_model.pth")
          ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
  File "/work/main/.venv/lib/python3.11/site-packages/torch/serialization.py", line 1561, in load
    with _open_file_like(f, "rb") as opened_file:
         ^^^^^^^^^^^^^^^^^^^^^^^^
  File "/work/main/.venv/lib/python3.11/site-packages/torch/serialization.py", line 795, in _open_file_like
    return _open_file(name_or_buffer, mode)
           ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
  File "/work/main/.venv/lib/python3.11/site-packages/torch/serialization.py", line 776, in __init__
    super().__init__(open(name, mode))  # noqa: SIM115
                     ^^^^^^^^^^^^^^^^
FileNotFoundError: [Errno 2] No such file or directory: 'weights/best_model.pth\''''

# CPython 3.11, printed here by `python -c "import json; json.load(open('/tmp/t10x/stable-diffusion-onnx/model_index.json'))"`:
# a pipeline's configuration file in a folder named for the model
CONFIG_IN_MODEL_FOLDER = '''Traceback (most recent call last):
  File "<string>", line 2, in <module>
FileNotFoundError: [Errno 2] No such file or directory: '/tmp/t10x/stable-diffusion-onnx/model_index.json\''''


@pytest.mark.parametrize("text", [SCRIPT_NAMED_FOR_ONNX, CONFIG_IN_MODEL_FOLDER])
def test_a_users_own_paths_holding_onnx_do_not_make_the_text_onnx_family(text):
    assert kind_of(text) is None


def test_a_tools_module_named_for_onnx_deeper_in_the_traceback_still_counts():
    # the same traceback through a converter's module (not the script it starts in) is about ONNX
    text = SCRIPT_NAMED_FOR_ONNX.replace(
        '  File "/work/main/.venv/lib/python3.11/site-packages/torch/serialization.py", line 1561, in load',
        '  File "tools/python/transform/onnx_converter.py", line 565, in run', 1)
    assert kind_of(text) is not None


def test_an_onnx_external_data_file_is_still_onnx():
    text = CONFIG_IN_MODEL_FOLDER.replace("model_index.json", "model.onnx.data")
    assert kind_of(text) is not None


CASES = [
    # onnxruntime 1.32.0, printed here by InferenceSession on a model whose two Relu nodes are both named
    # 'same': the message as an application shows it without onnxruntime's status prefix
    ("Error: two nodes with same node name (same).", ("onnxruntime", "load")),
    # onnxruntime 1.32.0, printed here by session.run of a Gather given index 7 into 3 elements: the
    # status message a binding (Windows ML, a C# wrapper) passes on alone
    ("indices element out of data bounds, idx=7 must be within the inclusive range [-3,2]", ("onnxruntime", "run")),
    # neuralmagic/deepsparse#1380 (a DeepSparse engine assertion; its bundled ORT fallback library in the path)
    ("Assertion at src/lib/engine/units/cached_concat_gemm.cpp:593\n\nBacktrace:\n"
     " 0# wand::detail::assert_fail(char const*, char const*, int) in "
     "/home/tdg5/src/nm/deepsparse/src/deepsparse/avx2/libonnxruntime.so.1.15.1", ("converter", "convert")),
    # opencv/opencv#20681 (readNetFromONNX, then forward: OpenCV DNN's shape helper)
    ("cv2.error: OpenCV(4.5.3) /private/var/folders/24/8k48jl6d249_n_qfxwsl6xvm0000gn/T/pip-req-build-xxsyexfp/"
     "opencv/modules/dnn/include/opencv2/dnn/shape_utils.hpp:171: error: (-215:Assertion failed) start <= "
     "(int)shape.size() && end <= (int)shape.size() && start <= end in function 'total'", ("converter", "convert")),
    # opencv/opencv#23228 (OpenCV DNN's CUDA backend running a padding layer)
    ("OpenCV(4.7.0-dev) /opencv/modules/dnn/src/cuda/padding.cu:155: error: (-215:Assertion failed) "
     "inShape[j] = outShape[j] in function 'copy_with_reflection101'", ("converter", "run")),
]


@pytest.mark.parametrize("text,expected", CASES)
def test_component_and_stage_tells(text, expected):
    assert kind_of(text) == expected


def test_opencv_dnn_on_another_frameworks_model_stays_out_of_scope():
    # the same OpenCV DNN failure with a Caffe model named is not about ONNX (OpenCV reads Caffe too)
    text = CASES[4][0] + "\nnet = cv2.dnn.readNetFromCaffe('deploy.prototxt', 'model.caffemodel')"
    assert kind_of(text) is None


def test_opencv_dnn_by_elimination_is_the_family_for_triage_not_for_a_diagnosis():
    """OpenCV DNN naming no format is inferred to be its ONNX importer (the table's `by_elimination`):
    enough for a hedged triage, not for the matcher's test of a text that names the family."""
    from diagnoser.triage.classify import is_onnx_family

    # https://github.com/opencv/opencv/issues/19441 (a Caffe model, though the line does not say so)
    text = ("Error: Assertion failed (start <= (int)shape.size() && end <= (int)shape.size() && start <= end) "
            "in cv::dnn::dnn4_v20201117::total, file C:\\build\\master_winpack-build-win64-vc15\\opencv\\modules\\dnn"
            "\\include\\opencv2/dnn/shape_utils.hpp, line 171")
    assert is_onnx_family(text)
    assert not is_onnx_family(text, named_only=True)
    assert is_onnx_family(text + "\n  net = cv2.dnn.readNetFromONNX('yolov5s.onnx')", named_only=True)
