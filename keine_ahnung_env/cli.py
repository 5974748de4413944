"""The command-line layer every command shares: one meaning and one validation per common flag, and
one way of reporting a user's mistake.

The commands (``training.train``, ``training.evaluate``, ``training.play``, ``training.search``,
``keine_ahnung_env.benchmark``, ``keine_ahnung_env.demo``; the ``keine-ahnung`` console command runs
each as a subcommand) build their parser with :class:`Parser` (or ``training.cli.parse_dataclass``,
which uses it) and check their arguments with the ``check_*`` functions below:

========================  ===================================================================
``--env NAME``            a registered game (``registry.games()``)
``--players N``           players per game, within the game's range; omitted: its default
``--seed N``              an integer 0 to 2**32 - 1 (every seed of the command derives from it)
``--rules KEY=VALUE ...`` the game's rules options, validated by the game's spec
``--agents A,B,...``      comma-separated agent specs of ``agents.make`` (``--opponents`` alike)
``--games N``             a positive integer
``--json PATH``           also write the results as JSON to this file (its folder is made)
``--no-progress``         hide the progress bar / progress lines
``--device D``            auto, cpu or cuda: where torch trains (auto: cuda when visible)
========================  ===================================================================

How mistakes are reported. A check raises :class:`UsageError`, a ``ValueError`` whose message names
the argument, what was given and what is allowed (``--players 1; allowed for keine_ahnung_v0:
integers 2-5``); a parse error (``--games x``, an unknown flag) raises it too. So a command called
from Python (``training.train.main(argv)``) raises ValueError as any library function does, and
:func:`run_command`, the command-line entry (``python -m ...`` and ``keine-ahnung ...``), prints it
as one line ``error: ...`` on stderr and exits with status 2, without a traceback.

Which ValueErrors count as the user's: those a command raises while it validates its arguments and
sets up (builds the game variant, the agents, reads a checkpoint), inside :func:`user_errors`,
before any game is played or any step trained. A ValueError raised later is a bug and keeps its
traceback.

A new command (``benchmark_agents``, ``train_rllib``, ``viewer``, ...) does the same::

    parser = cli.Parser("python -m training.viewer", "Watch a game.", examples=["--env keine_ahnung_v0"])
    cli.add_env(parser); cli.add_players(parser); cli.add_seed(parser)

    def main(argv=None):
        args = parser.parse_args(argv)
        with cli.user_errors():
            entry = cli.check_env(args.env)
            players = cli.check_players(entry, args.players)
            ...
        ...  # the work

    if __name__ == "__main__":
        cli.run_command(main)

This module imports nothing beyond the standard library and the registry, so a command can check
its arguments before it imports torch.
"""

from __future__ import annotations

import argparse
import contextlib
import difflib
import re
import shlex
import sys
from pathlib import Path
from typing import Any, Callable, Iterable, Iterator, Sequence

from . import registry

DEFAULT_ENV = registry.DEFAULT_GAME
MAX_SEED = 2**32 - 1
"""The largest seed: Stable-Baselines3 seeds NumPy's legacy generator, which takes 32 bits."""

CONSOLE = "keine-ahnung"
"""The installed console command (``[project.scripts]``); ``keine-ahnung train ...`` runs ``training.train``."""

_prog_override: list[str] = []


class UsageError(ValueError):
    """A user's mistake on the command line: one line naming the argument, what was given and what
    is allowed. The command-line entry prints it and exits with status 2."""


def shown(value: Any) -> str:
    """How a given value appears in a message: text quoted (``'chess'``), numbers bare, a list of
    words as typed."""
    if isinstance(value, (list, tuple)):
        return shlex.join(str(v) for v in value) or "(nothing)"
    return repr(value) if isinstance(value, str) else str(value)


def usage_error(flag: str, given: Any, allowed: str, game: str | None = None) -> UsageError:
    """``--flag <given>; allowed[ for <game>]: <allowed>``."""
    where = f" for {game}" if game else ""
    return UsageError(f"{flag} {shown(given)}; allowed{where}: {allowed}")


