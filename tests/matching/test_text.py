"""Normalising what users paste: wrappers and noise go, the message stays; input stays bounded."""
from __future__ import annotations

import os
import time

import pytest

from diagnoser.matching.text import MAX_CHARS, core_line, core_view, decode, normalise, prepare, unwrapped_views

MSG = "Could not find an implementation for Add(14) node with name '/a/Add'"


@pytest.mark.parametrize("raw", [
    f"\x1b[31m{MSG}\x1b[0m",                                   # ANSI colours
    f"> {MSG}",                                                 # Markdown quote
    f">> > {MSG}",
    MSG.replace("'", "\u2018", 1).replace("'", "\u2019", 1),     # curly quotes
    MSG.replace("'", "&#39;"),                                   # HTML entities from a web page
    MSG.replace(" ", "\u00a0"),                                  # non-breaking spaces
    MSG.replace("Add", "A\u200bdd", 1),                          # zero-width space
    MSG.replace("'", "\\'"),                                     # escaped quotes from a repr
    f"  \t{MSG}   \r\n",
])
def test_noise_is_removed(raw):
    assert normalise(raw) == MSG


def test_literal_newlines_from_debug_strings_become_lines():
    text = normalise('Error { msg: "D:\\\\a\\\\x.cc(520) first line\\r\\nsecond line\\r\\n" }')
    assert "D:\\a\\x.cc(520) first line\nsecond line" in text


def test_plain_windows_paths_keep_their_backslashes():
    path = r"C:\Users\me\new\nvidia\onnxruntime_providers_cuda.dll"
    assert normalise(f"LoadLibrary failed with error 126 when trying to load {path}") .endswith(path)


def test_fullwidth_punctuation_from_chinese_text():
    assert normalise("错误（Add）：失败") == "错误(Add): 失败"


def test_wrapped_line_is_rejoined_both_ways():
    text = normalise("FAIL : Load model from m.onnx failed:Type Error: Type parameter\n(T) bound to different types")
    joined = [v for v, _ in unwrapped_views(text)]
    assert "Type parameter (T) bound" in joined[0] and "Type parameter(T) bound" in joined[1]


def test_wrap_inside_a_word_is_rejoined_without_space():
    text = normalise("NOT_IMPLEMENTED : Could not find an implementation for Add(14) node with na\nme '/a/Add'")
    assert any("node with name '/a/Add'" in v for v, _ in unwrapped_views(text))


def test_new_records_are_not_joined():
    text = normalise("x" * 80 + "\nTraceback (most recent call last):\n  File \"run.py\", line 3, in <module>\n" + "y" * 80 + "\n2024-01-01 10:00:00 next")
    for view, _ in unwrapped_views(text):
        lines = view.split("\n")
        assert any(ln.startswith("Traceback") for ln in lines)
        assert any(ln.startswith("File ") for ln in lines)
        assert lines[-1].startswith("2024-01-01")


