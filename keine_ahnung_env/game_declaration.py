"""What a game says about itself, once: its :class:`GameDeclaration`.

Every game folder holds one, in ``games/<game>/game.py``::

    GAME = GameDeclaration(
        name="keine_ahnung_v0", title="Keine Ahnung / No Idea",
        min_players=2, max_players=5, default_players=4,
        make_spec="keine_ahnung_env.games.keine_ahnung.spec:game_spec",
        rules="keine_ahnung_env.games.keine_ahnung.config:Rules",
        module="keine_ahnung_env.keine_ahnung_v0", status="stable",
        presets={...}, shipped={4: {"learned": "advantage_4p", "search": "ismcts_4p"}})

and everything else reads it from there: the game registry (``registry.register_game(GAME)``), the
game's rules options (``config.py``: the player range and default), its spec (``spec.py``: name,
title, version, player range), its entry-point module (``<name>.py``), the commands' defaults and the
tests. Strings of the form ``"module:attribute"`` are imported on first use, so a declaration is
cheap to import and imports nothing of its game.
"""

from __future__ import annotations

import dataclasses
import importlib
import re
from typing import Any, Callable, Mapping

from .game_spec import AgentInfo, GameSpec

SHIPPED_ROLES = ("learned", "search")
"""The generic agent names a game maps to its shipped presets, per table size (``GameDeclaration.shipped``)."""


def resolve(target: Callable[..., Any] | str) -> Any:
    """``target`` itself, or the attribute a ``"module:attribute"`` string names (imported now)."""
    if not isinstance(target, str):
        return target
    module, attribute = target.split(":")
    return getattr(importlib.import_module(module), attribute)


@dataclasses.dataclass(frozen=True)
class GameDeclaration:
    """A game family: its name, player range and how to make the spec of a variant.

    The first five fields are positional (``GameDeclaration("tiny_v0", make_spec, 2, 3, 2)``); the
    registry's :class:`~keine_ahnung_env.registry.GameEntry` is this class.
    """

    name: str
    """the versioned name, e.g. ``"keine_ahnung_v0"``: the registry key and ``--env`` value."""
    make_spec: Callable[..., GameSpec] | str
    """``(num_players, **rules) -> GameSpec`` (validates the options), or ``"module:function"``."""
    min_players: int
    max_players: int
    default_players: int
    title: str = ""
    """a human name, e.g. ``"Keine Ahnung / No Idea"``."""
    module: str = ""
    """the module holding the entry points ``env``, ``raw_env``, ``solo_env``, ``sb3_vec_env``,
    ``vector_env`` (empty for a game without them)."""
    status: str = "stable"
    rules: type | str = ""
    """the rules options class (a :class:`~keine_ahnung_env.rules_options.RulesOptions`), or
    ``"module:Class"``; empty for a game without one."""
    presets: Mapping[str, AgentInfo] = dataclasses.field(default_factory=dict, hash=False)
    """named agents the game ships beyond its heuristics (trained models, tuned search), offered by
    ``agents.make(name, game=...)`` like the heuristics of ``GameSpec.agents``."""
    shipped: Mapping[int, Mapping[str, str]] = dataclasses.field(default_factory=dict, hash=False)
    """per table size, the preset that the generic names ``learned`` and ``search`` stand for
    (``{4: {"learned": "advantage_4p", "search": "ismcts_4p"}}``): ``agents.make("learned", game=...,
    num_players=4)`` builds it. A size or name absent here has no shipped agent of that kind."""

    def spec(self, num_players: int | None = None, **rules: Any) -> GameSpec:
        """The validated spec of one variant (default player count when ``num_players`` is None)."""
        num_players = self.default_players if num_players is None else num_players
        check_players(self, num_players)
        return resolve(self.make_spec)(num_players, **rules)

    @property
    def version(self) -> int:
        """The ``N`` of the name's ``_vN`` (0 for a name without one): checkpoints and replays record it."""
        match = re.search(r"_v(\d+)$", self.name)
        return int(match.group(1)) if match else 0

    @property
    def players(self) -> range:
        """The player counts the game seats."""
        return range(self.min_players, self.max_players + 1)

    @property
    def rules_class(self) -> type | None:
        """The rules options class (imported on first use); None where the game declares none."""
        return resolve(self.rules) if self.rules else None

    def check(self) -> None:
        """ValueError unless the player range holds the default (``1 <= min <= default <= max``)."""
        if not (1 <= self.min_players <= self.default_players <= self.max_players):
            raise ValueError(f"{self.name}: players {self.min_players}..{self.max_players} with default "
                             f"{self.default_players}; need 1 <= min <= default <= max")
        for num_players, roles in self.shipped.items():
            if num_players not in self.players:
                raise ValueError(f"{self.name}: shipped agents at {num_players!r} players; the game seats "
                                 f"{self.min_players}-{self.max_players}")
            for role, preset in roles.items():
                if role not in SHIPPED_ROLES:
                    raise ValueError(f"{self.name}: shipped agent kind {role!r}; allowed: {', '.join(SHIPPED_ROLES)}")
                if preset not in self.presets:
                    raise ValueError(f"{self.name}: the shipped {role!r} agent at {num_players} players is "
                                     f"{preset!r}, which is not one of its presets ({', '.join(self.presets) or 'none'})")


def check_players(entry: GameDeclaration, num_players: Any) -> int:
    """``num_players`` as an int if the game seats that many; ValueError naming the range otherwise."""
    if isinstance(num_players, bool) or not isinstance(num_players, int) or num_players not in entry.players:
        import numpy as np

        if isinstance(num_players, np.integer) and int(num_players) in entry.players:
            return int(num_players)
        raise ValueError(f"num_players={num_players!r} for {entry.name}; allowed: integers "
                         f"{entry.min_players}-{entry.max_players}")
    return num_players