@contextlib.contextmanager
def user_errors(flag: str | None = None, given: Any = None) -> Iterator[None]:
    """Marks the setup phase of a command: a ValueError raised inside is the user's mistake and
    leaves as :class:`UsageError` (the same message, prefixed with ``flag`` and ``given`` when
    given, e.g. ``--opponents 'foo': unknown agent 'foo' ...``)."""
    try:
        yield
    except UsageError:
        raise
    except ValueError as exc:
        message = one_line(str(exc))
        if flag is not None and not message.startswith(flag):
            message = f"{flag} {shown(given)}: {message}"
        raise UsageError(message) from exc


def one_line(message: str) -> str:
    return " ".join(part.strip() for part in str(message).splitlines() if part.strip())


def run_command(function: Callable[[Sequence[str] | None], Any], argv: Sequence[str] | None = None) -> Any:
    """The command-line entry: calls ``function(argv)`` and returns its result; a :class:`UsageError`
    becomes one line ``error: ...`` on stderr and ``SystemExit(2)`` (no traceback). Any other
    exception keeps its traceback."""
    try:
        return function(None if argv is None else list(argv))
    except UsageError as exc:
        print(f"error: {one_line(str(exc))}", file=sys.stderr, flush=True)
        raise SystemExit(2) from None


@contextlib.contextmanager
def invoked_as(prog: str) -> Iterator[None]:
    """Within this block, parsers made with ``prog`` show ``prog`` instead (the console command's
    ``keine-ahnung train`` in place of ``python -m training.train``)."""
    _prog_override.append(prog)
    try:
        yield
    finally:
        _prog_override.pop()


def prog_name(default: str) -> str:
    """The name a command is invoked by (see :func:`invoked_as`)."""
    return _prog_override[-1] if _prog_override else default


# --------------------------------------------------------------------------------------- the parser


class HelpFormatter(argparse.ArgumentDefaultsHelpFormatter, argparse.RawDescriptionHelpFormatter):
    """Defaults shown after each help text (not for switches, nor empty ones); the description and the
    examples keep their lines."""

    def _get_help_string(self, action: argparse.Action) -> str | None:
        # A help text that already states its default ("(default 0)", "(default: the end)") keeps it once.
        if action.nargs == 0 or action.default in (None, "", [], ()) or re.search(r"\(default[ :]", action.help or ""):
            return action.help
        return super()._get_help_string(action)


_TYPE_NAMES = {"int": "an integer", "float": "a number", "str": "text"}


class Parser(argparse.ArgumentParser):
    """An ``ArgumentParser`` whose errors are :class:`UsageError` (one line naming the argument, what
    was given and what is allowed) and whose ``--help`` ends with examples.

    ``examples``: command lines without the program name (``"--players 3 --games 400"``); the help
    shows them after the program name (``python -m training.evaluate`` or ``keine-ahnung evaluate``).
    """

    def __init__(self, prog: str, description: str | None = None, examples: Iterable[str] = (), **kwargs: Any):
        prog = prog_name(prog)
        examples = list(examples)
        epilog = None
        if examples:
            epilog = "examples:\n" + "\n".join(f"  {prog} {example}".rstrip() for example in examples)
        kwargs.setdefault("formatter_class", HelpFormatter)
        # No abbreviated long options: "--game 100" must not quietly mean "--games 100".
        kwargs.setdefault("allow_abbrev", False)
        super().__init__(prog=prog, description=description, epilog=epilog, **kwargs)

    def error(self, message: str):  # type: ignore[override]
        raise UsageError(self._rephrase(message))

    def _long_flags(self) -> list[str]:
        return sorted({s for s in self._option_string_actions if s.startswith("--")})

    def _rephrase(self, message: str) -> str:
        """argparse's messages in the shared form (flag, what was given, what is allowed)."""
        match = re.fullmatch(r"argument (\S+?)(?:/\S+)?: invalid (\w+) value: (.*)", message, re.S)
        if match:
            flag, kind, given = match.groups()
            return f"{flag} {given}; allowed: {_TYPE_NAMES.get(kind, kind)}"
        match = re.fullmatch(r"argument (\S+?)(?:/\S+)?: invalid choice: (.*?) \(choose from (.*)\)", message, re.S)
        if match:
            flag, given, choices = match.groups()
            return f"{flag} {given}; allowed: {choices.replace(chr(39), '')}"
        match = re.fullmatch(r"argument (\S+?)(?:/\S+)?: expected one argument", message)
        if match:
            return f"{match.group(1)} needs a value; see {self.prog} --help"
        match = re.fullmatch(r"unrecognized arguments: (.*)", message, re.S)
        if match:
            given = match.group(1)
            first = given.split()[0] if given.split() else given
            close = difflib.get_close_matches(first.split("=")[0], self._long_flags(), n=1, cutoff=0.75)
            hint = f" (did you mean {close[0]}?)" if close and first.startswith("-") else ""
            return f"unrecognized argument(s) {given}; allowed: the options that {self.prog} --help lists{hint}"
        match = re.fullmatch(r"argument (\S+?)(?:/\S+)?: (.*)", message, re.S)
        if match:
            return f"{match.group(1)}: {match.group(2)}"
        return message


