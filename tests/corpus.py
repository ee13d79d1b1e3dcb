"""A corpus of real exported models, written in plain torch (torchvision is not needed): the
architectures users export (a CNN classifier, a MobileNetV3-like net with HardSwish, a
transformer encoder, LSTM/GRU taggers, an SSD-like detector head), exported by torch.onnx, then
converted the ways users convert them (float16, bfloat16, dynamic and static quantization).
Built once per test session into a temporary folder; torch is required.
"""
from __future__ import annotations

import warnings
from collections.abc import Callable
from pathlib import Path
from typing import Any


def _nets() -> dict[str, tuple[Any, tuple[Any, ...], dict[str, dict[int, str]]]]:
    import torch
    from torch import nn

    class ConvBN(nn.Sequential):
        def __init__(self, cin: int, cout: int, stride: int = 1, act: type = nn.ReLU) -> None:
            super().__init__(nn.Conv2d(cin, cout, 3, stride, 1, bias=False), nn.BatchNorm2d(cout), act())

    class SE(nn.Module):
        def __init__(self, c: int) -> None:
            super().__init__()
            self.fc1, self.fc2 = nn.Conv2d(c, c // 4, 1), nn.Conv2d(c // 4, c, 1)

        def forward(self, x: Any) -> Any:
            s = nn.functional.adaptive_avg_pool2d(x, 1)
            return x * nn.functional.hardsigmoid(self.fc2(nn.functional.relu(self.fc1(s))))

    class MobileV3(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.stem = ConvBN(3, 16, 2, nn.Hardswish)
            self.dw = nn.Sequential(nn.Conv2d(16, 16, 3, 1, 1, groups=16), nn.BatchNorm2d(16), nn.Hardswish())
            self.se = SE(16)
            self.head = nn.Linear(16, 10)

        def forward(self, x: Any) -> Any:
            x = self.se(self.dw(self.stem(x)))
            return self.head(torch.flatten(nn.functional.adaptive_avg_pool2d(x, 1), 1))

    class Classifier(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.body = nn.Sequential(ConvBN(3, 8), nn.MaxPool2d(2), ConvBN(8, 16, 2))
            self.fc = nn.Linear(16, 5)

        def forward(self, x: Any) -> Any:
            return self.fc(self.body(x).mean((2, 3)))

    class Encoder(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.emb = nn.Embedding(100, 32)
            self.enc = nn.TransformerEncoder(nn.TransformerEncoderLayer(32, 4, 64, batch_first=True), 2)
            self.out = nn.Linear(32, 3)

        def forward(self, ids: Any) -> Any:
            return self.out(self.enc(self.emb(ids)))

    class Tagger(nn.Module):
        def __init__(self, cell: type) -> None:
            super().__init__()
            self.rnn = cell(8, 16, num_layers=2, batch_first=True, bidirectional=True)
            self.fc = nn.Linear(32, 4)

        def forward(self, x: Any) -> Any:
            return self.fc(self.rnn(x)[0])

    class SSDHead(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.backbone = nn.Sequential(ConvBN(3, 8, 2), ConvBN(8, 16, 2))
            self.loc, self.cls = nn.Conv2d(16, 4 * 2, 3, 1, 1), nn.Conv2d(16, 3 * 2, 3, 1, 1)

        def forward(self, x: Any) -> Any:
            f = self.backbone(x)
            n = f.shape[0]
            loc = self.loc(f).permute(0, 2, 3, 1).reshape(n, -1, 4)
            cls = self.cls(f).permute(0, 2, 3, 1).reshape(n, -1, 3)
            return loc, cls.softmax(-1)

    torch.manual_seed(0)
    img = (torch.rand(1, 3, 32, 32),)
    batch = {"x": {0: "batch"}}
    return {
        "classifier": (Classifier().eval(), img, batch),
        "mobilenetv3": (MobileV3().eval(), img, batch),
        "ssd-head": (SSDHead().eval(), img, batch),
        "transformer": (Encoder().eval(), (torch.randint(0, 100, (1, 12)),), {"x": {0: "batch", 1: "seq"}}),
        "lstm": (Tagger(nn.LSTM).eval(), (torch.rand(1, 7, 8),), {"x": {0: "batch", 1: "seq"}}),
        "gru": (Tagger(nn.GRU).eval(), (torch.rand(1, 7, 8),), {"x": {0: "batch", 1: "seq"}}),
    }


def _export(net: Any, args: tuple[Any, ...], axes: dict[str, dict[int, str]], path: Path, opset: int = 17) -> Path:
    import torch

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        torch.onnx.export(net, args, str(path), input_names=["x"], dynamic_axes=axes, opset_version=opset, dynamo=False)
    return path


def _dynamo(net: Any, args: tuple[Any, ...], path: Path) -> Path:
    import torch

    seq = torch.export.Dim("seq", min=2, max=64)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        prog = torch.onnx.export(net, args, dynamo=True, dynamic_shapes=({1: seq},), verbose=False)
    prog.save(str(path))
    return path


def _fp16(src: Path, dst: Path) -> Path:
    import onnx
    from onnxconverter_common import float16

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        onnx.save(float16.convert_float_to_float16(onnx.load(str(src)), keep_io_types=True), str(dst))
    return dst


def _dynamic_q(src: Path, dst: Path) -> Path:
    from onnxruntime.quantization import QuantType, quantize_dynamic

    quantize_dynamic(str(src), str(dst), weight_type=QuantType.QInt8)
    return dst


def _static_q(src: Path, dst: Path) -> Path:
    import numpy as np
    from onnxruntime.quantization import CalibrationDataReader, QuantFormat, quantize_static

    class Reader(CalibrationDataReader):
        def __init__(self) -> None:
            rng = np.random.default_rng(0)
            self.feeds = iter([{"x": rng.random((1, 3, 32, 32), dtype=np.float32)} for _ in range(2)])

        def get_next(self) -> dict[str, Any] | None:
            return next(self.feeds, None)

    quantize_static(str(src), str(dst), Reader(), quant_format=QuantFormat.QDQ)
    return dst


def build(root: Path) -> dict[str, Path]:
    """Export and convert every model of the corpus into root; name -> path."""
    import torch

    out: dict[str, Path] = {}
    for name, (net, args, axes) in _nets().items():
        out[name] = _export(net, args, axes, root / f"{name}.onnx")
    out["mobilenetv3-opset13"] = _export(*_nets()["mobilenetv3"], root / "mobilenetv3-opset13.onnx", opset=13)
    net, args, axes = _nets()["classifier"]
    out["classifier-bf16"] = _export(net.to(torch.bfloat16), tuple(a.to(torch.bfloat16) for a in args), axes, root / "classifier-bf16.onnx", opset=18)
    net, args, axes = _nets()["mobilenetv3"]
    out["mobilenetv3-bf16"] = _export(net.to(torch.bfloat16), tuple(a.to(torch.bfloat16) for a in args), axes, root / "mobilenetv3-bf16.onnx", opset=18)
    net, args, axes = _nets()["mobilenetv3"]
    out["mobilenetv3-half"] = _export(net.half(), tuple(a.half() for a in args), axes, root / "mobilenetv3-half.onnx")
    net, args, _ = _nets()["transformer"]
    out["transformer-dynamo"] = _dynamo(net, args, root / "transformer-dynamo.onnx")
    conversions: dict[str, tuple[str, Callable[[Path, Path], Path]]] = {
        "mobilenetv3-fp16": ("mobilenetv3", _fp16), "ssd-head-fp16": ("ssd-head", _fp16),
        "transformer-fp16": ("transformer", _fp16), "transformer-qdyn": ("transformer", _dynamic_q),
        "lstm-qdyn": ("lstm", _dynamic_q), "classifier-qdq": ("classifier", _static_q),
        "mobilenetv3-qdq": ("mobilenetv3", _static_q),
    }
    for name, (base, convert) in conversions.items():
        out[name] = convert(out[base], root / f"{name}.onnx")
    return out
