"""The environment: which onnx / onnxruntime (and which onnxruntime package) is installed, what
providers it offers, whether the CUDA libraries it needs can be found, and conflicting installs.

Runs with or without a model (`diagnose --env`). Reads package folder names on sys.path; asks
diagnoser.model.runtime for the providers (cached per install, live with --env alone), and reports an
import failure as a finding, not a crash.
"""
from __future__ import annotations

import glob
import os
import re
import sys
from typing import Any

from diagnoser.report import Finding

NAME = "environment"
_ORT_DIST = re.compile(r"^(onnxruntime|ort-nightly)([-_](gpu|directml|openvino|qnn|training|silicon|rocm|cann|migraphx|vitisai|webgpu|windowsml)[-_\w]*)?$")
_NEEDS_CUDA = ("CUDAExecutionProvider", "TensorrtExecutionProvider")
_CUDA_LIBS = ("cudart", "cublas", "cublasLt", "cudnn", "cufft", "curand")
_FLAVOUR = {"gpu": "GPU (CUDA)", "directml": "DirectML", "openvino": "OpenVINO", "qnn": "QNN", "rocm": "ROCm", "training": "training"}


def applies(ctx: Any) -> bool:
    return True


_OTHERS = ("onnx", "torch", "numpy", "protobuf")


def installed_versions() -> tuple[dict[str, str], dict[str, str]]:
    """(onnxruntime packages, other packages we report): name -> version, first on sys.path wins.

    Reads *.dist-info / *.egg-info folder names on sys.path (one listdir per entry) rather than
    importing importlib.metadata and reading every package's metadata.
    """
    runtimes: dict[str, str] = {}
    others: dict[str, str] = {}
    for entry in sys.path:
        try:
            names = os.listdir(entry or ".")
        except OSError:
            continue
        for folder in names:
            if not folder.endswith((".dist-info", ".egg-info")):
                continue
            name, _, ver = folder.rsplit(".", 1)[0].partition("-")
            name = name.lower().replace("_", "-")
            ver = ver.split("-")[0]  # egg-info: 1.0-py3.11
            if name in _OTHERS:
                others.setdefault(name, ver or _metadata_version(name) or "?")
            elif _ORT_DIST.match(name) and name not in runtimes:
                runtimes[name] = ver or _metadata_version(name) or "?"
    return runtimes, others


def _metadata_version(dist: str) -> str | None:
    from importlib import metadata  # only for a folder name without a version

    try:
        return metadata.version(dist)
    except metadata.PackageNotFoundError:
        return None


def runtime_distributions() -> dict[str, str]:
    """Installed onnxruntime packages (onnxruntime, onnxruntime-gpu, ...): name -> version."""
    return installed_versions()[0]


def _flavour(name: str) -> str:
    for key, label in _FLAVOUR.items():
        if key in name:
            return label
    return "CPU"


def find_cuda_libraries() -> dict[str, str | None]:
    """Where the loader (or the nvidia-* wheels onnxruntime-gpu preloads from) would find each library."""
    dirs = [d for d in os.environ.get("LD_LIBRARY_PATH", "").split(os.pathsep) if d]
    dirs += glob.glob(os.path.join(sys.prefix, "lib", "python*", "site-packages", "nvidia", "*", "lib"))
    import ctypes.util  # imports subprocess, shutil...: only when the environment is probed

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


_WHEEL = {"CUDAExecutionProvider": "onnxruntime-gpu", "TensorrtExecutionProvider": "onnxruntime-gpu", "DmlExecutionProvider": "onnxruntime-directml",
          "OpenVINOExecutionProvider": "onnxruntime-openvino", "QNNExecutionProvider": "onnxruntime-qnn"}
_LISTED = re.compile(r"[Aa]vailable providers:? \[?'([A-Za-z, ']+)'")
_ORT_PATH = re.compile(r"(/[\w.+-]+(?:/[\w.+-]+)*/site-packages/onnxruntime)/")


