"""Command-line parsing from a dataclass whose fields carry docstrings (cleanrl style, no extra deps).

A field is documented by the string literal right below it; ``--help`` shows that text. Booleans
become ``--flag/--no-flag``; ``list[str]`` fields take repeated values.
"""

from __future__ import annotations

import argparse
import ast
import dataclasses
import inspect
import textwrap
import typing
from typing import Any, TypeVar

T = TypeVar("T")


def field_docs(cls: type) -> dict[str, str]:
    """Maps each field of a dataclass to the docstring written right below it."""
    tree = ast.parse(textwrap.dedent(inspect.getsource(cls)))
    body = tree.body[0].body  # type: ignore[attr-defined]
    docs: dict[str, str] = {}
    for node, following in zip(body, body[1:]):
        if isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name) and isinstance(following, ast.Expr) \
                and isinstance(following.value, ast.Constant) and isinstance(following.value.value, str):
            docs[node.target.id] = " ".join(following.value.value.split())
    return docs


def parse_dataclass(cls: type[T], argv: list[str] | None = None, description: str | None = None) -> T:
    """Builds ``cls`` from command-line arguments (``--field-name value``)."""
    parser = argparse.ArgumentParser(description=description or cls.__doc__,
                                     formatter_class=argparse.ArgumentDefaultsHelpFormatter)
    docs = field_docs(cls)
    hints = typing.get_type_hints(cls)
    for field in dataclasses.fields(cls):
        flag = "--" + field.name.replace("_", "-")
        kind = hints[field.name]
        default = field.default if field.default is not dataclasses.MISSING else field.default_factory()  # type: ignore[misc]
        help_text = docs.get(field.name, "")
        if kind is bool:
            parser.add_argument(flag, action=argparse.BooleanOptionalAction, default=default, help=help_text)
        elif typing.get_origin(kind) is list:
            parser.add_argument(flag, nargs="*", default=default, help=help_text)
        else:
            parser.add_argument(flag, type=kind, default=default, help=help_text)
    namespace = parser.parse_args(argv)
    return cls(**{f.name: getattr(namespace, f.name) for f in dataclasses.fields(cls)})


def parse_rules(items: list[str]) -> dict[str, Any]:
    """``["memory=none", "allow_keep=true", "max_turns=900"]`` -> rules options (values parsed as
    JSON-ish literals: true/false, integers, floats, otherwise strings)."""
    out: dict[str, Any] = {}
    for item in items:
        if "=" not in item:
            raise ValueError(f"rule {item!r}: expected key=value, e.g. memory=none")
        key, value = item.split("=", 1)
        lowered = value.strip().lower()
        parsed: Any
        if lowered in ("true", "false"):
            parsed = lowered == "true"
        else:
            try:
                parsed = int(value)
            except ValueError:
                try:
                    parsed = float(value)
                except ValueError:
                    parsed = value
        out[key.strip()] = parsed
    return out
