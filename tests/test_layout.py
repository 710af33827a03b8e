"""The package's layout (docs/design.md): few modules at the top level, no import cycles, no
import from a higher layer, no private name imported from another module, and no import of a
sampled_metrics module inside a function (lazy imports are for optional heavy dependencies
only). The import graph is read from the source with ast, nothing is imported."""
import ast
from pathlib import Path

from conftest import ROOT

PACKAGE = ROOT / "src" / "sampled_metrics"
MAX_TOP_LEVEL = 16

#: Layer of each top-level module or subpackage, lowest first (docs/design.md's table). A
#: module may import from its own layer and the ones below, never from one above.
LAYERS = [
    ("shared", {"checks", "atomic", "lazy", "logs", "seeds", "parallel", "textfile", "resampling",
                "registry", "writers"}),
    ("law: metrics", {"metrics"}),
    ("law: design", {"design"}),
    ("law: sampling", {"sampling"}),
    ("law: evaluators", {"evaluators"}),
    ("corrections", {"corrections"}),
    ("estimators, several positives", {"estimators", "multipositive"}),
    ("comparison, bounds, intervals", {"compare", "bounds", "intervals"}),
    ("data, models, evaluation", {"datasets", "recommenders", "evaluation"}),
    ("the workflow's code", {"workflow"}),
    ("entry points", {"cli", "integrations"}),
]
RANK = {name: i for i, (_, names) in enumerate(LAYERS) for name in names}
ROOT_RANK = len(LAYERS)          # sampled_metrics/__init__.py re-exports from every layer


def module_name(path: Path) -> str:
    parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


MODULES = {module_name(p): p for p in sorted(PACKAGE.rglob("*.py"))}


def is_module(name: str) -> bool:
    return name in MODULES


def imports(name: str):
    """(target module, imported names, inside a function, line) of every import of a
    sampled_metrics module in module ``name``; ``from pkg import sub`` targets pkg.sub when
    sub is a module."""
    path = MODULES[name]
    tree = ast.parse(path.read_text(), str(path))
    nested = {id(node) for func in ast.walk(tree)
              if isinstance(func, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda))
              for node in ast.walk(func) if isinstance(node, (ast.Import, ast.ImportFrom))}
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name.split(".")[0] == "sampled_metrics":
                    yield alias.name, [], id(node) in nested, node.lineno
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")[:len(package.split(".")) - node.level + 1]
                target = ".".join(base + ([node.module] if node.module else []))
            else:
                target = node.module or ""
            if target.split(".")[0] != "sampled_metrics":
                continue
            names = [alias.name for alias in node.names]
            subs = [n for n in names if is_module(f"{target}.{n}")]
            for sub in subs:
                yield f"{target}.{sub}", [], id(node) in nested, node.lineno
            if len(subs) < len(names):
                yield target, [n for n in names if n not in subs], id(node) in nested, node.lineno


GRAPH = {name: list(imports(name)) for name in MODULES}


def rank(name: str) -> int:
    parts = name.split(".")
    return ROOT_RANK if len(parts) == 1 else RANK[parts[1]]


def test_few_modules_at_the_top_level():
    top = sorted(p.name for p in PACKAGE.glob("*.py"))
    assert len(top) <= MAX_TOP_LEVEL, top


def test_every_top_level_module_and_package_has_a_layer():
    top = {p.stem for p in PACKAGE.glob("*.py")} - {"__init__"}
    top |= {p.parent.name for p in PACKAGE.glob("*/__init__.py")}
    assert top == set(RANK), (sorted(top - set(RANK)), sorted(set(RANK) - top))


def test_imports_name_existing_modules():
    missing = [(name, target, line) for name, edges in GRAPH.items()
               for target, _, _, line in edges if target not in MODULES]
    assert not missing


def test_no_import_cycles():
    state, stack, cycles = {}, [], []

    def visit(name):
        state[name] = "open"
        stack.append(name)
        for target, _, _, _ in GRAPH[name]:
            if state.get(target) == "open":
                cycles.append(stack[stack.index(target):] + [target])
            elif target not in state:
                visit(target)
        stack.pop()
        state[name] = "done"

    for name in MODULES:
        if name not in state:
            visit(name)
    assert not cycles, "\n".join(" -> ".join(c) for c in cycles)


def test_no_upward_imports():
    upward = [f"{name}:{line} imports {target} ({LAYERS[rank(target)][0]} is above "
              f"{LAYERS[rank(name)][0] if rank(name) < ROOT_RANK else 'the package'})"
              for name, edges in GRAPH.items() for target, _, _, line in edges
              if rank(target) > rank(name)]
    assert not upward, "\n".join(upward)


def test_no_private_name_imported_from_another_module():
    private = [f"{name}:{line} imports {n} from {target}" for name, edges in GRAPH.items()
               for target, names, _, line in edges for n in names
               if n.startswith("_") and not n.startswith("__")]
    assert not private, "\n".join(private)


def test_no_function_level_imports_of_the_package():
    """Only the command line imports inside functions: its parser is built from the light
    registries, and a command imports its machinery when it runs (``--help`` stays fast)."""
    lazy = [f"{name}:{line} imports {target} inside a function"
            for name, edges in GRAPH.items() for target, _, inside, line in edges
            if inside and not name.startswith("sampled_metrics.cli")]
    assert not lazy, "\n".join(lazy)
