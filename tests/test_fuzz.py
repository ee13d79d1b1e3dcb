"""Hypothesis fuzzing: no input crashes the matcher or makes it slow, and no entry regex backtracks."""
from __future__ import annotations

import time

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from diagnoser import diagnose
from diagnoser.matching.index import default_index

NEAR_MISS = st.sampled_from([
    "Could not find an implementation for ", "node with name '", "Type parameter (T)", "bound to different types",
    "Expected all tensors to be on the same device", "887A0004", "(", ")", "'", "\n", " ", "a" * 50, "tensor(",
    "ExecutionProvider", "doesn't support memcpy", "Got invalid dimensions for input", "\\", ":", "0x", "[ONNXRuntimeError]",
])


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.text(max_size=3000))
def test_arbitrary_text_never_crashes(text):
    report = diagnose(text=text)
    assert all(0.0 <= d.confidence <= 1.0 for d in report.diagnoses)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(NEAR_MISS, max_size=60).map("".join))
def test_near_misses_of_real_messages_stay_fast(text):
    start = time.perf_counter()
    diagnose(text=text * 20)
    assert time.perf_counter() - start < 2.0


def test_every_signature_is_linear_on_adversarial_input():
    """Long runs of the characters the patterns themselves use, with no possible match at the end."""
    index = default_index()
    for ce in index.entries:
        for sig in (*ce.signatures,):
            chars = sorted({c for c in sig.source if c.isprintable()})
            probe = ("".join(chars) * 200)[:20000] + "\x00"
            for attempt in (probe, "a" * 20000, "(" * 5000 + "'" * 5000, " " * 20000):
                start = time.perf_counter()
                sig.regex.search(attempt)
                elapsed = time.perf_counter() - start
                assert elapsed < 0.5, f"{ce.entry.id} /{sig.source}/ took {elapsed:.2f}s"
