"""Throwaway virtual environments, one per measured release, for `kb verify`.

Each environment holds only the release under test (and what that release needs, e.g. numpy<2
before onnxruntime 1.19), installed from the package index with the project's own pip. The other
packages the snippets import (onnx, torch, onnxscript, ...) come from the project's environment
through a `.pth` file, which Python appends *after* the environment's own site-packages, so the
release under test and its numpy win. Environments are cached and reused: a release costs one
download, ever.
"""
from __future__ import annotations

import json
import os
import subprocess
import sys
import sysconfig
from dataclasses import dataclass
from pathlib import Path

from packaging.version import Version

AXES = ("onnxruntime", "onnx", "torch")  # packages whose release can be the measured axis
INSTALLED = "installed"
OVERLAY = "project-packages"  # symlinks to the project's packages the environment does not have itself  # the release of the running interpreter: no environment is built
_REPORTED = ("onnxruntime", "onnx", "torch", "numpy", "protobuf")
_PROBE = (
    "import json, importlib.metadata as m\n"
    "out = {}\n"
    "for name in %r:\n"
    "    try: out[name] = m.version(name)\n"
    "    except m.PackageNotFoundError: pass\n"
    "print(json.dumps(out))\n"
) % (_REPORTED,)


class EnvError(RuntimeError):
    """An environment could not be built (the release has no wheel here, the index is unreachable)."""


@dataclass(frozen=True)
class Env:
    """A Python interpreter with one release of `package` and the versions it really imports."""

    package: str
    release: str
    python: Path
    versions: dict[str, str]


def envs_dir() -> Path:
    """~/.cache/onnx-troubleshooter/verify-envs (XDG_CACHE_HOME honoured)."""
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "onnx-troubleshooter" / "verify-envs"


def requirements(package: str, release: str) -> list[str]:
    """What to install for a release: the release itself plus what it cannot run without.

    onnxruntime before 1.19 and onnx before 1.17 are built against numpy 1 and crash on numpy 2.
    """
    reqs = [f"{package}=={release}"]
    v = Version(release)
    if (package == "onnxruntime" and v < Version("1.19")) or (package == "onnx" and v < Version("1.17")):
        reqs.append("numpy<2")
    return reqs


def snippet_env() -> dict[str, str]:
    """Environment variables for a child: no PYTHONPATH, so nothing shadows the release under test."""
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PYTHONHOME", "PYTHONSTARTUP")}
    env.update(OMP_NUM_THREADS="1", PYTHONNOUSERSITE="1", PYTHONDONTWRITEBYTECODE="1")
    return env


def _versions(python: Path) -> dict[str, str]:
    proc = subprocess.run([str(python), "-c", _PROBE], capture_output=True, text=True, timeout=120, env=snippet_env())
    if proc.returncode != 0:
        raise EnvError(f"{python}: cannot read package versions: {proc.stderr.strip()[-300:]}")
    return json.loads(proc.stdout)


def installed_env() -> Env:
    """The running interpreter, measured as it is (what the test suite uses: no download)."""
    python = Path(sys.executable)
    versions = _versions(python)
    return Env("onnxruntime", versions.get("onnxruntime", "?"), python, versions)


def ensure_env(package: str, release: str, root: Path | None = None, log=None) -> Env:
    """Build (once) and return the environment for `package==release`; raise EnvError on failure."""
    if package not in AXES:
        raise EnvError(f"unknown axis {package!r}; one of {', '.join(AXES)}")
    tag = f"cp{sys.version_info.major}{sys.version_info.minor}"
    folder = (root or envs_dir()) / f"{package}-{release}-{tag}"
    python = folder / "bin" / "python"
    ready = folder / "ready.json"
    if ready.is_file():
        if not (folder / OVERLAY).is_dir():  # environments built before the overlay existed
            _link_project_packages(folder, python)
        return Env(package, release, python, json.loads(ready.read_text(encoding="utf-8")))
    if log:
        log(f"kb verify: building {folder} ...")
    folder.parent.mkdir(parents=True, exist_ok=True)
    _run([sys.executable, "-m", "venv", "--clear", "--without-pip", str(folder)], folder)
    pip = [sys.executable, "-m", "pip", "--python", str(python), "install", "--quiet", "--disable-pip-version-check"]
    _run([*pip, *requirements(package, release)], folder)
    _link_project_packages(folder, python)
    versions = _versions(python)
    if versions.get(package) != release:
        raise EnvError(f"{folder}: {package} {versions.get(package)} imported instead of {release}")
    ready.write_text(json.dumps(versions, sort_keys=True), encoding="utf-8")
    return Env(package, release, python, versions)


def _dist_key(name: str) -> str:
    """'onnxruntime-1.17.3.dist-info' and 'onnxruntime' both name the distribution 'onnxruntime'."""
    base = name.split("-")[0] if name.endswith((".dist-info", ".egg-info")) else name.removesuffix(".libs")
    return base.lower().replace("_", "-").removesuffix(".py")


def _link_project_packages(folder: Path, python: Path) -> None:
    """Expose the project's packages except those the environment has its own copy of.

    A plain path to the project's site-packages would also expose its onnxruntime (and numpy)
    metadata, so a snippet that lists installed distributions would see two onnxruntime builds.
    Symlinks to every other top-level item, in a folder named by a `.pth` file, avoid that.
    """
    site = Path(subprocess.run(
        [str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
        capture_output=True, text=True, check=True, env=snippet_env()).stdout.strip())
    own = {_dist_key(p.name) for p in site.iterdir()}
    overlay = folder / OVERLAY
    overlay.mkdir(exist_ok=True)
    project = Path(sysconfig.get_paths()["purelib"])
    for item in project.iterdir():
        link = overlay / item.name
        if _dist_key(item.name) in own or item.suffix == ".pth" or item.name == "__pycache__" or link.exists():
            continue
        link.symlink_to(item)
    # After the environment's own site-packages, so the release under test wins.
    (site / "zz_project_packages.pth").write_text(f"{overlay}\n", encoding="utf-8")


def _run(cmd: list[str], folder: Path) -> None:
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=1800, env=snippet_env())
    if proc.returncode != 0:
        tail = (proc.stderr or proc.stdout).strip().splitlines()[-1:] or ["(no output)"]
        raise EnvError(f"{folder.name}: {' '.join(cmd[3:6])}...: {tail[0]}")
