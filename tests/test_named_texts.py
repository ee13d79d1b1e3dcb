"""The four problems our user named: each one's text alone is diagnosed as its entry (issue 11
item 5), and what would change the answer is said. Texts are those the user's notes quote
(/work/shared/reference) and the runtime's own message (tests/test_named_problems.py makes it)."""
from __future__ import annotations

import pytest

from diagnoser import diagnose
from diagnoser.matching.index import default_index

NAMED = [
    ("OT0001", "Could not find an implementation for Add(14) node with name '/self_attn/q_proj/Add'"),
    ("OT0001", "onnxruntime.capi.onnxruntime_pybind11_state.NotImplemented: [ONNXRuntimeError] : 9 : NOT_IMPLEMENTED : "
               "Could not find an implementation for Add(14) node with name '/self_attn/q_proj/Add'"),
    ("OT0002", "[ONNXRuntimeError] : 1 : FAIL : Type Error: Type parameter (T) of Optype (Add) bound to different types "
               "(tensor(int32) and tensor(float16) in node (/self_attn/q_proj/Add)."),
    ("OT0003", "Exception during initialization: The specified device interface or feature level is not supported on this system."),
    ("OT0003", "The specified device interface or feature level is not supported on this system."),
    ("OT0005", "Execution type OpenVINOExecutionProvider doesn't support memcpy"),
    ("OT0006", "RuntimeError: Expected all tensors to be on the same device, but found at least two devices, cuda:0 and cpu!"),
]


@pytest.mark.parametrize(("entry", "text"), NAMED)
def test_named_text_alone_ranks_its_entry_first_with_confidence(entry, text):
    report = diagnose(text=text)
    assert report.diagnoses, [(c.id, c.confidence) for c in report.candidates]
    top = report.diagnoses[0]
    assert top.id == entry and top.confidence >= 0.5, [(d.id, d.confidence) for d in report.diagnoses]


def test_same_device_alone_says_what_would_make_it_pytorchs_error():
    report = diagnose(text=NAMED[-1][1])
    why = " ".join(e.detail for e in report.diagnoses[0].evidence)
    assert "training" in why and "loss.backward" in why


@pytest.mark.parametrize("context", [
    'File "train.py", line 183, in <module>\n    loss.backward()',
    "for epoch in range(10):\n    optimizer.step()",
    'File "/app/run.py", line 9, in <module>\n    trainer.train()',
])
def test_training_context_keeps_same_device_below_the_line(context):
    report = diagnose(text=context + "\n" + NAMED[-1][1])
    assert all(d.id != "OT0006" for d in report.diagnoses)
    assert any(c.id == "OT0006" for c in report.candidates)


def test_constant_folding_form_goes_to_its_own_entry_when_there_is_one():
    """The index_select form raised by constant folding has its own entry once it lands (OT0616,
    written beside this change); until then it is OT0006's."""
    text = ("RuntimeError: Expected all tensors to be on the same device, but found at least two devices, cuda:0 and cpu! "
            "(when checking argument for argument index in method wrapper__index_select)")
    own = {ce.entry.id for ce in default_index().entries}
    expected = "OT0616" if "OT0616" in own else "OT0006"
    report = diagnose(text=text)
    assert report.diagnoses and report.diagnoses[0].id == expected