def about_this_machine(ctx: Any, available: list[str]) -> bool:
    """Is this run about the machine the tool runs on? With --env, yes. A pasted error is about
    the machine that printed it: this one only when it lists the providers this onnxruntime
    offers, or names this onnxruntime's install folder. Without either, --providers names the
    target the model is meant for, which is usually another machine (a Windows NPU checked from
    a Linux laptop): its absence here is no problem of the model."""
    if getattr(ctx, "env", False):
        return True
    text = ctx.text or ""
    listed = _LISTED.search(text)
    if listed and available:
        names = {n.strip(" '") for n in listed.group(1).split(",") if n.strip(" '")}
        if names == set(available):
            return True
    return any(os.path.isdir(m.group(1)) for m in _ORT_PATH.finditer(text))


def run(ctx: Any) -> list[Finding]:
    from diagnoser.model import runtime

    findings: list[Finding] = []
    dists, others = installed_versions()
    versions = {k: others.get(k) for k in _OTHERS}
    rt = runtime.snapshot(live=ctx.model is None)  # --env alone asks the runtime itself, never the cache
    available = list(rt.providers)
    if rt.error is not None:  # a broken install is a finding, never a traceback
        text = rt.error
        findings.append(Finding("env.onnxruntime-import-failed", "error", f"import onnxruntime fails: {text.splitlines()[0][:300]}",
                                NAME, details={"error_text": text[:4000], "packages": dists}))
    pkgs = ", ".join(f"{n} {v} ({_flavour(n)})" for n, v in dists.items()) or "none"
    shown = ", ".join(f"{k} {v}" for k, v in versions.items() if v)
    findings.append(Finding("env.versions", "info",
                            f"Python {sys.version.split()[0]}; onnxruntime package(s): {pkgs}; {shown}; available providers: {', '.join(available) or 'none'}",
                            NAME, details={"python": sys.version.split()[0], "onnxruntime": dists, **versions, "providers": available}))
    here = about_this_machine(ctx, available)
    if len(dists) > 1 and here:
        findings.append(Finding("env.ort-packages-conflict", "error",
                                f"{len(dists)} onnxruntime packages are installed side by side ({', '.join(dists)}): they share the onnxruntime module folder, so whichever was installed last wins and the GPU/DirectML providers silently disappear; uninstall all of them and install one",
                                NAME, details={"packages": dists}))
    missing = [p for p in ctx.providers if available and p not in available]
    if missing and here:
        # CUDA/TensorRT missing is OT0301's story (the CPU wheel is the one imported); the other
        # packages have no entry yet, so their absence is reported without pointing at one
        for code, sev, group in (("env.provider-unavailable", "error", [p for p in missing if p in _NEEDS_CUDA]),
                                 ("env.provider-not-installed", "info", [p for p in missing if p not in _NEEDS_CUDA])):
            if group:
                wheels = sorted({_WHEEL.get(p, "the package that ships it") for p in group})
                findings.append(Finding(code, sev,
                                        f"requested provider(s) {', '.join(group)} are not available in this onnxruntime ({', '.join(available)}): the session falls back to CPU or fails; install {' or '.join(wheels)}",
                                        NAME, details={"missing": group, "available": available, "packages": dists}))
    elif missing:
        findings.append(Finding("env.target-not-here", "info",
                                f"this machine cannot run {', '.join(missing)} (its onnxruntime offers {', '.join(available)}): predictions for {'it' if len(missing) == 1 else 'them'} come from {'its' if len(missing) == 1 else 'their'} support tables, not from a session",
                                NAME, details={"missing": missing, "available": available}))
    wants_cuda = (here and any(p in _NEEDS_CUDA for p in ctx.providers)) or any("gpu" in n for n in dists)
    if wants_cuda and sys.platform.startswith("linux"):
        libs = find_cuda_libraries()
        absent = [k for k, v in libs.items() if not v]
        if absent:
            findings.append(Finding("env.cuda-libs-missing", "error",
                                    f"the loader cannot find {', '.join('lib' + a for a in absent)}: the CUDA provider will fail to load (or fall back to CPU). Install CUDA/cuDNN matching onnxruntime-gpu, or the nvidia-*-cu12 wheels, and put them on LD_LIBRARY_PATH",
                                    NAME, details={"libraries": libs}))
    return findings
