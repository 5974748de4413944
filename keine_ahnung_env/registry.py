"""The game registry: every command, agent and test finds a game here by its name.

    from keine_ahnung_env import registry
    registry.games()                                   # ['dnp_v0', 'gap_v0', 'keine_ahnung_v0']
    spec = registry.game_spec("keine_ahnung_v0", 3, memory="none")
    registry.game("keine_ahnung_v0").module            # the module with env/raw_env/solo_env/...

A game declares itself once, in its folder (``games/<game>/game.py``: a
:class:`~keine_ahnung_env.game_declaration.GameDeclaration`, which :class:`GameEntry` names here); the
built-in games' declarations are registered on import of ``keine_ahnung_env``. A game defined
elsewhere (a test, a user's package) calls :func:`register_game` with its declaration and is then
accepted by ``--env`` everywhere in the same process.
"""

from __future__ import annotations

import importlib
from typing import Any

from .game_declaration import GameDeclaration, check_players  # noqa: F401 (check_players: re-exported)
from .game_spec import GameSpec, set_spec_finder
from .games.dnp.game import GAME as DNP
from .games.gap.game import GAME as GAP
from .games.keine_ahnung.game import GAME as KEINE_AHNUNG


GameEntry = GameDeclaration
"""A registered game family: its declaration (name, player range, how to make the spec of a variant)."""

DEFAULT_GAME = KEINE_AHNUNG.name
"""The game a command plays when the user names none."""

_GAMES: dict[str, GameEntry] = {}


def register_game(entry: GameEntry, replace: bool = False) -> GameEntry:
    """Adds ``entry`` under ``entry.name``; re-registering a name needs ``replace=True``."""
    if not isinstance(entry, GameEntry):
        raise ValueError(f"register_game takes a GameEntry; got {type(entry).__name__}")
    if entry.name in _GAMES and not replace and _GAMES[entry.name] != entry:
        raise ValueError(f"a game named {entry.name!r} is registered already; pass replace=True to replace it")
    entry.check()
    _GAMES[entry.name] = entry
    return entry


def unregister_game(name: str) -> None:
    """Removes a registered game (tests that register their own games clean up with this)."""
    _GAMES.pop(name, None)


def games() -> list[str]:
    """The registered game names, sorted."""
    return sorted(_GAMES)


def game(name: str) -> GameEntry:
    """The entry of game ``name``; ValueError lists the registered games."""
    if not isinstance(name, str) or name not in _GAMES:
        raise ValueError(f"unknown game {name!r}; registered games: {', '.join(games())}")
    return _GAMES[name]


def game_spec(name: str, num_players: int | None = None, **rules: Any) -> GameSpec:
    """The validated spec of game ``name`` with ``num_players`` seats and these rules options."""
    return game(name).spec(num_players, **rules)


def default_players(name: str = DEFAULT_GAME) -> int:
    """The player count game ``name`` seats unless told otherwise (its declaration's default)."""
    return game(name).default_players


def game_hook(game: str | GameSpec, attribute: str, what: str, needed_by: str = "") -> Any:
    """The hook ``attribute`` of ``game`` (a registered name or a spec): one of :class:`GameHooks`'
    ``search``, ``belief``, ``ceiling``, ``advantage``, ``training_recipe`` (``spec.hooks``), or
    another optional field of the spec (``scene``, ``privileged``); where
    the game offers none, ValueError "<game> offers no <what> (GameSpec.<attribute>)<needed_by>; games
    that offer it: ..." naming the registered games that do (for an unknown name, the registered
    games)."""
    spec = game if isinstance(game, GameSpec) else game_spec(game)
    value = getattr(spec, attribute)
    if value is None:
        able = [name for name in games() if getattr(game_spec(name), attribute) is not None]
        raise ValueError(f"{spec.name} offers no {what} (GameSpec.{attribute}){needed_by}; games that offer it: "
                         f"{', '.join(able) or 'none'}")
    return value


def entry_points(name: str):
    """The module with game ``name``'s entry points (``env``, ``raw_env``, ``solo_env``, ...)."""
    entry = game(name)
    if not entry.module:
        raise ValueError(f"{name} has no entry-point module")
    return importlib.import_module(entry.module)


set_spec_finder(game_spec)
for _declaration in (KEINE_AHNUNG, GAP, DNP):
    register_game(_declaration)