# ------------------------------------------------------------------------------- the shared options


def add_env(parser: argparse.ArgumentParser, default: str = DEFAULT_ENV, help: str | None = None) -> None:
    parser.add_argument("--env", default=default, metavar="NAME",
                        help=help or f"the game: a registered one ({', '.join(registry.games())})")


def add_players(parser: argparse.ArgumentParser, default: int | None = None, help: str | None = None) -> None:
    parser.add_argument("--players", type=int, default=default, metavar="N",
                        help=help or f"players per game, within the game's range ({DEFAULT_ENV}: "
                                     f"{registry.game(DEFAULT_ENV).min_players}-{registry.game(DEFAULT_ENV).max_players}); "
                                     f"omitted: the game's default ({DEFAULT_ENV}: {registry.default_players()})")


def add_seed(parser: argparse.ArgumentParser, default: int = 0, help: str | None = None) -> None:
    parser.add_argument("--seed", type=int, default=default, metavar="N",
                        help=help or f"seed of the deals and the agents (0-{MAX_SEED})")


def add_rules(parser: argparse.ArgumentParser, help: str | None = None) -> None:
    parser.add_argument("--rules", nargs="*", default=[], metavar="KEY=VALUE",
                        help=help or "the game's rules options (keine_ahnung_v0: e.g. memory=none allow_keep=true)")


def add_agents(parser: argparse.ArgumentParser, flag: str = "--agents", default: str | None = None,
               help: str | None = None) -> None:
    parser.add_argument(flag, default=default, metavar="A,B,...",
                        help=help or "comma-separated agent specs (agents.make names, e.g. greedy, risk_caller:0.6, "
                                     "ppo:PATH)")


def add_games(parser: argparse.ArgumentParser, default: int, help: str | None = None) -> None:
    parser.add_argument("--games", type=int, default=default, metavar="N", help=help or "games to play")


def add_json(parser: argparse.ArgumentParser, help: str | None = None) -> None:
    parser.add_argument("--json", default=None, metavar="PATH",
                        help=help or "also write the results as JSON to this file")