def test_huge_log_keeps_the_error_and_stays_bounded():
    noise = "2026-01-01 10:00:00 [I:onnxruntime] ordinary progress line\n"
    big = noise * (3 * MAX_CHARS // len(noise)) + MSG + "\n" + noise * 1000
    t = time.perf_counter()
    prepared = prepare(big)
    assert time.perf_counter() - t < 5
    assert prepared.truncated and MSG in prepared.text and len(prepared.text) <= MAX_CHARS


def test_binary_keeps_printable_runs():
    data = os.urandom(5000) + b"\x00\x00" + MSG.encode() + b"\x00" + os.urandom(5000)
    text, binary = decode(data)
    assert binary and MSG in text


def test_utf16_and_invalid_utf8():
    assert decode(MSG.encode("utf-16"))[0] == MSG
    text, binary = decode(MSG.encode() + b"\xff\xfe\xfa")
    assert MSG in text and not binary


def test_escaped_windows_path_is_unescaped_not_split():
    text = normalise('msg: "C:\\\\new\\\\nvidia\\\\x.dll failed\\r\\n"')
    assert "C:\\new\\nvidia\\x.dll failed" in text


def test_docker_compose_prefixes_and_rich_boxes_are_removed():
    text = normalise("immich_ml  | RuntimeException: [ONNXRuntimeError] : 6 :\nimmich_ml  | │ RUNTIME_EXCEPTION : x │")
    assert text == "RuntimeException: [ONNXRuntimeError] : 6 :\nRUNTIME_EXCEPTION : x"


CORE = "Unexpected input data type. Actual: (tensor(double)) , expected: (tensor(float))"


@pytest.mark.parametrize("wrapped", [
    f"Microsoft.ML.OnnxRuntime.OnnxRuntimeException: [ErrorCode:InvalidArgument] {CORE}",       # C#
    f"Unhandled exception. Microsoft.ML.OnnxRuntime.OnnxRuntimeException: [ErrorCode:InvalidArgument] {CORE}",
    f"ai.onnxruntime.OrtException: Error code - ORT_INVALID_ARGUMENT - message: {CORE}",          # Java
    f"Caused by: ai.onnxruntime.OrtException: Error code - ORT_INVALID_ARGUMENT - message: {CORE}",
    f"what():  {CORE}",                                                                          # C++
    f"libc++abi: terminating due to uncaught exception of type Ort::Exception: {CORE}",
    f"Uncaught (in promise) Error: {CORE}",                                                      # JS
    f"called `Result::unwrap()` on an `Err` value: {CORE}",                                      # Rust
    f"onnxruntime.capi.onnxruntime_pybind11_state.InvalidArgument: [ONNXRuntimeError] : 2 : INVALID_ARGUMENT : {CORE}",
    f"2024-01-02 10:00:01.123 | ERROR    | app.infer:run:42 - {CORE}",                        # loguru
    f"2021-06-28 18:09:32.6703074 [E:onnxruntime:Default, inference_session.cc:1 Run] {CORE}",   # ORT's log
    f"ERROR:root:{CORE}",
    f"E/onnxruntime(1234): {CORE}",                                                              # logcat
    f"2023-03-30 12:35:24,677 - ERROR - {CORE}",
])
def test_binding_and_log_wrappers_are_stripped_from_the_core_view(wrapped):
    assert core_line(wrapped) == CORE
    assert core_view(f"{wrapped}\nsecond line") == f"{CORE}\nsecond line"


@pytest.mark.parametrize("line", [
    "Errors: 3 warnings",                      # a word that starts like a level
    "Information about the model",
    "ERRATA in node /a",
    "Could not find an implementation for Add(14) node with name '/a/Add'",
])
def test_the_core_view_keeps_lines_without_wrappers(line):
    assert core_line(line) == line


# yalue/onnxruntime_go#107: Go printed the Chinese Windows message (GBK bytes) with \x escapes
GO_GBK = ("Exception(1) tid(93ac) 887A0004 ָ\\xb6\\xa8\\xb5\\xc4\\xc9豸\\xbdӿڻ\\xf2\\xb9\\xa6\\xc4ܼ\\xb6\\xb1\\xf0"
          "\\xd4ڴ\\xcbϵͳ\\xc9ϲ\\xbb\\xca\\xdc֧\\xb3֡\\xa3")


def test_escaped_gbk_bytes_are_read_as_chinese():
    assert normalise(GO_GBK).endswith("887A0004 指定的设备接口或功能级别在此系统上不受支持.")
    # a Python bytes repr of the same kind of message
    assert normalise("b'\\xe6\\x89\\xbe\\xe4\\xb8\\x8d\\xe5\\x88\\xb0'") == "b'找不到'"  # UTF-8 bytes
    assert normalise("b'\\xd5\\xd2\\xb2\\xbb\\xb5\\xbd\\xd6\\xb8\\xb6\\xa8\\xb5\\xc4\\xc4\\xa3\\xbf\\xe9'") == "b'找不到指定的模块'"


@pytest.mark.parametrize("raw", [
    "C:\\xampp\\htdocs\\model.onnx failed",          # a path, not escaped bytes
    "byte \\xff\\xfe\\xff is not GBK",               # escapes that do not decode
    "one escape \\xb6 next to 中文",                  # a single escape is left alone
    "plain 中文 text",
])
def test_text_that_is_not_escaped_gbk_is_unchanged(raw):
    assert normalise(raw) == raw
