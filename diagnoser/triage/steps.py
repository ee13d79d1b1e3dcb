"""The next step for an unexplained error: one or two concrete actions, in English and Chinese.

Each action is chosen by component and stage and filled with the facts the text gave (op,
provider, aten op, converter); a provider other than the CPU adds the one test that splits a
provider's failure from the model's.
"""
from __future__ import annotations

from diagnoser.triage import tools as registry

Step = tuple[str, str]  # (English, Chinese)


def _op(facts: dict[str, str]) -> tuple[str, str]:
    """The op the text named, or words for it when it named none (English, Chinese)."""
    op = facts.get("op")
    if not op:
        return "the failing node", "出错的节点"
    named = f"{op}({facts['op_version']})" if facts.get("op_version") else op
    return named, named


def _main(component: str, stage: str, f: dict[str, str], has_model: bool) -> Step:
    op, op_zh = _op(f)
    if component == "install" and f.get("binding") not in (None, "Python"):
        b = f["binding"]
        return (f"Check the onnxruntime native library the {b} binding loads or links: present, built for this OS and CPU architecture, and the version the binding expects (point the binding at it explicitly where it allows); a source build also needs its toolchain (a C compiler for cgo, CMake).",
                f"检查 {b} 绑定加载或链接的 onnxruntime 原生库：是否存在、是否为当前操作系统和 CPU 架构构建、版本是否符合该绑定的要求（绑定允许时显式指定其路径）；从源码构建还需要相应的工具链（cgo 需要 C 编译器，或 CMake）。")
    if component == "install":
        return ("Check which package is imported and from where: python -c \"import onnxruntime as o; print(o.__file__, o.__version__, o.get_available_providers())\"; `diagnose --env` probes packages, providers and CUDA libraries.",
                "检查实际导入的是哪个包、来自哪里：python -c \"import onnxruntime as o; print(o.__file__, o.__version__, o.get_available_providers())\"；`diagnose --env` 会检查已安装的包、执行提供程序和 CUDA 库。")
    if component == "onnxruntime-web":
        if stage == "install":
            return ("Serve the .wasm files of the same onnxruntime-web version as the .js (MIME type application/wasm) or set ort.env.wasm.wasmPaths, and import the bundle that contains the backend you ask for (e.g. onnxruntime-web/webgpu).",
                    "提供与 .js 同一版本 onnxruntime-web 的 .wasm 文件（MIME 类型 application/wasm），或设置 ort.env.wasm.wasmPaths；并导入包含所需后端的包（如 onnxruntime-web/webgpu）。")
        return (f"Create the session with executionProviders: ['wasm']: if it works, {op} fails only in the WebGPU/WebGL backend (operator or type coverage); keep that node on wasm or change its dtype.",
                f"用 executionProviders: ['wasm'] 创建会话：若能运行，说明 {op_zh} 只在 WebGPU/WebGL 后端失败（算子或类型覆盖不足）；让该节点留在 wasm 上或改变其数据类型。")
    if component == "torch.onnx":
        aten = f.get("aten_op")
        other = "dynamo=False (the TorchScript exporter)" if f.get("exporter") == "dynamo" else "dynamo=True (the torch.export-based exporter)"
        other_zh = "dynamo=False（TorchScript 导出器）" if f.get("exporter") == "dynamo" else "dynamo=True（基于 torch.export 的导出器）"
        if aten:
            return (f"{aten} is where export stops: try {other} with the newest PyTorch, or rewrite that call in forward() with ops the exporter supports (or register a custom symbolic / translation for it).",
                    f"导出停在 {aten}：用最新的 PyTorch 试试 {other_zh}，或在 forward() 中用导出器支持的算子改写该调用（或为它注册自定义 symbolic / 转换函数）。")
        return (f"Export a minimal model that reproduces it, then try {other} and the newest PyTorch; put the model in eval() and the example inputs on the CPU.",
                f"用能复现问题的最小模型导出，再试 {other_zh} 和最新的 PyTorch；导出前调用 eval()，示例输入放在 CPU 上。")
    tool = registry.by_name(f["tool"]) if f.get("tool") else None
    if component == "converter" and tool is not None and tool.reads_onnx and stage == "convert" and tool.steps is not None:
        t = tool.title  # the tool's own step comes first: this one splits the tool's failure from the model's
        return (f"Confirm the model itself is valid: onnx.checker.check_model(path, full_check=True) and a session with providers=['CPUExecutionProvider']; if both pass, the failure is {t}'s (an op, shape or dtype it does not handle).",
                f"先确认模型本身有效：运行 onnx.checker.check_model(path, full_check=True)，并用 providers=['CPUExecutionProvider'] 创建会话；若都通过，问题属于 {t}（它不支持的算子、形状或数据类型）。")
    if component == "converter" and tool is not None and tool.reads_onnx and stage == "convert":
        t = tool.title
        return (f"Check {op} against {t}'s list of supported ONNX operators for the release you run; simplify the model first (onnxsim, static input shapes, an opset the tool supports), rerun with its verbose or debug output, and report the op and opset on the tool's tracker.",
                f"对照所用版本 {t} 支持的 ONNX 算子列表检查{op_zh}；先简化模型（onnxsim、静态输入形状、该工具支持的 opset），再打开其详细或调试输出重新运行，并把算子与 opset 报告到该工具的问题跟踪处。")
    if component == "converter" and stage == "load":
        return ("The engine never read the model: check that the .onnx file is at the path it was given (relative paths start from the working directory) and is complete (its size, not a git-lfs pointer).",
                "引擎并未读到模型：确认 .onnx 文件位于所给路径（相对路径以当前工作目录为起点）且完整（检查大小，不是 git-lfs 指针文件）。")
    if component == "converter":
        named = f.get("converter") or (tool.title if tool is not None else None)
        conv = named or "the converter"
        conv_zh = f" {named} " if named else "该转换器"  # a Latin name is set off by spaces, Chinese words are not
        return (f"Check that {conv} supports the framework version you run (converters lag framework releases): upgrade {conv}, or pin the framework to the newest version it supports, and retry with an explicit opset.",
                f"确认{conv_zh}支持你所用的框架版本（转换器往往落后于框架发布）：升级{conv_zh.rstrip()}，或把框架固定到它支持的最新版本，并显式指定 opset 重试。")
    if component == "quantization":
        return ("Make sure the float model loads and runs in onnxruntime first, run python -m onnxruntime.quantization.preprocess on it, and check the quantize_* arguments against the installed onnxruntime release (some were renamed or removed).",
                "先确认浮点模型能在 onnxruntime 中加载并运行，对它执行 python -m onnxruntime.quantization.preprocess，再按已安装的 onnxruntime 版本核对 quantize_* 参数（部分参数已改名或移除）。")
    if component == "optimizer":
        return ("Check that the model loads and runs in onnxruntime (CPU) before optimising; then skip the failing pass or upgrade the tool (onnxsim --skip-optimization, onnxslim's skip options).",
                "优化前先确认模型能在 onnxruntime（CPU）中加载并运行；然后跳过出错的优化步骤或升级工具（onnxsim --skip-optimization、onnxslim 的跳过选项）。")
    if component == "onnx":
        if stage == "convert":
            return ("Re-export at the target opset from the source framework instead of converting the file; if you must convert, go one opset at a time to find the operator that blocks it.",
                    "在源框架中按目标 opset 重新导出，而不是转换文件；若必须转换，逐个 opset 转换以找出阻塞的算子。")
        return (f"Run onnx.checker.check_model(path, full_check=True) and onnx.shape_inference.infer_shapes_path(path, strict_mode=True): the first node they name ({op}) is where the model breaks its operator's rules.",
                f"运行 onnx.checker.check_model(path, full_check=True) 与 onnx.shape_inference.infer_shapes_path(path, strict_mode=True)：它们指出的第一个节点（{op_zh}）就是违反算子规则之处。")
    if stage == "run":
        look = " Its attributes and inputs are listed above." if has_model else " `diagnose --model MODEL` looks the node up."
        look_zh = "其属性与输入已在上方列出。" if has_model else "`diagnose --model 模型` 会查出该节点的详情。"
        return (f"Compare what you feed with session.get_inputs() (name, dtype, shape), then look at {op}: the error says what about it fails at run time (its input shapes, dtypes or attributes).{look}",
                f"把输入与 session.get_inputs()（名称、数据类型、形状）逐一比对，再看 {op_zh}：错误说明了它在运行时哪里出错（输入形状、数据类型或属性）。{look_zh}")
    if stage == "install":
        return ("Check that the onnxruntime library the program loads is the one it was built for (version, CPU or GPU package, platform); `diagnose --env` lists what is installed.",
                "确认程序加载的 onnxruntime 库正是它构建时对应的版本（版本号、CPU 或 GPU 包、平台）；`diagnose --env` 会列出已安装的内容。")
    look = "" if has_model else " `diagnose --model MODEL` checks kernels, opsets and the checker for you."
    look_zh = "" if has_model else "`diagnose --model 模型` 会替你检查算子实现、opset 和模型校验。"
    return (f"Load the model with providers=['CPUExecutionProvider'] and run onnx.checker.check_model(path, full_check=True): if both pass, the failure belongs to the provider or its setup, not the model.{look}",
            f"用 providers=['CPUExecutionProvider'] 加载模型并运行 onnx.checker.check_model(path, full_check=True)：若都通过，问题出在执行提供程序或其配置，而非模型本身。{look_zh}")


def next_steps(component: str, stage: str, facts: dict[str, str], has_model: bool) -> tuple[tuple[str, ...], tuple[str, ...]]:
    steps = [_main(component, stage, facts, has_model)]
    tool = registry.by_name(facts["tool"]) if facts.get("tool") else None
    if tool is not None and tool.steps is not None and (stage != "install" or tool.component == "install"):
        steps.insert(0, tool.steps)  # the tool's own list, flag or tracker before the generic advice
    provider = facts.get("provider")
    if provider and provider != "CPUExecutionProvider" and component in ("onnxruntime", "install") and stage != "install":
        steps.append((f"Run the same model with CPUExecutionProvider alone: if it works, the failure is {provider}'s (its version, the ops and types it supports, its libraries).",
                      f"只用 CPUExecutionProvider 运行同一模型：若能运行，问题属于 {provider}（其版本、支持的算子与类型、依赖库）。"))
    return tuple(s[0] for s in steps[:2]), tuple(s[1] for s in steps[:2])
