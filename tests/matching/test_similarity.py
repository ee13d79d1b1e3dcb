"""The distinctive-word similarity: what counts as a word, how much a word counts, and that a
binding's or a release's rewording of an entry's real example still finds that entry."""
from __future__ import annotations

import pytest

from diagnoser.matching.similarity import best_by_entry, build, tokens


def test_numbers_go_and_library_names_stay_one_word():
    assert tokens("cublasLt64_12.dll") == tokens("cublasLt64_11.dll")
    assert "cudnn" in tokens("cudnn64_9.dll") and "dll" in tokens("cudnn64_9.dll")


def test_chinese_is_read_as_character_pairs():
    assert {"类型", "型错", "错误"} <= tokens("类型错误")


def test_traceback_words_are_not_words():
    assert not tokens("Traceback (most recent call last): File line in")


def test_a_word_every_entry_uses_counts_for_nothing():
    vec = build(["onnxruntime error loadlibrary", "onnxruntime error memcpy", "onnxruntime error reshape"], [0, 1, 2])
    assert "onnxruntime" not in vec.idf and "error" not in vec.idf
    best = best_by_entry(vec, "onnxruntime error: memcpy failed")
    assert max(best, key=best.get) == 1


def test_only_restricts_to_those_entries():
    vec = build(["alpha beta", "alpha gamma"], [0, 1])
    assert set(best_by_entry(vec, "alpha gamma", only={0})) <= {0}


@pytest.mark.parametrize(("entry", "text"), [
    # the newer Windows provider-load error as the Go binding prints it (onnxruntime_go#124;
    # not an example of any entry), read by the similarity fallback alone, signatures off
    ("OT0302", "2025-12-30 17:14:59.7454928 [E:onnxruntime:Golang onnxruntime environment, provider_bridge_ort.cc:2002 "
               "onnxruntime::CudaProviderFactoryCreator::Create] E:\\_work\\1\\s\\onnxruntime\\core\\session\\provider_bridge_ort.cc:1844 "
               "onnxruntime::ProviderLibrary::Get [ONNXRuntimeError] : 1 : FAIL : Error loading "
               "\"E:\\FyProject\\Go\\porject\\gohljhsg\\pkg\\lib\\third_party_gpu\\onnxruntime_providers_cuda.dll\" which depends on "
               "\"cublasLt64_12.dll\" which is missing."),
])
def test_the_fallback_alone_finds_the_entry_of_a_rewording(entry, text):
    from diagnoser.matching.index import default_index
    from diagnoser.matching.matcher import _example_similarity, decisive_text
    from diagnoser.matching.text import core_view, prepare

    index = default_index()
    sims = _example_similarity(index, decisive_text(core_view(prepare(text).text), set()))
    ranked = [index.entries[i].entry.id for i, _ in sorted(sims.items(), key=lambda kv: -kv[1])]
    # near the top on words alone (a sibling entry of the same loader error may edge past it),
    # and first once the signatures speak
    assert entry in ranked[:3], ranked[:5]
    from diagnoser import diagnose

    assert diagnose(text=text).diagnoses[0].id == entry
