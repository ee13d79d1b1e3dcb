"""What the graph says about tensors: dtype and origin of every value a node reads."""
from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property
from typing import Any, Iterator


@dataclass(frozen=True)
class ValueInfo:
    name: str
    dtype: str | None  # ONNX name, e.g. "float16"; None when unknown
    origin: str  # "graph input", "initializer", "output of Cast node 'x'", ...


_NAMES: dict[int, str | None] = {}
_ALL_NAMED: list[bool] = []  # non-empty once _NAMES holds every elem_type onnx defines


def dtype_name(elem_type: int) -> str | None:
    if elem_type in _NAMES:
        return _NAMES[elem_type]
    import onnx

    try:
        name = onnx.helper.tensor_dtype_to_string(elem_type).removeprefix("TensorProto.").lower() if elem_type else None
    except (ValueError, KeyError):
        name = None
    _NAMES[elem_type] = name
    return name


def _dtype_names() -> dict[int, str | None]:
    """Every elem_type onnx knows -> its name; 0 (undefined) and unknown values map to None."""
    import onnx

    if not _ALL_NAMED:
        for value in onnx.TensorProto.DataType.values():
            dtype_name(value)
        _ALL_NAMED.append(True)
    return _NAMES


_SUBGRAPH_OPS = frozenset({"If", "Loop", "Scan", "SequenceMap"})


def walk_nodes(graph: Any) -> Iterator[Any]:
    """Every node, including those inside If/Loop/Scan subgraphs (and graph attributes of
    non-standard ops); attributes of plain ai.onnx nodes are not scanned, which keeps a
    50,000-node walk cheap."""
    import onnx

    for node in graph.node:
        yield node
        if node.op_type in _SUBGRAPH_OPS or (node.domain and node.domain != "ai.onnx"):
            for attr in node.attribute:
                if attr.type == onnx.AttributeProto.GRAPH:
                    yield from walk_nodes(attr.g)
                elif attr.type == onnx.AttributeProto.GRAPHS:
                    for g in attr.graphs:
                        yield from walk_nodes(g)


