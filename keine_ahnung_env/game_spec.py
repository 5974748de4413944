"""What the generic user-facing wrappers need to know about one game variant.

The PettingZoo AEC environment (``aec.py``), the Gymnasium single-learner environment (``solo.py``)
and the Stable-Baselines3 vector environment (``sb3_vec.py``) are written once, against a batched
core and a :class:`GameSpec`. Each game module (``keine_ahnung_v0`` today, the gap game and dnp
next) builds a spec from its validated rules and passes it in; no wrapper knows or re-implements a
rule.

A core is any object with the fields and methods of ``KeineAhnungCore`` that the wrappers use:
``num_envs``, ``num_players``, ``current`` [B], ``legal_mask`` [B, A], ``rewards`` [B, P],
``terminated`` [B], ``truncated`` [B], ``scores`` [B, P], ``step(actions, active=None)``,
``reset_games(indices)``, ``seed(seed, indices=None)`` and ``observe(seats, games=None) -> [B, O]``
(with ``games``, only those rows: ``[len(games), O]``).
"""

from __future__ import annotations

import dataclasses
from typing import Any, Callable, Sequence

import numpy as np

RENDER_MODES = ("human", "ansi")
"""Text rendering modes of every wrapper: "ansi" returns the table, "human" prints it."""


@dataclasses.dataclass(frozen=True, eq=False)
class GameSpec:
    """One game variant as the wrappers see it.

    Attributes:
      name: the versioned environment name, e.g. ``"keine_ahnung_v0"``.
      num_players: seats per game.
      num_actions: size of the discrete action space (A).
      observation_high: [O] float32 upper bound of every observation feature (lower bounds are 0).
      make_core: ``(num_envs, seed) -> core``; game i of the core is reproducible from ``(seed, i)``.
      action_name: readable name of an action id (for error messages).
      render: ``(core, game, reveal_all) -> str``, the table of one game as text; face-down cards
        hidden unless ``reveal_all``.
      winners: ``core -> [B, P] bool``, the seats that share the win by the final standings
        (read only for games that terminated).
      rules: the variant's rules options (for reprs and checkpoints).
      call_action: the action whose outcome the drivers count per episode (Keine Ahnung: the
        "Nothing fits anymore!" call), or None.
      trophies: ``core -> [B, P]`` trophies held, whose rise right after ``call_action`` counts as a
        successful call; None when ``call_action`` is None.

    A spec is immutable: ``copy``/``deepcopy`` return it unchanged. It pickles as its name, player
    count and rules and is rebuilt by ``keine_ahnung_env.<name>.game_spec(num_players, **rules)``
    (every game module provides that function), so environments holding one can be pickled.
    """

    name: str
    num_players: int
    num_actions: int
    observation_high: np.ndarray
    make_core: Callable[[int, int | None], Any]
    action_name: Callable[[int], str]
    render: Callable[[Any, int, bool], str]
    winners: Callable[[Any], np.ndarray]
    rules: dict = dataclasses.field(default_factory=dict)
    call_action: int | None = None
    trophies: Callable[[Any], np.ndarray] | None = None

    def __copy__(self) -> "GameSpec":
        return self

    def __deepcopy__(self, memo: dict) -> "GameSpec":
        return self

    def __reduce__(self):
        rules = {k: v for k, v in self.rules.items() if k != "num_players"}
        return rebuild_game_spec, (self.name, self.num_players, rules)

    @property
    def observation_size(self) -> int:
        """Length O of one observation vector."""
        return int(self.observation_high.shape[0])

    @property
    def observation_scale(self) -> np.ndarray:
        """[O] float32 ``1 / high``: multiplies an observation into [0, 1]."""
        return (1.0 / self.observation_high).astype(np.float32)

    @property
    def agent_names(self) -> list[str]:
        """``player_0 ... player_{P-1}``: seat p is ``player_p``."""
        return [f"player_{p}" for p in range(self.num_players)]

    def legal_names(self, mask: np.ndarray) -> str:
        """The legal actions of one [A] mask as ``"id (NAME), ..."`` for error messages."""
        return ", ".join(f"{a} ({self.action_name(a)})" for a in np.flatnonzero(mask).tolist())


def rebuild_game_spec(name: str, num_players: int, rules: dict) -> GameSpec:
    """The spec of game module ``keine_ahnung_env.<name>`` for these options (used by unpickling)."""
    import importlib

    module = importlib.import_module(f"keine_ahnung_env.{name}")
    return module.game_spec(num_players, **rules)


def check_render_mode(render_mode: str | None, allowed: Sequence[str] = RENDER_MODES) -> str | None:
    """Returns ``render_mode`` if it is None or one of ``allowed``; raises ValueError otherwise."""
    if render_mode is not None and render_mode not in allowed:
        raise ValueError(f"render_mode={render_mode!r}; allowed: None, {', '.join(map(repr, allowed))}")
    return render_mode


def check_bool(name: str, value: Any) -> bool:
    """Returns ``value`` if it is a bool; raises ValueError naming the option otherwise."""
    if not isinstance(value, bool):
        raise ValueError(f"{name}={value!r}; allowed: True or False")
    return value
