"""Command-line parsing from a dataclass whose fields carry docstrings (cleanrl style, no extra deps),
on the shared command-line layer :mod:`keine_ahnung_env.cli` (one-line errors, examples in ``--help``,
the common flags' checks).

A field is documented by the string literal right below it; ``--help`` shows its first paragraph
(what follows a blank line is for readers of the code), and the first paragraph of the class
docstring describes the command. Booleans become ``--flag/--no-flag``; ``list[str]`` fields take
repeated values. The help is compact (``usage: PROG [options]``, one line per option where the
terminal allows), so that a command with forty options still fits a screen.
"""

from __future__ import annotations

import argparse
import ast
import dataclasses
import inspect
import textwrap
import typing
from typing import Any, Iterable, TypeVar

from keine_ahnung_env.cli import (  # noqa: F401  (re-exported: the commands of training/ use them from here)
    DEVICES, HelpFormatter, Parser, UsageError, check_device, check_env, check_int, check_json_path, check_number,
    check_players, check_positive, check_rules, check_seed, check_variant, parse_rules, resolve_device, run_command, shown,
    split_specs, usage_error, user_errors)

T = TypeVar("T")


def field_docs(cls: type) -> dict[str, str]:
    """Maps each field of a dataclass to the docstring written right below it (its first paragraph:
    the help text)."""
    tree = ast.parse(textwrap.dedent(inspect.getsource(cls)))
    body = tree.body[0].body  # type: ignore[attr-defined]
    docs: dict[str, str] = {}
    for node, following in zip(body, body[1:]):
        if isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name) and isinstance(following, ast.Expr) \
                and isinstance(following.value, ast.Constant) and isinstance(following.value.value, str):
            first = inspect.cleandoc(following.value.value).split("\n\n")[0]
            docs[node.target.id] = " ".join(first.split())
    return docs


class CompactHelpFormatter(HelpFormatter):
    """The shared help format with a short value name per option (N, X, TEXT) and its default in
    brackets, so that most options take one line."""

    def __init__(self, prog: str, **kwargs: Any):
        kwargs.setdefault("max_help_position", 32)
        super().__init__(prog, **kwargs)

    def _get_help_string(self, action: argparse.Action) -> str | None:
        if action.nargs == 0 or action.default in (None, "", [], ()) or action.default is argparse.SUPPRESS:
            return action.help
        return f"{action.help or ''} [%(default)s]".lstrip()


_METAVARS = {int: "N", float: "X", str: "TEXT"}


def dataclass_parser(cls: type, prog: str, description: str | None = None, examples: Iterable[str] = ()) -> Parser:
    """The :class:`~keine_ahnung_env.cli.Parser` of ``cls``: one ``--field-name`` per field; the help
    shows the first paragraph of ``description`` (default: the class docstring)."""
    about = inspect.cleandoc(description or cls.__doc__ or "").split("\n\n")[0]
    parser = Parser(prog, about, examples, usage="%(prog)s [options]", formatter_class=CompactHelpFormatter)
    docs = field_docs(cls)
    hints = typing.get_type_hints(cls)
    for field in dataclasses.fields(cls):
        flag = "--" + field.name.replace("_", "-")
        kind = hints[field.name]
        default = field.default if field.default is not dataclasses.MISSING else field.default_factory()  # type: ignore[misc]
        help_text = docs.get(field.name, "").replace("%", "%%")
        if kind is bool:
            parser.add_argument(flag, action=argparse.BooleanOptionalAction, default=default, help=help_text)
        elif typing.get_origin(kind) is list:
            parser.add_argument(flag, nargs="*", default=default, help=help_text, metavar="KEY=VALUE")
        else:
            parser.add_argument(flag, type=kind, default=default, help=help_text, metavar=_METAVARS.get(kind, "VALUE"))
    return parser


def parse_dataclass(cls: type[T], argv: list[str] | None = None, description: str | None = None,
                    prog: str | None = None, examples: Iterable[str] = ()) -> T:
    """Builds ``cls`` from command-line arguments (``--field-name value``); a parse error raises
    :class:`~keine_ahnung_env.cli.UsageError` (a ValueError), ``--help`` exits."""
    parser = dataclass_parser(cls, prog or f"python -m {cls.__module__}", description, examples)
    namespace = parser.parse_args(argv)
    return cls(**{f.name: getattr(namespace, f.name) for f in dataclasses.fields(cls)})


def given_fields(cls: type, argv: list[str] | None = None) -> set[str]:
    """The fields of dataclass ``cls`` that ``argv`` sets explicitly (a flag on the command line), as
    opposed to those left at their defaults; ``argv`` must parse (``parse_dataclass`` checked it)."""
    parser = dataclass_parser(cls, "given")
    for action in parser._actions:  # every default "not given": argparse then sets only the flags it met
        action.default = argparse.SUPPRESS
    return set(vars(parser.parse_args(argv)))


def parse_net_arch(text: str) -> list[int]:
    """``--net-arch``'s value: ``"256,256"`` -> ``[256, 256]``; empty for a malformed or non-positive list."""
    try:
        sizes = [int(n) for n in text.split(",") if n.strip()]
    except ValueError:
        return []
    return sizes if sizes and min(sizes) > 0 else []


def make_agent(flag: str, spec: str, **kwargs: Any):
    """``agents.make(spec, **kwargs)`` for the command-line flag ``flag``: its ValueError (an unknown
    name, bad arguments, a checkpoint for another table) becomes a UsageError naming the flag."""
    import agents

    with user_errors(flag, spec):
        return agents.make(spec, **kwargs)
