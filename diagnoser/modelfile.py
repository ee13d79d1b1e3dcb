"""Open a model file safely: recognise what it is before handing it to onnx.

Weights stored as external data are never read here: probes need the graph, not the weights.
"""
from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from diagnoser.errors import UserInputError

_SNIFF = 512
_KINDS = (
    (b"version https://git-lfs.github.com/spec", "a git-lfs pointer, not the model: run `git lfs pull` (or download the real file)"),
    (b"PK\x03\x04", "a zip archive (a PyTorch checkpoint or a .zip?), not an ONNX protobuf"),
    (b"\x89HDF", "an HDF5 file (a Keras .h5 model?), not ONNX"),
    (b"\x80\x02", "a Python pickle (a PyTorch .pt/.pth checkpoint?), not ONNX"),
    (b"\x80\x04", "a Python pickle (a PyTorch .pt/.pth checkpoint?), not ONNX"),
    (b"TFL3", "a TensorFlow Lite flatbuffer, not ONNX"),
    (b"<?xml", "an XML file (an OpenVINO IR .xml?), not ONNX"),
    (b"<!DOCTYPE html", "an HTML page (a download that saved an error page?), not ONNX"),
    (b"<html", "an HTML page (a download that saved an error page?), not ONNX"),
)


@dataclass(frozen=True)
class LoadedModel:
    path: Path
    proto: Any  # onnx.ModelProto, graph only (external data not loaded)
    size: int


def sniff(path: Path) -> None:
    """Raise UserInputError with a one-line reason when path cannot be an ONNX model."""
    if not path.exists():
        raise UserInputError(f"model file not found: {path}")
    if path.is_dir():
        raise UserInputError(f"model path is a directory, not a file: {path}")
    try:
        size = path.stat().st_size
        with path.open("rb") as fh:
            head = fh.read(_SNIFF)
    except OSError as exc:
        raise UserInputError(f"cannot read model file {path}: {exc.strerror or exc}") from None
    if size == 0:
        raise UserInputError(f"model file is empty: {path}")
    for magic, what in _KINDS:
        if head.startswith(magic):
            raise UserInputError(f"{path} is {what}")
    # ModelProto's first field is ir_version (tag 0x08) in every exporter we know of;
    # plain text files start with a printable character that is not a protobuf tag.
    if head[:1] not in (b"\x08", b"\x12", b"\x1a", b"\x22", b"\x2a", b"\x32", b"\x3a", b"\x42", b"\x72"):
        raise UserInputError(f"{path} does not look like an ONNX model (first byte {head[:1]!r}); is it the right file?")


def load(path: str | os.PathLike[str]) -> LoadedModel:
    """Load the graph of an ONNX model without its external weights."""
    p = Path(path)
    sniff(p)
    import onnx  # heavy; only when a model is given
    from google.protobuf.message import DecodeError

    try:
        proto = onnx.load(str(p), load_external_data=False)
    except DecodeError as exc:
        raise UserInputError(f"{p} is not a valid ONNX protobuf (truncated or corrupt?): {exc}") from None
    except (OSError, ValueError, RuntimeError) as exc:
        raise UserInputError(f"cannot load {p}: {str(exc).splitlines()[0] if str(exc) else type(exc).__name__}") from None
    if not proto.HasField("graph") or not proto.ir_version:
        raise UserInputError(f"{p} parsed as protobuf but holds no ONNX graph (not an ONNX model?)")
    return LoadedModel(path=p, proto=proto, size=p.stat().st_size)