class GraphInfo:
    """Lazy views of a ModelProto for probes; shape inference runs once, on demand."""

    def __init__(self, proto: Any, source: Any = None):
        self.proto = proto
        # what shape inference reads: the file's bytes, or a copy without big embedded weights
        self.source = source if source is not None else proto
        self.untyped_outputs: list[str] = []  # filled by op_groups
        self.output_count = 0

    @cached_property
    def opsets(self) -> dict[str, int]:
        return {("" if o.domain == "ai.onnx" else o.domain): o.version for o in self.proto.opset_import}

    @cached_property
    def strict(self) -> tuple[Any | None, str | None]:
        """Strict inference (types checked, errors raised), run once: (inferred model, None) or (None, error).

        It is the shape-inference half of check_model(full_check=True); on success it also serves
        as `inferred`, so a valid model is inferred only once.
        """
        import onnx

        try:
            return onnx.shape_inference.infer_shapes(self.source, check_type=True, strict_mode=True, data_prop=False), None
        except Exception as exc:
            return None, str(exc).strip() or type(exc).__name__

    @cached_property
    def inferred(self) -> Any:
        """The model with inferred value_info; the original when inference fails."""
        import onnx

        if "strict" in self.__dict__ and self.strict[0] is not None:
            return self.strict[0]
        try:
            return onnx.shape_inference.infer_shapes(self.source, check_type=False, strict_mode=False)
        except Exception:  # inference is best effort: a model it rejects still has inputs and initializers
            return self.proto

    @cached_property
    def dtypes(self) -> dict[str, str | None]:
        """name -> dtype of every typed value of the main graph (cheap: no origins)."""
        import onnx

        inferred = self.inferred
        graph = inferred.graph
        out = {vi.name: vi.type.tensor_type.elem_type for vi in graph.value_info}
        out.update((vi.name, vi.type.tensor_type.elem_type) for vi in graph.output)
        out.update((vi.name, vi.type.tensor_type.elem_type) for vi in graph.input)
        if inferred is self.proto:  # inference failed: Constant values still say their dtype
            for node in graph.node:
                if node.op_type == "Constant" and node.output:
                    for attr in node.attribute:
                        if attr.type == onnx.AttributeProto.TENSOR:
                            out[node.output[0]] = attr.t.data_type
        out.update((t.name, t.data_type) for t in graph.initializer)
        names = _dtype_names()
        return {k: names.get(v) for k, v in out.items()}

    @cached_property
    def values(self) -> dict[str, ValueInfo]:
        graph = self.inferred.graph
        out: dict[str, ValueInfo] = {}
        producers = {o: n for n in walk_nodes(graph) for o in n.output if o}
        for vi in graph.value_info:
            node = producers.get(vi.name)
            origin = f"output of {node.op_type} node '{node.name}'" if node is not None else "intermediate value"
            out[vi.name] = ValueInfo(vi.name, dtype_name(vi.type.tensor_type.elem_type), origin)
        for vi in graph.output:
            node = producers.get(vi.name)
            origin = f"output of {node.op_type} node '{node.name}'" if node is not None else "graph output"
            out[vi.name] = ValueInfo(vi.name, dtype_name(vi.type.tensor_type.elem_type), origin)
        for node in walk_nodes(graph):
            if node.op_type == "Constant" and node.output:
                for attr in node.attribute:
                    if attr.name == "value":
                        out[node.output[0]] = ValueInfo(node.output[0], dtype_name(attr.t.data_type), f"Constant node '{node.name}'")
        for init in graph.initializer:
            out[init.name] = ValueInfo(init.name, dtype_name(init.data_type), f"initializer {list(init.dims)}")
        for vi in graph.input:
            if vi.name not in out or not out[vi.name].origin.startswith("initializer"):
                out[vi.name] = ValueInfo(vi.name, dtype_name(vi.type.tensor_type.elem_type), "graph input")
        return out

    @cached_property
    def nodes_by_name(self) -> dict[str, Any]:
        return {n.name: n for n in walk_nodes(self.proto.graph) if n.name}

    def find_node(self, name: str) -> Any | None:
        node = self.nodes_by_name.get(name)
        if node is None and name.startswith("/"):
            node = self.nodes_by_name.get(name.lstrip("/"))
        return node

    def since_version(self, node: Any) -> int | None:
        """The op version the runtime prints in `Add(14)`: the schema's since_version."""
        import onnx

        opset = self.opsets.get(node.domain or "")
        if opset is None:
            return None
        try:
            return onnx.defs.get_schema(node.op_type, opset, node.domain or "").since_version
        except Exception:
            return None

    def schema(self, node: Any) -> Any | None:
        import onnx

        opset = self.opsets.get(node.domain or "")
        try:
            return onnx.defs.get_schema(node.op_type, opset, node.domain or "") if opset else None
        except Exception:
            return None


@dataclass(eq=False)
class OpGroup:
    """The nodes of one op whose inputs and outputs carry the same dtypes: what a kernel lookup
    or a dtype check needs to judge once. A 50,000-node model has a few dozen groups."""

    op: str
    domain: str  # "" for ai.onnx
    since: int | None  # the schema's since_version, as the runtime prints it in `Add(14)`
    schema: Any | None
    sig: tuple[tuple[str, str | None], ...]  # (type param, dtype) per present input then output
    nodes: list[Any]  # in graph order: the main graph first, then subgraphs level by level

    @cached_property
    def bound(self) -> dict[str, tuple[str | None, ...]]:
        return group(self.sig)


def group(sig: tuple[tuple[str, str | None], ...]) -> dict[str, tuple[str | None, ...]]:
    """(param, dtype) pairs -> param -> dtypes bound to it."""
    out: dict[str, list[str | None]] = {}
    for param, dtype in sig:
        out.setdefault(param, []).append(dtype)
    return {k: tuple(v) for k, v in out.items()}


