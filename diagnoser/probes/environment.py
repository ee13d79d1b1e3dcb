"""The environment: which onnx / onnxruntime (and which onnxruntime package) is installed, what
providers it offers, whether the CUDA libraries it needs can be found, and conflicting installs.

Runs with or without a model (`diagnose --env`). Reads package metadata; imports onnxruntime
only to ask for its providers, and reports an import failure as a finding, not a crash.
"""
from __future__ import annotations

import ctypes.util
import glob
import os
import re
import sys
from importlib import metadata
from typing import Any

from diagnoser.report import Finding

NAME = "environment"
_ORT_DIST = re.compile(r"^(onnxruntime|ort-nightly)([-_](gpu|directml|openvino|qnn|training|silicon|rocm|cann|migraphx|vitisai|webgpu|windowsml)[-_\w]*)?$")
_NEEDS_CUDA = ("CUDAExecutionProvider", "TensorrtExecutionProvider")
_CUDA_LIBS = ("cudart", "cublas", "cublasLt", "cudnn", "cufft", "curand")
_FLAVOUR = {"gpu": "GPU (CUDA)", "directml": "DirectML", "openvino": "OpenVINO", "qnn": "QNN", "rocm": "ROCm", "training": "training"}


def applies(ctx: Any) -> bool:
    return True


def _version(dist: str) -> str | None:
    try:
        return metadata.version(dist)
    except metadata.PackageNotFoundError:
        return None


def runtime_distributions() -> dict[str, str]:
    """Installed onnxruntime packages (onnxruntime, onnxruntime-gpu, ...): name -> version.

    Reads *.dist-info folder names on sys.path (cheap) rather than every package's metadata.
    """
    found: dict[str, str] = {}
    for entry in sys.path:
        try:
            names = os.listdir(entry or ".")
        except OSError:
            continue
        for folder in names:
            if not folder.endswith((".dist-info", ".egg-info")) or not folder.lower().startswith(("onnxruntime", "ort_nightly", "ort-nightly")):
                continue
            stem = folder.rsplit(".", 1)[0]
            name, _, ver = stem.partition("-")
            name = name.lower().replace("_", "-")
            if _ORT_DIST.match(name) and name not in found:
                found[name] = ver or (_version(name) or "?")
    return found


def _flavour(name: str) -> str:
    for key, label in _FLAVOUR.items():
        if key in name:
            return label
    return "CPU"


def find_cuda_libraries() -> dict[str, str | None]:
    """Where the loader (or the nvidia-* wheels onnxruntime-gpu preloads from) would find each library."""
    dirs = [d for d in os.environ.get("LD_LIBRARY_PATH", "").split(os.pathsep) if d]
    dirs += glob.glob(os.path.join(sys.prefix, "lib", "python*", "site-packages", "nvidia", "*", "lib"))
    out: dict[str, str | None] = {}
    for lib in _CUDA_LIBS:
        hit = ctypes.util.find_library(lib)
        if not hit:
            for d in dirs:
                cands = glob.glob(os.path.join(d, f"lib{lib}.so*")) + glob.glob(os.path.join(d, f"{lib}64_*.dll"))
                if cands:
                    hit = cands[0]
                    break
        out[lib] = hit
    return out


def run(ctx: Any) -> list[Finding]:
    findings: list[Finding] = []
    dists = runtime_distributions()
    versions = {k: _version(k) for k in ("onnx", "torch", "numpy", "protobuf")}
    try:
        import onnxruntime

        available = list(onnxruntime.get_available_providers())
    except Exception as exc:  # a broken install is a finding, never a traceback
        text = f"{type(exc).__name__}: {exc}"
        findings.append(Finding("env.onnxruntime-import-failed", "error", f"import onnxruntime fails: {text.splitlines()[0][:300]}",
                                NAME, details={"error_text": text[:4000], "packages": dists}))
        available = []
    pkgs = ", ".join(f"{n} {v} ({_flavour(n)})" for n, v in dists.items()) or "none"
    shown = ", ".join(f"{k} {v}" for k, v in versions.items() if v)
    findings.append(Finding("env.versions", "info",
                            f"Python {sys.version.split()[0]}; onnxruntime package(s): {pkgs}; {shown}; available providers: {', '.join(available) or 'none'}",
                            NAME, details={"python": sys.version.split()[0], "onnxruntime": dists, **versions, "providers": available}))
    if len(dists) > 1:
        findings.append(Finding("env.ort-packages-conflict", "error",
                                f"{len(dists)} onnxruntime packages are installed side by side ({', '.join(dists)}): they share the onnxruntime module folder, so whichever was installed last wins and the GPU/DirectML providers silently disappear; uninstall all of them and install one",
                                NAME, details={"packages": dists}))
    missing = [p for p in ctx.providers if available and p not in available]
    if missing:
        findings.append(Finding("env.provider-unavailable", "error",
                                f"requested provider(s) {', '.join(missing)} are not available in this onnxruntime ({', '.join(available)}): the session falls back to CPU or fails; install the matching package (onnxruntime-gpu, onnxruntime-directml, onnxruntime-openvino)",
                                NAME, details={"missing": missing, "available": available, "packages": dists}))
    wants_cuda = any(p in _NEEDS_CUDA for p in ctx.providers) or any("gpu" in n for n in dists)
    if wants_cuda and sys.platform.startswith("linux"):
        libs = find_cuda_libraries()
        absent = [k for k, v in libs.items() if not v]
        if absent:
            findings.append(Finding("env.cuda-libs-missing", "error",
                                    f"the loader cannot find {', '.join('lib' + a for a in absent)}: the CUDA provider will fail to load (or fall back to CPU). Install CUDA/cuDNN matching onnxruntime-gpu, or the nvidia-*-cu12 wheels, and put them on LD_LIBRARY_PATH",
                                    NAME, details={"libraries": libs}))
    return findings
