"""The product's import graph: no circle, and the game folders at its bottom beside the engine.

The product is the three installed packages ``keine_ahnung_env``, ``agents`` and ``training``. The graph
is read from the source (``ast``): every ``import`` and ``from ... import`` statement, at module level
and inside functions alike (an import inside a function still ties the two modules together; it only
runs later). ``from package import name`` counts as an import of ``package.name`` where that is a
module, else of ``package``.

Layers, bottom up:

* **the engine and the env package's shared parts** (:data:`SHARED`): the compiled-core base
  (``engine``), the random streams, bit primitives, packed state and kernel cache (``rng``, ``bits``,
  ``packing``, ``kernel_cache``), masked sampling and interval statistics (``sampling``, ``stats``),
  observation sections and rules options (``sections``, ``rules_options``), the drawing primitives
  (``pictures``), the game door's types (``game_spec``: ``GameSpec``, ``GameHooks``, ``AgentInfo``, the
  core protocol), the game declaration (``game_declaration``) and the batched agent interface the
  games' heuristic agents implement (``agent_base``). They import only each other.
* **the game folders** (``keine_ahnung_env/games/<game>/``): a game imports its own modules and the
  shared parts; never another game, the registry, the wrappers, the commands, ``agents``, ``training``,
  ``research``, ``benchmarks`` or a tool.
* everything above (the registry, the entry points and wrappers, the benchmark command, ``agents``,
  ``training``) may import what lies below it, and no circle may run through any of it.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PRODUCT = ("keine_ahnung_env", "agents", "training")
SHARED = frozenset(f"keine_ahnung_env.{name}" for name in (
    "engine", "rng", "bits", "packing", "kernel_cache", "sampling", "stats", "sections", "rules_options",
    "pictures", "game_spec", "game_declaration", "agent_base"))
GAMES = "keine_ahnung_env.games"
OUTSIDE_THE_PRODUCT = ("research", "benchmarks", "tests", "notebooks")


def product_modules() -> dict[str, Path]:
    """Every module of the product by its dotted name (a package by its ``__init__``'s)."""
    modules = {}
    for package in PRODUCT:
        for path in sorted((ROOT / package).rglob("*.py")):
            parts = path.relative_to(ROOT).with_suffix("").parts
            if "__pycache__" in parts or "checkpoints" in parts:
                continue
            name = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
            modules[name] = path
    return modules


def imports_of(name: str, path: Path, modules: dict[str, Path]) -> set[str]:
    """The modules ``name`` imports (product modules and the first part of any other), anywhere in its
    source."""
    is_package = path.name == "__init__.py"
    package = name if is_package else name.rpartition(".")[0]
    found: set[str] = set()

    def add(target: str) -> None:
        found.add(target if target.split(".")[0] in PRODUCT else target.split(".")[0])

    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            for alias in node.names:
                add(alias.name)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base_parts = package.split(".")
                base_parts = base_parts[: len(base_parts) - (node.level - 1)]
                base = ".".join(base_parts + ([node.module] if node.module else []))
            else:
                base = node.module or ""
            for alias in node.names:
                candidate = f"{base}.{alias.name}"
                add(candidate if candidate in modules else base)
    found.discard(name)
    return found


@pytest.fixture(scope="module")
def graph() -> dict[str, set[str]]:
    modules = product_modules()
    return {name: imports_of(name, path, modules) for name, path in modules.items()}


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan), each sorted."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    counter = [0]

    def visit(v: str) -> None:
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on_stack.add(v)
        for w in graph.get(v, ()):
            if w not in graph:
                continue
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    import sys

    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(max(limit, 10_000))
    try:
        for v in sorted(graph):
            if v not in index:
                visit(v)
    finally:
        sys.setrecursionlimit(limit)
    return found


def test_the_graph_is_read_from_every_package(graph):
    for package in PRODUCT:
        assert package in graph
    assert "keine_ahnung_env.games.keine_ahnung.agents" in graph["keine_ahnung_env.games.keine_ahnung.features"]
    assert "keine_ahnung_env.registry" in graph["keine_ahnung_env.entry_points"]
    # function-level imports count too: the registry's entry_points() imports by name, spec.draw does not
    assert "keine_ahnung_env.pictures" in graph["keine_ahnung_env.game_spec"]


def test_the_cycle_finder_finds_a_cycle():
    assert cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    assert cycles({"a": {"b"}, "b": set()}) == []


def test_the_product_has_no_import_circle(graph):
    assert cycles(graph) == []


def test_the_shared_parts_import_only_each_other(graph):
    for name in sorted(SHARED):
        assert name in graph, f"{name} is listed as a shared part but does not exist"
        climbing = sorted(t for t in graph[name] if t.split(".")[0] in PRODUCT and t not in SHARED
                          and t != "keine_ahnung_env")
        assert not climbing, f"{name} (a shared part) imports {climbing}"


def test_the_game_folders_sit_at_the_bottom(graph):
    games = [name for name in graph if name.startswith(GAMES + ".")]
    assert len({name.split(".")[2] for name in games}) >= 3
    for name in sorted(games):
        own_game = ".".join(name.split(".")[:3])
        for target in sorted(graph[name]):
            if target in OUTSIDE_THE_PRODUCT:
                pytest.fail(f"{name} imports {target}, which is not part of the product")
            if target.split(".")[0] not in PRODUCT:
                continue  # a third-party library (numpy, numba, ...)
            allowed = target in SHARED or target == own_game or target.startswith(own_game + ".")
            assert allowed, f"{name} imports {target}; a game imports only its own modules and {sorted(SHARED)}"