def signature(schema: Any, in_dtypes: tuple[str | None, ...], out_dtypes: tuple[str | None, ...]) -> tuple[tuple[str, str | None], ...]:
    """(type param, dtype) per present input then output of a node of schema (dtype "" = omitted)."""
    return _bind(in_dtypes, *_params(schema.inputs)) + _bind(out_dtypes, *_params(schema.outputs))


def _params(formals: Any) -> tuple[tuple[str, ...], str | None]:
    """Type parameters by position, and the one a variadic last formal repeats."""
    fs = list(formals)
    return tuple(f.type_str for f in fs), (fs[-1].type_str if fs and int(fs[-1].option) == 2 else None)


_ABSENT = ""  # the dtype of an omitted optional input or output (name ""), unlike None (unknown)


def op_groups(g: GraphInfo) -> list[OpGroup]:
    """Every node of the main graph, then of its subgraphs, grouped by (op, domain, input dtypes,
    output dtypes) and bound to its schema's type parameters once per group.

    This is the one pass over all nodes: reading fields of protobuf nodes from Python is what
    makes a walk slow, so the loop does nothing else. Also records the main-graph outputs
    inference left untyped (g.untyped_outputs).
    """
    import onnx

    specs: dict[tuple[str, str], tuple[Any, int | None, Any, Any]] = {}
    groups: dict[tuple, OpGroup] = {}
    lookup = dict(g.dtypes)
    lookup[""] = _ABSENT
    get = lookup.get
    nested: list[Any] = []
    untyped: list[str] = []
    outputs = 0
    todo = g.proto.graph.node
    depth = 0
    while todo:
        for node in todo:
            op = node.op_type
            domain = node.domain
            if domain:
                if domain == "ai.onnx":
                    domain = ""
                else:
                    nested.append(node)  # custom ops may carry graph attributes too
            elif op in _SUBGRAPH_OPS:
                nested.append(node)
            ins, outs = node.input[:], node.output[:]
            in_t, out_t = tuple(map(get, ins)), tuple(map(get, outs))
            if depth == 0:
                outputs += len(out_t)
                if None in out_t:
                    untyped += [n for n, d in zip(outs, out_t) if d is None]
            k = (op, domain, in_t, out_t)
            grp = groups.get(k)
            if grp is None:
                spec = specs.get((op, domain))
                if spec is None:
                    opset = g.opsets.get(domain)
                    try:
                        schema = onnx.defs.get_schema(op, opset, domain) if opset else None
                    except Exception:
                        schema = None
                    spec = specs[(op, domain)] = ((schema, schema.since_version, _params(schema.inputs), _params(schema.outputs))
                                                  if schema is not None else (None, None, ((), None), ((), None)))
                schema, since, ins_p, outs_p = spec
                sig = _bind(in_t, *ins_p) + _bind(out_t, *outs_p) if schema is not None else ()
                grp = groups[k] = OpGroup(op, domain, since, schema, sig, [])
            grp.nodes.append(node)
        todo = [sub for parent in nested for sub in _subgraph_nodes(parent)]
        nested = []
        depth += 1
    g.untyped_outputs, g.output_count = untyped, outputs
    return list(groups.values())


def _bind(dtypes: tuple[str | None, ...], params: tuple[str, ...], variadic: str | None) -> tuple[tuple[str, str | None], ...]:
    """(type param, dtype) for each present value; values past the formals bind to the variadic one."""
    n = len(params)
    return tuple(((params[i] if i < n else variadic), d) for i, d in enumerate(dtypes)
                 if d != _ABSENT and (i < n or variadic))


def _subgraph_nodes(node: Any) -> list[Any]:
    import onnx

    found = []
    for attr in node.attribute:
        if attr.type == onnx.AttributeProto.GRAPH:
            found += list(attr.g.node)
        elif attr.type == onnx.AttributeProto.GRAPHS:
            for sub in attr.graphs:
                found += list(sub.node)
    return found
