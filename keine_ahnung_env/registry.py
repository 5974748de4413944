"""The game registry: every command, agent and test finds a game here by its name.

    from keine_ahnung_env import registry
    registry.games()                                   # ['keine_ahnung_v0', ...]
    spec = registry.game_spec("keine_ahnung_v0", 3, memory="none")
    registry.game("keine_ahnung_v0").module            # the module with env/raw_env/solo_env/...

A game registers one :class:`GameEntry` (the built-in games below, on import of
``keine_ahnung_env``); a game defined elsewhere (a test, a user's package) calls
:func:`register_game` and is then accepted by ``--env`` everywhere in the same process.
"""

from __future__ import annotations

import dataclasses
import importlib
from typing import Any, Callable

from .game_spec import GameSpec


@dataclasses.dataclass(frozen=True)
class GameEntry:
    """A registered game family: its name, player range and how to make the spec of a variant."""

    name: str
    """the versioned name, e.g. ``"keine_ahnung_v0"``."""
    make_spec: Callable[..., GameSpec] | str
    """``(num_players, **rules) -> GameSpec`` (validates the options), or ``"module:function"``."""
    min_players: int
    max_players: int
    default_players: int
    title: str = ""
    module: str = ""
    """the module holding the entry points ``env``, ``raw_env``, ``solo_env``, ``sb3_vec_env``,
    ``vector_env`` (empty for a game without them)."""
    status: str = "stable"

    def spec(self, num_players: int | None = None, **rules: Any) -> GameSpec:
        """The validated spec of one variant (default player count when ``num_players`` is None)."""
        num_players = self.default_players if num_players is None else num_players
        check_players(self, num_players)
        factory = self.make_spec
        if isinstance(factory, str):
            module, attribute = factory.split(":")
            factory = getattr(importlib.import_module(module), attribute)
        return factory(num_players, **rules)

    @property
    def players(self) -> range:
        return range(self.min_players, self.max_players + 1)


_GAMES: dict[str, GameEntry] = {}


def register_game(entry: GameEntry, replace: bool = False) -> GameEntry:
    """Adds ``entry`` under ``entry.name``; re-registering a name needs ``replace=True``."""
    if not isinstance(entry, GameEntry):
        raise ValueError(f"register_game takes a GameEntry; got {type(entry).__name__}")
    if entry.name in _GAMES and not replace and _GAMES[entry.name] != entry:
        raise ValueError(f"a game named {entry.name!r} is registered already; pass replace=True to replace it")
    if not (1 <= entry.min_players <= entry.default_players <= entry.max_players):
        raise ValueError(f"{entry.name}: players {entry.min_players}..{entry.max_players} with default "
                         f"{entry.default_players}; need 1 <= min <= default <= max")
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


def check_players(entry: GameEntry, num_players: Any) -> int:
    """``num_players`` as an int if the game seats that many; ValueError naming the range otherwise."""
    if isinstance(num_players, bool) or not isinstance(num_players, int) or num_players not in entry.players:
        import numpy as np

        if isinstance(num_players, np.integer) and int(num_players) in entry.players:
            return int(num_players)
        raise ValueError(f"num_players={num_players!r} for {entry.name}; allowed: integers "
                         f"{entry.min_players}-{entry.max_players}")
    return num_players


def game_spec(name: str, num_players: int | None = None, **rules: Any) -> GameSpec:
    """The validated spec of game ``name`` with ``num_players`` seats and these rules options."""
    return game(name).spec(num_players, **rules)


def game_hook(game: str | GameSpec, attribute: str, what: str, needed_by: str = "") -> Any:
    """``GameSpec.<attribute>`` of ``game`` (a registered name or a spec), e.g. ``search``, ``belief``,
    ``ceiling`` or ``advantage``; where the game offers none, ValueError "<game> offers no <what>
    (GameSpec.<attribute>)<needed_by>; games that offer it: ..." naming the registered games that do
    (for an unknown name, the registered games)."""
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


register_game(GameEntry(
    name="keine_ahnung_v0", make_spec="keine_ahnung_env.games.keine_ahnung.spec:game_spec",
    min_players=2, max_players=5, default_players=4, title="Keine Ahnung / No Idea",
    module="keine_ahnung_env.keine_ahnung_v0"))

register_game(GameEntry(
    name="gap_v0", make_spec="keine_ahnung_env.games.gap.spec:game_spec",
    min_players=2, max_players=5, default_players=4, title="The gap game",
    module="keine_ahnung_env.gap_v0", status="stable"))
register_game(GameEntry(
    name="dnp_v0", make_spec="keine_ahnung_env.games.dnp.spec:game_spec",
    min_players=2, max_players=5, default_players=4, title="dnp (dnup)",
    module="keine_ahnung_env.dnp_v0", status="stable"))
