"""The installed product (``keine_ahnung_env``, ``agents``, ``training``) never reaches into the lab:
no module of it imports ``research`` (the studies, A/B tools and profiles) or ``benchmarks`` (the
soak), neither with an import statement nor by name through importlib or an agent spec's
``"module:attribute"`` string, and pyproject's package list installs neither folder."""

from __future__ import annotations

import ast
import fnmatch
import re
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PRODUCT = ("keine_ahnung_env", "agents", "training")
LAB = ("research", "benchmarks")
# A string that names a lab module the way importlib or an agent spec would: "research",
# "research.kernel_ab", "benchmarks.soak:main", "research.calibration:play_forced_calls".
MODULE_NAME = re.compile(rf"^(?:{'|'.join(LAB)})(?:\.\w+)*(?::[\w.]+)?$")


def _product_files() -> list[Path]:
    files = sorted(path for package in PRODUCT for path in (ROOT / package).rglob("*.py"))
    assert len(files) > 50, "the product's modules were not found"
    return files


def lab_references(source: str) -> list[str]:
    """Every place in ``source`` that imports a lab package or names one as a module (line: what)."""
    found = []
    for node in ast.walk(ast.parse(source)):
        names: list[str] = []
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names = [node.module]
        elif isinstance(node, ast.Constant) and isinstance(node.value, str) and MODULE_NAME.match(node.value.strip()):
            found.append(f"{node.lineno}: the string {node.value!r}")
        found += [f"{node.lineno}: import {name}" for name in names if name.split(".")[0] in LAB]
    return found


@pytest.mark.parametrize("package", PRODUCT)
def test_no_product_module_imports_the_lab(package):
    offenders = {}
    for path in _product_files():
        if path.relative_to(ROOT).parts[0] != package:
            continue
        found = lab_references(path.read_text(encoding="utf-8"))
        if found:
            offenders[str(path.relative_to(ROOT))] = found
    assert not offenders, f"the product reaches into research/ or benchmarks/: {offenders}"


def test_the_check_finds_each_way_of_reaching_the_lab():
    # Each of these would make the product depend on a folder that is not installed.
    for source in ("import research", "import research.kernel_ab as ab", "from research import calibration",
                   "from benchmarks.soak import main", "importlib.import_module('research.profile')",
                   "factory = 'research.calibration:play_forced_calls'", "spec = 'benchmarks'"):
        assert lab_references(source), source
    # Relative imports, a path in a message and prose are no imports.
    for source in ("from .research import x", "from . import research", "msg = 'see research/engine_profile.py'",
                   "doc = 'the research notebooks'", "import researcher"):
        assert not lab_references(source), source


def test_pyproject_installs_only_the_product():
    if sys.version_info >= (3, 11):
        import tomllib
    else:  # pragma: no cover
        tomllib = pytest.importorskip("tomli")
    from setuptools import find_packages

    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    find = config["tool"]["setuptools"]["packages"]["find"]
    patterns = find["include"]
    for lab in LAB:
        assert not any(fnmatch.fnmatch(name, pattern) for pattern in patterns
                       for name in (lab, f"{lab}.kernel_ab")), (lab, patterns)
    installed = find_packages(where=str(ROOT), include=patterns, exclude=find.get("exclude", ()))
    assert {name.split(".")[0] for name in installed} == set(PRODUCT), installed
    assert (ROOT / "research" / "__init__.py").exists()  # a package in the tree, yet never installed
