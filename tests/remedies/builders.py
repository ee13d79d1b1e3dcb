"""Models the remedy tests build: tiny hand-made graphs and real exports made with plain torch."""
from __future__ import annotations

import hashlib
import warnings
from pathlib import Path
from typing import Any

import numpy as np
import onnx
from onnx import TensorProto as TP
from onnx import helper, numpy_helper


def digest(path: Path) -> str:
    return hashlib.sha256(Path(path).read_bytes()).hexdigest()


def model(nodes: list[Any], inputs: list[Any], outputs: list[Any], inits: list[Any] = (), opset: int | None = 17, ir: int = 8, **kw: Any) -> onnx.ModelProto:
    if ir < 4:  # before IR 4 every initializer is also a graph input
        inputs = [*inputs, *(helper.make_tensor_value_info(t.name, t.data_type, list(t.dims)) for t in inits)]
    g = helper.make_graph(nodes, "g", inputs, outputs, list(inits), **kw)
    ops = [helper.make_opsetid("", opset)] if opset is not None else []
    m = helper.make_model(g, opset_imports=ops, ir_version=ir)
    if opset is None:
        del m.opset_import[:]
    return m


def vi(name: str, dtype: int, shape: list[Any]) -> Any:
    return helper.make_tensor_value_info(name, dtype, shape)


def save(m: onnx.ModelProto, path: Path) -> Path:
    onnx.save(m, str(path))
    return path


def run(path: Path, feed: dict[str, np.ndarray]) -> list[np.ndarray]:
    import onnxruntime as ort

    sess = ort.InferenceSession(str(path), providers=["CPUExecutionProvider"])
    return sess.run(None, feed)


def torch_cnn(train: bool = False) -> Any:
    import torch

    class CNN(torch.nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.conv = torch.nn.Conv2d(3, 8, 3, padding=1)
            self.bn = torch.nn.BatchNorm2d(8)
            self.drop = torch.nn.Dropout(0.5)
            self.fc = torch.nn.Linear(8, 4)

        def forward(self, x: Any) -> Any:
            y = torch.relu(self.bn(self.conv(x))).mean((2, 3))
            return self.fc(self.drop(y))

    torch.manual_seed(0)
    m = CNN()
    with torch.no_grad():  # running statistics that differ from a batch's own
        m.bn.running_mean.uniform_(-0.5, 0.5)
        m.bn.running_var.uniform_(0.5, 2.0)
    return m.train() if train else m.eval()


def export(module: Any, args: tuple[Any, ...], path: Path, **kw: Any) -> Path:
    import torch

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        torch.onnx.export(module, args, str(path), dynamo=False, **kw)
    return path


def lstm_layout1(path: Path, tmp: Path) -> tuple[Path, Any, Any]:
    """A batch-first LSTM as a layout=1 ONNX LSTM (the form some exporters emit), with the
    weights of a real torch LSTM (taken from torch's own ONNX export, in ONNX gate order).
    Returns the path, the torch module and an input."""
    import torch

    torch.manual_seed(0)
    lstm = torch.nn.LSTM(4, 5, batch_first=True).eval()
    x = torch.randn(2, 3, 4)
    ref = export(lstm, (x,), tmp / "torch_lstm.onnx", opset_version=17)
    exported = onnx.load(str(ref))
    node = next(n for n in exported.graph.node if n.op_type == "LSTM")
    consts = {t.name: t for t in exported.graph.initializer}
    for n in exported.graph.node:
        if n.op_type == "Constant":
            consts[n.output[0]] = n.attribute[0].t
    w, r, b = (numpy_helper.to_array(consts[node.input[i]]) for i in (1, 2, 3))
    inits = [numpy_helper.from_array(w, "W"), numpy_helper.from_array(r, "R"), numpy_helper.from_array(b, "B")]
    lnode = helper.make_node("LSTM", ["X", "W", "R", "B"], ["Y", "Y_h", "Y_c"], hidden_size=5, layout=1, name="lstm")
    m = model([lnode], [vi("X", TP.FLOAT, [2, 3, 4])], [vi("Y", TP.FLOAT, [2, 3, 1, 5]), vi("Y_h", TP.FLOAT, [2, 1, 5]), vi("Y_c", TP.FLOAT, [2, 1, 5])], inits, opset=17)
    return save(m, path), lstm, x
