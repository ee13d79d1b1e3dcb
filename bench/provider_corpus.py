"""A corpus of real exported models for bench/provider_precision.py, built from torch on CPU.

torchvision is not needed: the architectures are written here in plain torch, small but with the
operators the real ones export (residual convs, inverted residuals with ReLU6, HardSwish and
squeeze-excitation, an SSD-like multi-head detector, ViT and TransformerEncoder blocks,
LSTM/GRU, a UNet, attention with masks), each exported at several opsets, plus float16- and
bfloat16-converted copies and onnxruntime.quantization dynamic and QDQ variants. Built once into
a cache folder (keyed by the torch and onnxruntime versions).
"""
from __future__ import annotations

import os
import warnings
from collections.abc import Callable
from pathlib import Path
from typing import Any


def _nets() -> dict[str, tuple[Callable[[], Any], tuple[int, ...], dict[int, str]]]:
    """name -> (module factory, input shape, dynamic axes of the input)."""
    import torch
    from torch import nn

    class Res(nn.Module):
        def __init__(self, c: int) -> None:
            super().__init__()
            self.a, self.b = nn.Conv2d(c, c, 3, padding=1, bias=False), nn.Conv2d(c, c, 3, padding=1, bias=False)
            self.n1, self.n2 = nn.BatchNorm2d(c), nn.BatchNorm2d(c)

        def forward(self, x):
            return torch.relu(x + self.n2(self.b(torch.relu(self.n1(self.a(x))))))

    def resnet():
        return nn.Sequential(nn.Conv2d(3, 16, 7, 2, 3), nn.BatchNorm2d(16), nn.ReLU(), nn.MaxPool2d(3, 2, 1), Res(16), Res(16),
                             nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(16, 10))

    class Inverted(nn.Module):
        def __init__(self, c: int, act: type, se: bool = False) -> None:
            super().__init__()
            self.body = nn.Sequential(nn.Conv2d(c, 4 * c, 1), nn.BatchNorm2d(4 * c), act(), nn.Conv2d(4 * c, 4 * c, 3, 1, 1, groups=4 * c), act(),
                                      nn.Conv2d(4 * c, c, 1), nn.BatchNorm2d(c))
            self.se = nn.Sequential(nn.AdaptiveAvgPool2d(1), nn.Conv2d(c, c, 1), nn.ReLU(), nn.Conv2d(c, c, 1), nn.Hardsigmoid()) if se else None

        def forward(self, x):
            y = self.body(x)
            return x + (y * self.se(y) if self.se is not None else y)

    def mobilenet(act: type, se: bool):
        return nn.Sequential(nn.Conv2d(3, 16, 3, 2, 1), act(), Inverted(16, act, se), Inverted(16, act, se), nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(16, 10))

    class SSD(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.stem = nn.Sequential(nn.Conv2d(3, 16, 3, 2, 1), nn.Hardswish(), Inverted(16, nn.Hardswish, True))
            self.down = nn.Sequential(nn.Conv2d(16, 16, 3, 2, 1), nn.Hardswish())
            self.loc = nn.ModuleList([nn.Conv2d(16, 4 * 3, 3, padding=1) for _ in range(2)])
            self.cls = nn.ModuleList([nn.Conv2d(16, 5 * 3, 3, padding=1) for _ in range(2)])

        def forward(self, x):
            feats = [self.stem(x)]
            feats.append(self.down(feats[0]))
            locs = [h(f).permute(0, 2, 3, 1).reshape(x.shape[0], -1, 4) for h, f in zip(self.loc, feats)]
            cls = [h(f).permute(0, 2, 3, 1).reshape(x.shape[0], -1, 5) for h, f in zip(self.cls, feats)]
            return torch.cat(locs, 1), torch.softmax(torch.cat(cls, 1), -1)

    class ViT(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.patch = nn.Conv2d(3, 32, 8, 8)
            self.pos = nn.Parameter(torch.randn(1, 16, 32) * 0.02)
            self.n1, self.n2 = nn.LayerNorm(32), nn.LayerNorm(32)
            self.attn = nn.MultiheadAttention(32, 4, batch_first=True)
            self.mlp = nn.Sequential(nn.Linear(32, 64), nn.GELU(), nn.Linear(64, 32))
            self.head = nn.Linear(32, 10)

        def forward(self, x):
            t = self.patch(x).flatten(2).transpose(1, 2) + self.pos
            h = self.n1(t)
            t = t + self.attn(h, h, h, need_weights=False)[0]
            t = t + self.mlp(self.n2(t))
            return self.head(t.mean(1))

    def encoder():
        layer = nn.TransformerEncoderLayer(32, 4, 64, batch_first=True, dropout=0.0)
        return nn.Sequential(nn.Linear(16, 32), nn.TransformerEncoder(layer, 2, enable_nested_tensor=False), nn.Linear(32, 4))

    class RNN(nn.Module):
        def __init__(self, kind: type) -> None:
            super().__init__()
            self.rnn, self.fc = kind(16, 32, batch_first=True, num_layers=2), nn.Linear(32, 4)

        def forward(self, x):
            return self.fc(self.rnn(x)[0][:, -1])

    class UNet(nn.Module):
        def __init__(self, up: str) -> None:
            super().__init__()
            self.e1, self.e2 = nn.Sequential(nn.Conv2d(3, 8, 3, 1, 1), nn.ReLU()), nn.Sequential(nn.Conv2d(8, 16, 3, 1, 1), nn.ReLU())
            self.up = nn.ConvTranspose2d(16, 8, 2, 2) if up == "deconv" else nn.Sequential(nn.Upsample(scale_factor=2, mode="bilinear"), nn.Conv2d(16, 8, 1))
            self.d = nn.Sequential(nn.Conv2d(16, 8, 3, 1, 1), nn.ReLU(), nn.Conv2d(8, 1, 1), nn.Sigmoid())

        def forward(self, x):
            a = self.e1(x)
            b = self.e2(nn.functional.max_pool2d(a, 2))
            return self.d(torch.cat([a, self.up(b)], 1))

    class Tagger(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.emb, self.q, self.k, self.out = nn.Embedding(100, 32), nn.Linear(32, 32), nn.Linear(32, 32), nn.Linear(32, 5)

        def forward(self, ids):
            e = self.emb(ids)
            s = self.q(e) @ self.k(e).transpose(1, 2) / 32**0.5
            s = s.masked_fill((ids == 0).unsqueeze(1), -1e4)
            return self.out(torch.softmax(s, -1) @ e)

    def audio():
        return nn.Sequential(nn.Conv1d(1, 8, 9, 4), nn.InstanceNorm1d(8), nn.LeakyReLU(), nn.Conv1d(8, 16, 9, 4), nn.ELU(),
                             nn.AdaptiveMaxPool1d(1), nn.Flatten(), nn.Linear(16, 3))

    def mlp():
        return nn.Sequential(nn.Linear(32, 64), nn.SiLU(), nn.Dropout(0.1), nn.Linear(64, 64), nn.Tanh(), nn.Linear(64, 2), nn.LogSoftmax(-1))

    img = (1, 3, 32, 32)
    return {
        "resnet": (resnet, img, {0: "batch"}),
        "mobilenetv2": (lambda: mobilenet(nn.ReLU6, False), img, {0: "batch"}),
        "mobilenetv3": (lambda: mobilenet(nn.Hardswish, True), img, {0: "batch"}),
        "ssdlite": (SSD, img, {0: "batch"}),
        "vit": (ViT, img, {0: "batch"}),
        "transformer": (encoder, (1, 12, 16), {0: "batch", 1: "seq"}),
        "lstm": (lambda: RNN(nn.LSTM), (1, 10, 16), {0: "batch"}),
        "gru": (lambda: RNN(nn.GRU), (1, 10, 16), {0: "batch"}),
        "unet-deconv": (lambda: UNet("deconv"), img, {0: "batch"}),
        "unet-resize": (lambda: UNet("resize"), img, {0: "batch"}),
        "tagger": (Tagger, (1, 12), {0: "batch", 1: "seq"}),
        "audio": (audio, (1, 1, 400), {0: "batch"}),
        "mlp": (mlp, (1, 32), {}),
    }


def _export(name: str, opset: int, path: Path) -> None:
    import torch

    torch.manual_seed(0)
    factory, shape, axes = _nets()[name]
    net = factory().eval()
    x = torch.randint(1, 100, shape) if name == "tagger" else torch.randn(*shape)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        torch.onnx.export(net, (x,), str(path), opset_version=opset, input_names=["x"], dynamo=False,
                          dynamic_axes={"x": axes} if axes else None)


def _float16(src: Path, dst: Path) -> None:
    import onnx
    from onnxruntime.transformers.float16 import convert_float_to_float16

    onnx.save(convert_float_to_float16(onnx.load(str(src)), keep_io_types=False), str(dst))


def _bfloat16(src: Path, dst: Path) -> None:
    """Every float tensor (weights, inputs, outputs, Cast targets, Constant values) made bfloat16:
    what a careless bf16 conversion produces; onnxruntime's CPU provider lacks many bf16 kernels."""
    import numpy as np
    import onnx
    from onnx import TensorProto, helper, numpy_helper

    m = onnx.load(str(src))
    g = m.graph

    def conv(t: Any) -> Any:
        if t.data_type != TensorProto.FLOAT:
            return t
        arr = numpy_helper.to_array(t).astype(np.float32)
        bits = (arr.view(np.uint32) >> 16).astype(np.uint16)
        out = helper.make_tensor(t.name, TensorProto.BFLOAT16, arr.shape, bits.tobytes(), raw=True)
        return out

    new = [conv(t) for t in g.initializer]
    del g.initializer[:]
    g.initializer.extend(new)
    for vi in [*g.input, *g.output]:
        if vi.type.tensor_type.elem_type == TensorProto.FLOAT:
            vi.type.tensor_type.elem_type = TensorProto.BFLOAT16
    del g.value_info[:]
    for node in g.node:
        for a in node.attribute:
            if node.op_type == "Cast" and a.name == "to" and a.i == TensorProto.FLOAT:
                a.i = TensorProto.BFLOAT16
            if a.type == onnx.AttributeProto.TENSOR:
                a.t.CopyFrom(conv(a.t))
    onnx.save(m, str(dst))


class _Reader:
    def __init__(self, path: Path) -> None:
        import numpy as np
        import onnxruntime as ort

        sess = ort.InferenceSession(str(path), providers=["CPUExecutionProvider"])
        inp = sess.get_inputs()[0]
        shape = [d if isinstance(d, int) else 1 for d in inp.shape]
        rng = np.random.default_rng(0)
        self.data = iter([{inp.name: rng.standard_normal(shape).astype(np.float32)} for _ in range(4)])

    def get_next(self) -> dict | None:
        return next(self.data, None)


def _quantize(kind: str, src: Path, dst: Path) -> None:
    from onnxruntime.quantization import QuantFormat, QuantType, quantize_dynamic, quantize_static

    if kind == "dynamic":
        quantize_dynamic(str(src), str(dst), weight_type=QuantType.QUInt8)
    else:
        quantize_static(str(src), str(dst), _Reader(src), quant_format=QuantFormat.QDQ, activation_type=QuantType.QUInt8, weight_type=QuantType.QInt8)


# (architecture, opset, variant); variant "" is the plain export
PLAN: list[tuple[str, int, str]] = (
    [(n, 17, "") for n in ("resnet", "mobilenetv2", "mobilenetv3", "ssdlite", "vit", "transformer", "lstm", "gru", "unet-deconv", "unet-resize", "tagger", "audio", "mlp")]
    + [(n, 13, "") for n in ("resnet", "mobilenetv2", "mobilenetv3", "ssdlite", "lstm", "gru", "unet-resize", "unet-deconv", "tagger", "audio")]
    + [(n, 18, "") for n in ("resnet", "mobilenetv3", "vit", "unet-resize", "tagger")]
    + [(n, 20, "") for n in ("resnet", "mobilenetv3", "ssdlite", "vit", "transformer", "gru")]
    + [(n, 17, "fp16") for n in ("resnet", "mobilenetv3", "ssdlite", "vit", "transformer", "unet-resize")]
    + [(n, 18, "bf16") for n in ("resnet", "mobilenetv3", "vit", "mlp")]
    + [(n, 17, "qdynamic") for n in ("resnet", "vit", "transformer", "lstm", "mlp")]
    + [(n, 17, "qdq") for n in ("resnet", "mobilenetv2", "mobilenetv3", "unet-deconv", "audio")]
)


def cache_dir() -> Path:
    import onnxruntime
    import torch

    base = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache")
    d = base / "onnx-troubleshooter" / f"provider-corpus-torch{torch.__version__}-ort{onnxruntime.__version__}"
    d.mkdir(parents=True, exist_ok=True)
    return d


def build() -> list[tuple[str, Path]]:
    """(label, path) for every model of PLAN, exporting what the cache lacks; a variant that
    cannot be built is skipped with a line on stderr."""
    import sys

    out = []
    root = cache_dir()
    for name, opset, variant in PLAN:
        label = f"{name}-op{opset}" + (f"-{variant}" if variant else "")
        path = root / f"{label}.onnx"
        if not path.exists():
            base = root / f"{name}-op{opset}.onnx"
            try:
                if not base.exists():
                    _export(name, opset, base)
                if variant == "fp16":
                    _float16(base, path)
                elif variant == "bf16":
                    _bfloat16(base, path)
                elif variant in ("qdynamic", "qdq"):
                    _quantize(variant.removeprefix("q"), base, path)
            except Exception as exc:  # report and go on: the corpus is what could be built
                print(f"skipped {label}: {type(exc).__name__}: {str(exc).splitlines()[0][:120]}", file=sys.stderr)
                continue
        out.append((label, path))
    return out
