"""Open a model file safely: recognise what it is before handing it to onnx.

Weights stored as external data are never read here: probes need the graph, not the weights.
Each refusal of the file itself carries a finding code (`file.*`): the API turns it into a
diagnosis of the file; a refusal without a code (no such path, a directory, unreadable) is a
usage error.
"""
from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from diagnoser.errors import UserInputError

_SNIFF = 512
PROTOBUF_LIMIT = 2**31 - 1  # protobuf cannot parse a single message larger than this
_KINDS = (
    (b"version https://git-lfs.github.com/spec", "file.git-lfs-pointer", "a git-lfs pointer, not the model: run `git lfs pull` (or download the real file)"),
    (b"\x89HDF", "file.not-onnx", "an HDF5 file (a Keras .h5 model?), not ONNX"),
    (b"\x80\x02", "file.pytorch-checkpoint", "a Python pickle (a legacy PyTorch .pt/.pth checkpoint), not ONNX: export it with torch.onnx.export"),
    (b"\x80\x04", "file.pytorch-checkpoint", "a Python pickle (a legacy PyTorch .pt/.pth checkpoint), not ONNX: export it with torch.onnx.export"),
    (b"TFL3", "file.not-onnx", "a TensorFlow Lite flatbuffer, not ONNX"),
    (b"<?xml", "file.not-onnx", "an XML file (an OpenVINO IR .xml?), not ONNX"),
    (b"<!DOCTYPE html", "file.not-onnx", "an HTML page (a download that saved an error page?), not ONNX"),
    (b"<html", "file.not-onnx", "an HTML page (a download that saved an error page?), not ONNX"),
    (b"ir_version:", "file.not-onnx", "a text-format ONNX model (textproto), which onnxruntime does not read: load it with onnx.load(path, format='textproto') and save it in binary"),
)
_PROTO_FIRST_BYTES = (b"\x08", b"\x12", b"\x1a", b"\x22", b"\x2a", b"\x32", b"\x3a", b"\x42", b"\x72")


RAW_KEEP = 64 * 2**20  # files up to this size may keep their bytes for onnx's C++ checks (see load)


@dataclass(frozen=True)
class LoadedModel:
    path: Path
    proto: Any  # onnx.ModelProto, graph only (external data not loaded)
    size: int
    raw: bytes | None = None  # the file's bytes (the proto, serialised) when the probes are better off with them


def _fail(code: str, message: str) -> UserInputError:
    return UserInputError(f"{message} [{code}]", code=code)


def _zip_kind(path: Path) -> tuple[str, str]:
    """torch.save writes a zip whose members end in data.pkl: tell it from any other zip."""
    import zipfile

    try:
        with zipfile.ZipFile(path) as zf:
            names = zf.namelist()[:200]
    except (zipfile.BadZipFile, OSError):
        return "file.not-onnx", "a damaged zip archive, not an ONNX protobuf"
    if any(n.endswith("data.pkl") or n.endswith("/version") for n in names):
        return "file.pytorch-checkpoint", "a PyTorch checkpoint (torch.save zip) renamed to .onnx: export it with torch.onnx.export"
    return "file.not-onnx", "a zip archive, not an ONNX protobuf (unpack it first?)"


def sniff(path: Path) -> int:
    """Raise UserInputError with a one-line reason when path cannot be an ONNX model; return its size."""
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
        raise _fail("file.empty", f"model file is empty: {path}")
    if head.startswith(b"PK\x03\x04"):
        code, what = _zip_kind(path)
        raise _fail(code, f"{path} is {what}")
    for magic, code, what in _KINDS:
        if head.startswith(magic):
            raise _fail(code, f"{path} is {what}")
    if head[4:8] == b"ORTM":  # a flatbuffer whose file identifier is onnxruntime's ORT format
        raise _fail("file.ort-format", f"{path} is an ORT-format model (.ort flatbuffer), not an ONNX protobuf: name it .ort, or set the session option session.load_model_format=ORT")
    # ModelProto's first field is ir_version (tag 0x08) in every exporter we know of;
    # plain text files start with a printable character that is not a protobuf tag.
    if head[:1] not in _PROTO_FIRST_BYTES:
        raise _fail("file.not-onnx", f"{path} does not look like an ONNX model (first byte {head[:1]!r}); is it the right file?")
    if size > PROTOBUF_LIMIT:
        raise _fail("file.over-2gb", f"{path} is {size / 2**30:.1f} GiB: one protobuf cannot exceed 2 GiB, so no ONNX tool can parse it; save the weights as external data")
    return size


def load(path: str | os.PathLike[str]) -> LoadedModel:
    """Load the graph of an ONNX model without its external weights."""
    p = Path(path)
    size = sniff(p)
    import onnx  # heavy; only when a model is given
    from google.protobuf.message import DecodeError

    try:
        with p.open("rb") as fh:
            raw = fh.read()
        proto = onnx.load_model_from_string(raw)
    except DecodeError as exc:
        raise _fail("file.truncated", f"{p} is not a valid ONNX protobuf (truncated or corrupt?): {str(exc).splitlines()[0] if str(exc) else 'parse error'}") from None
    except (OSError, ValueError, RuntimeError) as exc:
        raise UserInputError(f"cannot load {p}: {str(exc).splitlines()[0] if str(exc) else type(exc).__name__}") from None
    if not proto.HasField("graph"):
        raise _fail("file.no-graph", f"{p} parsed as protobuf but holds no ONNX graph (truncated, or not an ONNX model?)")
    if not proto.ir_version:
        raise _fail("file.no-ir-version", f"{p} holds a graph but no ir_version, which every ModelProto must set: onnxruntime refuses it (Missing model IR version)")
    return LoadedModel(path=p, proto=proto, size=size, raw=raw if _keep_bytes(proto, size) else None)


def _keep_bytes(proto: Any, size: int) -> bool:
    """Keep the file's bytes for onnx's checker and shape inference when the file is small and
    mostly graph: they then take the bytes as they are. A file that is mostly embedded weights
    is better served by a light copy without them (diagnoser.model.weights), which the bytes would
    only double in memory."""
    from diagnoser.model import weights

    return size <= RAW_KEEP and weights.heavy_bytes(proto) * 4 < size
