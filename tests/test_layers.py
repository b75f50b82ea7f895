"""The package is layered (quickening/_layers.py): no import cycle anywhere, and no
module imports from a layer above its own.

The import graph is read from the source (ast): imports at module level and inside
functions alike, and the parent packages an import runs (importing a.b.c runs a and
a.b first), each an edge."""

import ast
import pathlib

import quickening
from quickening._layers import LAYERS

PACKAGE_DIR = pathlib.Path(quickening.__file__).parent


def _modules():
    """module name -> (path, is a package)"""
    out = {}
    for path in sorted(PACKAGE_DIR.rglob("*.py")):
        parts = ("quickening",) + path.relative_to(PACKAGE_DIR).with_suffix("").parts
        is_package = parts[-1] == "__init__"
        if is_package:
            parts = parts[:-1]
        out[".".join(parts)] = (path, is_package)
    return out


MODULES = _modules()


def _imported(module, node):
    """The modules of the package an import statement runs (its parents too)."""
    path, is_package = MODULES[module]
    if isinstance(node, ast.Import):
        names = [alias.name for alias in node.names]
    else:
        if node.level:
            base = module.split(".") if is_package else module.split(".")[:-1]
            base = base[:len(base) - node.level + 1]
            prefix = ".".join(base + ([node.module] if node.module else []))
        else:
            prefix = node.module
        names = [prefix] + [f"{prefix}.{alias.name}" for alias in node.names]
    out = set()
    for name in names:
        parts = name.split(".")
        for i in range(1, len(parts) + 1):
            candidate = ".".join(parts[:i])
            if candidate in MODULES and candidate != module:
                out.add(candidate)
    return out


def _graph():
    """module -> {imported module: line of the first import of it}"""
    graph = {}
    for module, (path, _) in MODULES.items():
        edges = graph[module] = {}
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            if isinstance(node, (ast.Import, ast.ImportFrom)):
                for target in _imported(module, node):
                    edges.setdefault(target, node.lineno)
    return graph


def _cycles(graph):
    """The strongly connected components of more than one module (Tarjan's, iterative)."""
    index, low, on_stack, stack, found = {}, {}, set(), [], []
    for root in graph:
        if root in index:
            continue
        work = [(root, iter(graph[root]))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        while work:
            node, successors = work[-1]
            for succ in successors:
                if succ not in index:
                    index[succ] = low[succ] = len(index)
                    stack.append(succ)
                    on_stack.add(succ)
                    work.append((succ, iter(graph[succ])))
                    break
                if succ in on_stack:
                    low[node] = min(low[node], index[succ])
            else:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[node])
                if low[node] == index[node]:
                    component = []
                    while True:
                        member = stack.pop()
                        on_stack.discard(member)
                        component.append(member)
                        if member == node:
                            break
                    if len(component) > 1:
                        found.append(sorted(component))
    return found


def _layer_of():
    """module -> index of its layer (the most specific entry of LAYERS that names it)."""
    out = {}
    for module in MODULES:
        best = None
        for k, (_, _, entries) in enumerate(LAYERS):
            for entry in entries:
                if entry.endswith(".*"):
                    base = entry[:-2]
                    hit = module == base or module.startswith(base + ".")
                    weight = len(base)
                else:
                    hit = module == entry
                    weight = len(entry) + 1    # (an exact entry beats a.b.* for a.b)
                if hit and (best is None or weight > best[0]):
                    best = (weight, k)
        out[module] = None if best is None else best[1]
    return out


GRAPH = _graph()


def test_the_graph_sees_imports_inside_functions_and_parent_packages():
    # (the reader itself: a wrong graph would pass everything below)
    assert "quickening.interp" in GRAPH["quickening.interp.loop"]
    assert "quickening" in GRAPH["quickening.interp.loop"]
    assert "quickening.interp.loop" in GRAPH["quickening.interp.functions"]
    cycle = {"a": {"b": 1}, "b": {"c": 1}, "c": {"a": 1}, "d": {"a": 1}}
    assert _cycles(cycle) == [["a", "b", "c"]]


def test_no_import_cycle():
    cycles = _cycles(GRAPH)
    assert not cycles, "import cycles:\n" + "\n".join(
        f"  {len(c)} modules: " + " ".join(c) for c in cycles)


def test_every_module_has_a_layer():
    layer = _layer_of()
    missing = sorted(m for m, k in layer.items() if k is None)
    assert not missing, "modules no layer of quickening/_layers.py names: " + " ".join(missing)


def test_no_layer_entry_names_nothing():
    names = set(MODULES)
    stale = [entry for _, _, entries in LAYERS for entry in entries
             if entry.removesuffix(".*") not in names]
    assert not stale, "LAYERS names modules that do not exist: " + " ".join(stale)


def test_imports_only_go_down():
    layer = _layer_of()
    upward = []
    for module, edges in sorted(GRAPH.items()):
        for target, line in sorted(edges.items()):
            if layer[module] is not None and layer[target] is not None and layer[target] > layer[module]:
                upward.append(f"  {module} (layer {LAYERS[layer[module]][0]}) imports {target} "
                              f"(layer {LAYERS[layer[target]][0]}), line {line}")
    assert not upward, "imports from a layer above:\n" + "\n".join(upward)


def _method_calls_on_imported_objects(module):
    """`NAME.method(...)` where an import binds NAME at module level and NAME is not
    a module or a class: (line, text) of each."""
    import dis
    import symtable
    import types

    path, _ = MODULES[module.__name__]
    source = path.read_text()
    table = symtable.symtable(source, str(path), "exec")
    imported = {s.get_name() for s in table.get_symbols() if s.is_imported()}
    found = []
    codes = [compile(source, str(path), "exec")]
    while codes:
        code = codes.pop()
        codes += [c for c in code.co_consts if isinstance(c, types.CodeType)]
        ins = list(dis.get_instructions(code))
        for load, attr, push in zip(ins, ins[1:], ins[2:]):
            if (load.opname == "LOAD_GLOBAL" and load.argval in imported
                    and attr.opname == "LOAD_ATTR" and not attr.arg & 1
                    and push.opname == "PUSH_NULL"):
                value = getattr(module, load.argval, None)
                if not isinstance(value, (types.ModuleType, type)):
                    found.append((attr.positions.lineno, f"{load.argval}.{attr.argval}"))
    return found


def test_method_calls_on_imported_objects_keep_the_method_form():
    # CPython 3.13's compiler takes `NAME.method(...)` on a name an import binds
    # for a module's function and emits LOAD_ATTR without its method form; on a
    # dict or a set (`INTERCEPTS.get(...)`) the host cannot specialize that load,
    # and every call makes a bound method (a generic builtin call cost 5% more).
    # Such names are bound by assignment in the interpreter's modules (the code
    # a run spends its time in) that use them.
    import importlib

    interp = [importlib.import_module(name) for name in MODULES
              if name.startswith("quickening.interp") and not name.endswith("__main__")]
    assert len(interp) > 50
    found = {m.__name__: _method_calls_on_imported_objects(m) for m in interp}
    assert {name: hits for name, hits in found.items() if hits} == {}
