"""Runs in a subprocess for remedies/verify.py: run the repaired model on CPU and compare its
outputs with the original's, which runs in onnxruntime or, where onnxruntime refuses it, in
onnx.reference. Prints one JSON line per stage, so the parent knows how far it got if this
process dies. Input synthesis is the session probe's (probes/_session_child.py).
"""
from __future__ import annotations

import json
import os
import sys
import traceback
from typing import Any

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "probes"))
import _session_child as sc  # noqa: E402  (a sibling script, not a package import: this runs with -I)

emit = sc.emit
_NP = {**sc._NP, "bfloat16": "float32"}  # bfloat16 inputs are synthesized as float32, then rounded


def _kind(type_str: str) -> str:
    return type_str[len("tensor("):-1] if type_str.startswith("tensor(") else type_str


def _round(arr: Any, kinds: set[str]) -> Any:
    """Make float values representable in every dtype either model declares for this input."""
    import ml_dtypes
    import numpy as np

    if arr.dtype.kind != "f":
        return arr
    out = arr.astype(np.float32) * 2 - 1  # signed values tell more apart (Relu from Abs)
    if "bfloat16" in kinds:
        out = out.astype(ml_dtypes.bfloat16).astype(np.float32)
    if "float16" in kinds:
        out = out.astype(np.float16).astype(np.float32)
    return out


def _as(arr: Any, kind: str) -> Any:
    import ml_dtypes
    import numpy as np

    if kind == "bfloat16":
        return arr.astype(ml_dtypes.bfloat16)
    return arr.astype(np.dtype(sc._NP.get(kind, "float32"))) if kind in sc._NP and kind != "string" else arr


def _ort_feed(sess: Any, feed: dict[str, Any]) -> dict[str, Any]:
    import onnx
    import onnxruntime as ort

    out = {}
    for meta in sess.get_inputs():
        kind = _kind(meta.type)
        arr = _as(feed[meta.name], kind)
        if kind == "bfloat16":
            out[meta.name] = ort.OrtValue.ortvalue_from_numpy_with_onnx_type(arr.view("uint16"), onnx.TensorProto.BFLOAT16)
        else:
            out[meta.name] = ort.OrtValue.ortvalue_from_numpy(arr)
    return out


def _to_numpy(value: Any) -> Any:
    import ctypes

    import ml_dtypes
    import numpy as np

    if value.data_type() == "tensor(bfloat16)":
        shape = value.shape()
        n = int(np.prod(shape)) if shape else 1
        raw = np.ctypeslib.as_array((ctypes.c_uint16 * n).from_address(value.data_ptr())).copy()
        return raw.view(ml_dtypes.bfloat16).reshape(shape)
    return value.numpy()


def session(path: str, basic: bool = False) -> Any:
    """A CPU session; basic=True (the original, as the reference) skips the fusions, which cost
    most of a big graph's load time and are not what is being checked."""
    import onnxruntime as ort

    so = ort.SessionOptions()
    so.log_severity_level = 3
    if basic:
        so.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_BASIC
    so.intra_op_num_threads = 2
    return ort.InferenceSession(path, sess_options=so, providers=["CPUExecutionProvider"])


def run_ort(path: str, feed: dict[str, Any], sess: Any = None) -> tuple[list[str], list[Any]]:
    sess = sess if sess is not None else session(path)
    names = [o.name for o in sess.get_outputs()]
    outs = sess.run_with_ort_values(None, _ort_feed(sess, feed))
    return names, [_to_numpy(o) for o in outs]


def run_reference(path: str, feed: dict[str, Any]) -> tuple[list[str], list[Any]]:
    import onnx
    from onnx.reference import ReferenceEvaluator

    model = onnx.load(path)
    ref = ReferenceEvaluator(model)
    inits = {t.name for t in model.graph.initializer}
    kinds = {i.name: onnx.helper.tensor_dtype_to_string(i.type.tensor_type.elem_type).split(".")[-1].lower()
             for i in model.graph.input if i.name not in inits}
    inputs = {k: _as(feed[k], kinds[k]) for k in kinds}
    outs = ref.run(None, inputs)
    return [o.name for o in model.graph.output], list(outs)


