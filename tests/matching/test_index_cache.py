"""The cached index gives the same answers as one built afresh, to the last bit.

The disk cache keeps the example vectors' order-free parts (diagnoser.matching.index.order_free_parts)
and computes each example's words and norm on demand; a float sum over a set depends on the
order the set iterates in, so these tests compare iteration order too.
"""
from __future__ import annotations

import json
import marshal
import os
import subprocess
import sys
from pathlib import Path

from diagnoser import diskcache
from diagnoser.matching import similarity
from diagnoser.matching.index import _records, default_index, lazy_vectors, order_free_parts

ROOT = Path(__file__).resolve().parents[2]


def test_lazy_vectors_equal_built_ones() -> None:
    index = default_index()
    examples = [ex for ce in index.entries for ex in ce.examples]
    owners = [i for i, ce in enumerate(index.entries) for _ in ce.examples]
    built = similarity.build(examples, owners)
    parts = marshal.loads(marshal.dumps(order_free_parts(built)))  # as the disk cache gives them back
    lazy = lazy_vectors(similarity, examples, parts)
    assert len(lazy.words) == len(built.words) == len(lazy.norms) == len(examples)
    for pos in range(len(examples)):
        assert list(lazy.words[pos]) == list(built.words[pos]), pos
        assert lazy.norms[pos] == built.norms[pos], pos
    for name, value in order_free_parts(built).items():
        got = getattr(lazy, name)
        assert got == value and list(got) == list(value), name
        if isinstance(value, dict):
            assert list(got.items()) == list(value.items()), name
    # and the similarity it gives
    text = "cudaErrorNoKernelImageForDevice: no kernel image is available for execution on the device"
    assert best_all(lazy, text) == best_all(built, text)


def best_all(vectors: similarity.Vectors, text: str) -> list:
    return [list(similarity.best_by_entry(vectors, text, only, cov).items())
            for only in (None, set(range(0, 400, 3))) for cov in (True, False)]


def test_cache_key_follows_the_code_that_makes_records(tmp_path: Path) -> None:
    """Editing text.py (example keys) or prefilter.py (signature requirements) invalidates it."""
    from kb.paths import entries_dir

    _, key = _records(entries_dir())
    assert "text.py:" in key and "prefilter.py:" in key and diskcache.load_marshal("index", key) is not None


_SCRIPT = """
import json, sys
sys.path.insert(0, sys.argv[1])
from diagnoser.matching.index import default_index
from diagnoser.matching.matcher import score
from diagnoser.matching.text import prepare
idx = default_index()
out = []
for text in json.load(sys.stdin):
    out.append([(c.id, c.probability, c.confidence, c.line, repr(c.evidence)) for c in score(idx, prepare(text).text)])
print(json.dumps(out))
"""


def test_warm_cache_run_equals_cold_one(tmp_path: Path) -> None:
    """Two processes hashing alike, the first building the disk caches, the second reading them:
    every blind-set and out-of-scope text is scored to the same bits."""
    sys.path.insert(0, str(ROOT / "bench"))
    from speed_equal import texts

    corpus = [t for label, t in texts(ROOT) if not label.startswith("OT")]
    env = {**os.environ, "XDG_CACHE_HOME": str(tmp_path), "PYTHONHASHSEED": "0"}
    env.pop("ONNX_KB_CACHE", None)
    runs = [subprocess.run([sys.executable, "-c", _SCRIPT, str(ROOT)], input=json.dumps(corpus), env=env,
                           capture_output=True, text=True, check=True).stdout for _ in range(2)]
    assert list((tmp_path / "onnx-troubleshooter").glob("vectors-*.bin"))
    assert json.loads(runs[0]) == json.loads(runs[1])
