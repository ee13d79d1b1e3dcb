"""Runs in a subprocess for the session probe: create a session, run it once on synthesized inputs.

Prints one JSON line per stage so the parent knows how far it got if this process dies
(segfault, abort, memory limit). Loads no custom-op library, ever.
"""
from __future__ import annotations

import json
import re
import sys
import traceback
from typing import Any

_SEQ = re.compile(r"seq|len|token|time|frames|step|past|total", re.I)
_SPATIAL = re.compile(r"height|width|^h$|^w$|size", re.I)
_NP = {"float": "float32", "float16": "float16", "double": "float64", "int64": "int64", "int32": "int32",
       "int8": "int8", "uint8": "uint8", "int16": "int16", "uint16": "uint16", "uint32": "uint32",
       "uint64": "uint64", "bool": "bool", "string": "object"}


def emit(**kw: Any) -> None:
    print(json.dumps(kw), flush=True)


# Fill-ins for dynamic dims, tried in order until one run succeeds: everyday sizes, then long
# sequences / large images, then a uniform 48 (text-line OCR models want a fixed height), then
# long sequences with every other unknown dim 1 (recurrent state that shares the batch axis).
PROFILES = (
    {"seq": 64, "spatial": 224, "other": 4},
    {"seq": 512, "spatial": 640, "other": 64},
    {"seq": 48, "spatial": 48, "other": 48},
    {"seq": 512, "spatial": 224, "other": 1},
)
_RATE = re.compile(r"^(sr|sample_?rate|sampling_?rate)$", re.I)


def dim_value(dim: Any, axis: int, rank: int, profile: dict[str, int]) -> tuple[int, bool]:
    """A realistic size for one dimension, and whether it was synthesized."""
    if isinstance(dim, int) and dim > 0:
        return dim, False
    if is_batch(dim, axis, rank):
        return profile.get("batch", 1), True
    name = dim if isinstance(dim, str) else ""
    if _SEQ.search(name) or (rank == 2 and axis == 1 and not name):  # [batch, samples or tokens]
        return profile["seq"], True
    if _SPATIAL.search(name) or (rank == 4 and axis >= 2):
        return profile["spatial"], True
    return profile["other"], True


def is_batch(dim: Any, axis: int, rank: int) -> bool:
    name = dim if isinstance(dim, str) else ""
    return "batch" in name.lower() or (axis == 0 and rank > 1)


def other_size(value: int) -> int:
    """Another size for a dynamic dimension that keeps the usual divisibility (strides, heads):
    double it, or halve a large one."""
    return value * 2 if value <= 256 or value % 2 else value // 2


def synthesize(inputs: list[Any], shapes: dict[str, list[int]], profile: dict[str, int],
               vary: str | None = None) -> tuple[dict[str, Any], dict[str, list[int]], bool]:
    """Inputs for one run; vary="batch" or "other" changes the synthesized dims of that kind
    to another size (the second run that checks declared dynamic dims really are)."""
    import numpy as np

    rng = np.random.default_rng(0)
    feed, used, synthetic = {}, {}, False
    for meta in inputs:
        kind = meta.type[len("tensor("):-1] if meta.type.startswith("tensor(") else None
        if kind is None or kind not in _NP:
            raise TypeError(f"cannot synthesize input '{meta.name}' of type {meta.type}")
        if meta.name in shapes:
            shape = list(shapes[meta.name])
        else:
            dims = list(meta.shape) if meta.shape is not None else [None]
            picked = [dim_value(d, i, len(dims), profile) for i, d in enumerate(dims)]
            shape = [p[0] for p in picked]
            synthetic |= any(p[1] for p in picked)
            for i, (d, (value, synth)) in enumerate(zip(dims, picked)):
                if synth and vary is not None and (vary == "batch") == is_batch(d, i, len(dims)):
                    shape[i] = 2 if vary == "batch" else other_size(value)
        dtype = np.dtype(_NP[kind])
        if dtype.kind == "f":
            arr = rng.random(shape, dtype=np.float32).astype(dtype)
        elif dtype.kind == "b":
            arr = np.ones(shape, dtype=bool)
        elif dtype.kind == "O":
            arr = np.full(shape, "a", dtype=object)
        elif not shape and _RATE.match(meta.name):
            arr = np.array(16000, dtype=dtype)  # an audio model's sample-rate input
        else:
            arr = np.ones(shape, dtype=dtype)  # 1 is a valid index, mask value and shape entry
        feed[meta.name] = arr
        used[meta.name] = shape
    return feed, used, synthetic


def main() -> None:
    args = json.loads(sys.argv[1])
    emit(stage="import")
    import onnxruntime as ort

    so = ort.SessionOptions()
    so.log_severity_level = 3
    so.intra_op_num_threads = 2
    emit(stage="create", providers=args["providers"])
    try:
        sess = ort.InferenceSession(args["model"], sess_options=so, providers=args["providers"])
    except Exception as exc:
        emit(stage="create-failed", error=f"{type(exc).__name__}: {exc}")
        return
    emit(stage="created", providers=sess.get_providers())
    if not args.get("run", True):
        return
    inputs, given = sess.get_inputs(), args.get("shapes", {})
    profiles = list(PROFILES) + [{"seq": h, "spatial": h, "other": h, "hint": h} for h in args.get("hints", [])]
    errors = []
    for i, profile in enumerate(profiles):
        try:
            feed, used, synthetic = synthesize(inputs, given, profile)
        except Exception as exc:
            emit(stage="synth-failed", error=str(exc))
            return
        emit(stage="run", shapes=used, synthetic=synthetic)
        try:
            outs = sess.run(None, feed)
        except Exception as exc:
            errors.append(f"{type(exc).__name__}: {exc}")
            if synthetic and i + 1 < len(profiles):
                continue  # another set of sizes may be what the model expects
            emit(stage="run-failed", error=errors[0], shapes=used, synthetic=synthetic, attempts=len(errors))
            return
        emit(stage="ran", outputs=[list(getattr(o, "shape", ())) for o in outs][:10], shapes=used, synthetic=synthetic,
             attempts=len(errors) + 1, hint=profile.get("hint"), first_error=errors[0] if errors else None)
        if synthetic and args.get("vary", True):
            vary_sizes(sess, inputs, given, profile, used)
        return


def vary_sizes(sess: Any, inputs: list[Any], given: dict[str, list[int]], profile: dict[str, int], worked: dict[str, list[int]]) -> None:
    """Run again with the batch dims at 2, then the other dynamic dims at another size: a model
    that declares a dimension dynamic but works at one size only has a size baked in."""
    for kind in ("batch", "other"):
        feed, used, _ = synthesize(inputs, given, profile, vary=kind)
        if used == worked:
            continue  # no dynamic dim of this kind
        emit(stage="vary", kind=kind, shapes=used, worked=worked)
        try:
            sess.run(None, feed)
        except Exception as exc:
            emit(stage="vary-failed", kind=kind, shapes=used, worked=worked, error=f"{type(exc).__name__}: {exc}")
            continue
        emit(stage="vary-ran", kind=kind, shapes=used, worked=worked)


if __name__ == "__main__":
    try:
        main()
    except MemoryError:
        emit(stage="oom", error="MemoryError")
    except Exception as exc:  # reported to the parent as data
        emit(stage="error", error=f"{type(exc).__name__}: {exc}", trace=traceback.format_exc()[-2000:])