def add_progress(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--no-progress", dest="progress", action="store_false", help="hide the progress bar")


# ---------------------------------------------------------------------------------- the shared checks


def check_env(name: Any, flag: str = "--env") -> registry.GameEntry:
    """The registered game ``name``; UsageError listing the registered games otherwise."""
    try:
        return registry.game(name)
    except ValueError:
        raise usage_error(flag, name, f"one of the registered games: {', '.join(registry.games())}") from None


def check_players(entry: registry.GameEntry, value: Any, flag: str = "--players",
                  zero_is_default: bool = False) -> int:
    """``value`` players for ``entry``'s game (None, or 0 where ``zero_is_default``: its default)."""
    if value is None or (zero_is_default and value == 0 and not isinstance(value, bool)):
        return entry.default_players
    if isinstance(value, bool) or not isinstance(value, int) or value not in entry.players:
        default = f" (0: its default, {entry.default_players})" if zero_is_default else ""
        raise usage_error(flag, value, f"integers {entry.min_players}-{entry.max_players}{default}", entry.name)
    return value


def check_int(flag: str, value: Any, low: int = 1, high: int | None = None, allowed: str | None = None) -> int:
    """``value`` if it is an integer in ``low..high``; UsageError otherwise."""
    if isinstance(value, bool) or not isinstance(value, int) or value < low or (high is not None and value > high):
        if allowed is None:
            allowed = ("a positive integer" if low == 1 else "a non-negative integer" if low == 0
                       else f"an integer >= {low}") if high is None else f"an integer {low}-{high}"
        raise usage_error(flag, value, allowed)
    return value


def check_positive(flag: str, value: Any) -> int:
    """A positive integer (``--games``, ``--batch-size``, ...)."""
    return check_int(flag, value, 1)


def check_seed(value: Any, flag: str = "--seed") -> int:
    """An integer 0 to :data:`MAX_SEED`."""
    return check_int(flag, value, 0, MAX_SEED)


def check_number(flag: str, value: Any, minimum: float = 0.0, strict: bool = False, allowed: str | None = None) -> float:
    """A number ``> minimum`` (``strict``) or ``>= minimum``; UsageError otherwise (NaN included)."""
    ok = isinstance(value, (int, float)) and not isinstance(value, bool) and (
        value > minimum if strict else value >= minimum)
    if not ok:
        raise usage_error(flag, value, allowed or (f"a number {'>' if strict else '>='} {minimum:g}"))
    return float(value)


def check_choice(flag: str, value: Any, choices: Sequence[str]) -> str:
    if value not in choices:
        raise usage_error(flag, value, ", ".join(choices))
    return value


def parse_rules(items: Sequence[str]) -> dict[str, Any]:
    """``["memory=none", "allow_keep=true", "max_turns=900"]`` -> rules options (values parsed as
    JSON-ish literals: true/false, integers, floats, otherwise strings). ValueError for an item
    without ``=``."""
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


def check_rules(items: Sequence[str], flag: str = "--rules") -> dict[str, Any]:
    """The rules options of ``--rules KEY=VALUE ...`` (syntax only; :func:`check_variant` asks the game)."""
    for item in items:
        if "=" not in item:
            raise usage_error(flag, item, "KEY=VALUE options, e.g. memory=none")
    return parse_rules(items)


def check_variant(entry: registry.GameEntry, players: int | None, items: Sequence[str], flag: str = "--rules"):
    """``(spec, rules)``: the game's validated spec for ``players`` seats with the rules options of
    ``--rules``; UsageError quoting the game's own message for a bad option."""
    rules = check_rules(items, flag)
    try:
        spec = entry.spec(players, **rules)
    except ValueError as exc:
        raise UsageError(f"{flag} {shown(list(items))}: {one_line(str(exc))}") from exc
    return spec, rules


DEVICES = ("auto", "cpu", "cuda")
"""The values of ``--device``: ``auto`` is ``cuda`` where torch sees a CUDA device, else ``cpu``."""


def cuda_available() -> bool:
    """Whether torch sees a CUDA device (imports torch: called only where a device is asked for)."""
    import torch

    return bool(torch.cuda.is_available())


def check_device(value: Any, flag: str = "--device") -> str:
    """``value`` if it is one of :data:`DEVICES` and, for ``cuda``, a CUDA device is visible; UsageError
    otherwise. Imports torch only for ``cuda``, so the default ``auto`` is checked without it."""
    if value not in DEVICES:
        raise usage_error(flag, value, ", ".join(DEVICES))
    if value == "cuda" and not cuda_available():
        raise usage_error(flag, value, "auto, cpu (no CUDA device is visible to torch on this machine)")
    return value


def resolve_device(value: str) -> str:
    """The torch device a checked ``--device`` names: ``auto`` becomes ``cuda`` where a CUDA device is
    visible, else ``cpu``; ``cpu`` and ``cuda`` stay."""
    if value == "auto":
        return "cuda" if cuda_available() else "cpu"
    return value


def split_specs(flag: str, text: Any, example: str = "random,greedy") -> list[str]:
    """The comma-separated entries of ``--agents`` / ``--opponents`` (at least one)."""
    specs = [s.strip() for s in str(text).split(",") if s.strip()] if text is not None else []
    if not specs:
        raise usage_error(flag, text, f"comma-separated agent specs, e.g. {example}")
    return specs


def check_json_path(value: Any, flag: str = "--json") -> Path | None:
    """The file ``--json`` names (None when not given); refused at once when it is a folder, so a
    long run does not fail at its end."""
    if value is None or value == "":
        return None
    path = Path(value)
    if path.is_dir():
        raise usage_error(flag, str(value), "a file path (this is a folder)")
    return path


def write_json_file(path: str | Path, text: str) -> Path:
    """Writes ``text`` to ``path``, making its folder."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path
