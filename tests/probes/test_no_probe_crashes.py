"""Meta-test: no probe may crash, on any of onnx's node-test models (~1,900) or on a corpus of
real exported models (tests/corpus.py). Static probes only, to keep CI time small: the
environment probe (about the machine, not the model) runs once, every model probe on every
model, with every provider table and a target release asked for so that every static probe
applies. A probe exception fails the test with the model and the message."""
from __future__ import annotations

import logging
import warnings
from pathlib import Path
from typing import Any

import pytest

from diagnoser.probes import ProbeContext, environment, run_all, static

pytestmark = pytest.mark.xdist_group("exported-models")  # one worker builds the module's fixture once

PROVIDERS = ("CUDAExecutionProvider", "TensorrtExecutionProvider", "DmlExecutionProvider",
             "OpenVINOExecutionProvider", "CoreMLExecutionProvider", "QNNExecutionProvider")


def _probe_all(proto: Any, raw: bytes, path: Path, with_env: bool = False) -> list[str]:
    """Every static probe on one model; the messages of the probes that raised."""
    from diagnoser.model import failures
    from diagnoser.model.modelfile import LoadedModel

    node = next((n for n in proto.graph.node if n.name), None)
    ctx = ProbeContext(model=LoadedModel(path=path, proto=proto, size=len(raw), raw=raw), mode="static",
                       providers=PROVIDERS, ort_target="1.17", facts={"node": node.name, "op": node.op_type} if node else {})
    probes = tuple(p for p in static() if with_env or p is not environment)
    found = run_all(ctx, probes)
    failures.failures(found, ctx.graph)  # the report's node facts read the same graph
    return [f.message for f in found if f.code == "probe.failed"]


def test_no_probe_crashes_on_onnx_node_tests(tmp_path):
    from onnx.backend.test.case.node import collect_testcases

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        cases = {c.name: c.model for c in collect_testcases(None)}
    assert len(cases) > 1000, len(cases)
    crashed = []
    for i, (name, proto) in enumerate(sorted(cases.items())):
        for message in _probe_all(proto, proto.SerializeToString(), tmp_path / "model.onnx", with_env=i == 0):
            crashed.append(f"{name}: {message}")
    assert not crashed, f"{len(crashed)} probe crash(es) on {len(cases)} models:\n" + "\n".join(crashed[:30])


@pytest.fixture(scope="session")
def corpus(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    pytest.importorskip("torch")
    pytest.importorskip("onnxconverter_common")
    from tests.corpus import build

    logging.disable(logging.WARNING)  # the quantizer's advice to pre-process
    try:
        return build(tmp_path_factory.mktemp("corpus"))
    finally:
        logging.disable(logging.NOTSET)


def test_no_probe_crashes_on_real_exported_models(corpus):
    import onnx

    from diagnoser import diagnose

    assert len(corpus) >= 15
    crashed = []
    for name, path in sorted(corpus.items()):
        proto = onnx.load(str(path))
        crashed += [f"{name}: {m}" for m in _probe_all(proto, path.read_bytes(), path)]
        report = diagnose(model=path, probes="static")  # the whole report, as a user gets it
        crashed += [f"{name} (report): {f.message}" for f in report.findings if f.code == "probe.failed"]
    assert not crashed, "\n".join(crashed)


def test_hardswish_and_bf16_corpus_models_are_judged(corpus):
    """The models that crashed the CPU-kernel probe before: a MobileNetV3-like net (HardSwish,
    HardSigmoid) is predicted to load, its bfloat16 export to fail, as a real session does."""
    from diagnoser import diagnose
    from tests.models import ort_error

    for name in ("mobilenetv3", "mobilenetv3-opset13", "mobilenetv3-bf16", "classifier-bf16"):
        report = diagnose(model=corpus[name], probes="static")
        fails = bool(ort_error(corpus[name]))
        predicted = any(f.severity == "error" for f in report.findings)
        assert predicted == fails, (name, [f.message for f in report.findings if f.severity != "info"])
        assert bool(report.diagnoses) == fails, name