def compare(names: list[str], outs: list[Any], rnames: list[str], routs: list[Any]) -> list[dict[str, Any]]:
    import numpy as np

    ref = dict(zip(rnames, routs))
    rows = []
    for i, (name, got) in enumerate(zip(names, outs)):
        want = ref.get(name, routs[i] if i < len(routs) else None)
        dtype = str(getattr(got, "dtype", type(got).__name__))
        if want is None or not hasattr(got, "shape") or not hasattr(want, "shape"):
            rows.append({"name": name, "dtype": dtype, "max_abs": None, "scale": None, "note": "no matching reference output"})
            continue
        if got.shape != want.shape:
            rows.append({"name": name, "dtype": dtype, "max_abs": None, "scale": None, "note": f"shape {list(got.shape)} vs {list(want.shape)}"})
            continue
        a, b = np.asarray(got).astype(np.float64), np.asarray(want).astype(np.float64)
        both_nan = np.isnan(a) & np.isnan(b)
        diff = np.where(both_nan, 0.0, np.abs(a - b))
        diff = np.where(np.isnan(diff), np.inf, diff)
        rows.append({"name": name, "dtype": dtype, "max_abs": float(diff.max()) if diff.size else 0.0,
                     "scale": float(np.nanmax(np.abs(b))) if b.size and not np.isnan(b).all() else 0.0,
                     "integral": bool(a.dtype.kind in "iub" or np.asarray(got).dtype.kind in "iub")})
    return rows


def main() -> None:
    args = json.loads(sys.argv[1])
    emit(stage="import")
    import onnxruntime  # noqa: F401  (an import failure is its own stage)
    from concurrent.futures import ThreadPoolExecutor

    pool = ThreadPoolExecutor(1)  # the original's session loads while the candidate's does (onnxruntime releases the GIL)
    original = pool.submit(session, args["original"], True)
    emit(stage="create")
    try:
        sess = session(args["candidate"])
    except Exception as exc:
        emit(stage="create-failed", error=f"{type(exc).__name__}: {exc}")
        return
    metas = sess.get_inputs()
    orig_kinds = args.get("original_inputs", {})
    errors = []
    for i, profile in enumerate(sc.PROFILES):
        shim = [type("M", (), {"name": m.name, "shape": m.shape, "type": "tensor(float)" if _kind(m.type) == "bfloat16" else m.type}) for m in metas]
        try:
            feed, used, synthetic = sc.synthesize(shim, args.get("shapes", {}), profile)
        except Exception as exc:
            emit(stage="synth-failed", error=str(exc))
            return
        feed = {m.name: _round(feed[m.name], {_kind(m.type), orig_kinds.get(m.name, "")}) for m in metas}
        emit(stage="run", shapes=used)
        try:
            names, outs = run_ort(args["candidate"], feed, sess)
            break
        except Exception as exc:
            errors.append(f"{type(exc).__name__}: {exc}")
            if synthetic and i + 1 < len(sc.PROFILES):
                continue
            emit(stage="run-failed", error=errors[0], shapes=used)
            return
    emit(stage="ran", shapes=used)
    reference, ref_error = None, []
    for label, runner in (("onnxruntime", lambda p, f: run_ort(p, f, original.result())), ("onnx.reference", run_reference)):
        try:
            rnames, routs = runner(args["original"], feed)
            reference = label
            break
        except Exception as exc:
            ref_error.append(f"{label}: {type(exc).__name__}: {str(exc).splitlines()[0][:300] if str(exc) else ''}")
    if reference is None:
        emit(stage="compared", reference=None, reference_error="; ".join(ref_error), outputs=[], shapes=used)
        return
    emit(stage="compared", reference=reference, reference_error="; ".join(ref_error), outputs=compare(names, outs, rnames, routs), shapes=used)


if __name__ == "__main__":
    try:
        main()
    except MemoryError:
        emit(stage="oom", error="MemoryError")
    except Exception as exc:  # reported to the parent as data
        emit(stage="error", error=f"{type(exc).__name__}: {exc}", trace=traceback.format_exc()[-2000:])
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(0)  # never wait for a session still loading in the pool (the candidate failed first)
