"""One line, more than one cause: a signature gives way where its words alone do not decide.

A confident wrong answer costs more than a miss (issue 11). Each case is a real text of an entry
(its source is in the entry): a message that several problems print, where the entry's signature
used to read it as its one cause. Scored as a new user's paste would be: the text's own example
is taken out of the index first (leave-one-out), so it cannot vouch for itself by likeness.
"""
from __future__ import annotations

from dataclasses import replace
from functools import lru_cache

import pytest

from diagnoser.api import DIAGNOSIS_THRESHOLD
from diagnoser.matching.index import Index, build, example_key
from diagnoser.matching.matcher import score
from diagnoser.matching.text import prepare


@lru_cache(maxsize=1)
def _index() -> Index:
    from kb import load

    return build(load(strict=False))


def _example(entry_id: str, starts: str) -> str:
    from kb import load

    doc = load(strict=False).documents[entry_id]
    found = [ex.text for ex in doc.entry.examples if ex.text.startswith(starts)]
    assert found, f"{entry_id} has no example starting {starts!r}"
    return found[0]


def _ranked(entry_id: str, text: str) -> list[tuple[str, float]]:
    """The ranking with this example left out of its entry (as a paste no example has)."""
    key = example_key(text)
    idx = _index()
    idx = replace(idx, entries=tuple(
        replace(ce, examples=tuple(x for x in ce.examples if x != key)) if ce.entry.id == entry_id else ce
        for ce in idx.entries))
    return [(c.id, c.confidence) for c in score(idx, prepare(text).text)]


def test_a_kernel_only_the_optimizer_writes_is_a_saved_optimized_model():
    # onnxruntime#15129: a UNet saved by the GPU-oriented optimizer, loaded on Android (no reduced
    # build). "Failed to find kernel" alone used to mean a reduced build (OT0203).
    text = _example("OT0210", "ai.onnxruntime.OrtException: Error code - ORT_NOT_IMPLEMENTED - message: Failed to find kernel for NhwcConv")
    ranked = _ranked("OT0210", text)
    assert ranked[0][0] == "OT0210" and ranked[0][1] >= DIAGNOSIS_THRESHOLD
    assert all(c < DIAGNOSIS_THRESHOLD for i, c in ranked if i == "OT0203")


def test_the_same_kernel_in_a_reduced_build_stays_the_reduced_build():
    # onnxruntime#23018: the text says the build was reduced with create_reduced_build_config.py
    text = _example("OT0203", "To reduce the compiled binary size")
    ranked = _ranked("OT0203", text)
    assert ranked[0][0] == "OT0203" and ranked[0][1] >= DIAGNOSIS_THRESHOLD


def test_an_ordinary_op_without_a_kernel_is_still_the_reduced_build():
    text = _example("OT0203", "Failed to find kernel for Transpose(1)")
    ranked = _ranked("OT0203", text)
    assert ranked[0][0] == "OT0203" and ranked[0][1] >= DIAGNOSIS_THRESHOLD


def test_tensorrts_plugin_registry_line_alone_is_a_candidate():
    # onnx-tensorrt#553: TensorRT says this while parsing an ONNX file and also while deserialising
    # a saved engine, where no ONNX is involved; the line alone does not tell which.
    text = _example("OT0855", "ERROR] INVALID_ARGUMENT: getPluginCreator")
    ranked = _ranked("OT0855", text)
    assert ranked[0][0] == "OT0855"
    assert ranked[0][1] < DIAGNOSIS_THRESHOLD


def test_the_parsers_fallback_importer_still_names_the_missing_plugin():
    text = _example("OT0855", "[02/03/2022-06:14:51] [E] [TRT] ModelImporter.cpp:726")
    ranked = _ranked("OT0855", text)
    assert ranked[0][0] == "OT0855" and ranked[0][1] >= DIAGNOSIS_THRESHOLD


@pytest.mark.parametrize("entry_id, starts", [
    # onnxruntime#24259: newer Dawn's words for a shader the WebGPU provider generated badly
    ("OT1007", "[E:onnxruntime:sam, sequential_executor.cc:572"),
    ("OT1007", "[ONNXRuntimeError] : 1 : FAIL : WebGPU validation failed. Error while parsing WGSL"),
    # vits-web#8: Firefox's words for the wasm trap Chrome calls "null function or function signature mismatch"
    ("OT0510", "RuntimeError: indirect call to null [ort-wasm"),
])
def test_another_engines_words_for_the_same_failure(entry_id, starts):
    text = _example(entry_id, starts)
    ranked = _ranked(entry_id, text)
    assert ranked[0][0] == entry_id and ranked[0][1] >= DIAGNOSIS_THRESHOLD


def test_a_module_missing_on_a_current_python_is_the_moved_optimizer():
    # onnx 1.23.2 on Python 3.11: ModuleNotFoundError (the ImportError of Python 3.5 and older has
    # its own, weaker signature: no onnx without onnx.optimizer ran there)
    text = _example("OT1059", "ModuleNotFoundError: No module named 'onnx.optimizer'")
    ranked = _ranked("OT1059", text)
    assert ranked[0][0] == "OT1059" and ranked[0][1] >= DIAGNOSIS_THRESHOLD
