"""tiny_v0 through the game door: the :class:`~keine_ahnung_env.game_spec.GameSpec` of a variant."""

from __future__ import annotations

from typing import Any

import numpy as np

from keine_ahnung_env.game_spec import AdvantageRecipe, AgentInfo, EpisodeStats, GameHooks, GameSpec, StatColumn

from .actions import ACTION_NAMES, NUM_ACTIONS, PASS
from .agents import HighCardAgent
from .belief import TinyBelief
from .config import Rules
from .core import TinyCore
from .game import GAME
from .observation import observation_high, observation_string
from .play import TinyPlay
from .render import render_table

AGENTS = {"high_card": AgentInfo(HighCardAgent, description="plays its best card when it beats the table")}

EPISODE_STATS = EpisodeStats(  # passes of each seat, and its points at the end
    counters=("passes",), finals=("points",), final=lambda core: core.points[:, :, None].copy(),
    before_step=lambda core, actions, active: (np.asarray(active, bool) & ~core.done & (np.asarray(actions) == PASS)
                                               )[:, None] & (np.arange(core.num_players) == core.current[:, None]),
    after_step=lambda core, passed: passed[:, :, None].astype(np.int64),
    columns=(StatColumn("passes_per_game", "pass/g", "passes"), StatColumn("mean_points", "pts", "points")))


def advantage_recipes(observation_size: int) -> dict[str, AdvantageRecipe]:
    """The game's one advantage recipe (data, read by ``training.advantage``): ``pass``, may ``high_card``
    pass instead of playing its best card (or play instead of passing)? The network reads the whole
    scaled observation (the ``raw`` feature set every game has)."""
    return {"pass": AdvantageRecipe(base="high_card", opponents="high_card", action="PASS", features="raw",
                                    gate_column=None, gate_low=0.0, gate_high=0.0, inputs=((0, observation_size),))}


def game_spec(num_players: int = GAME.default_players, **rules: Any) -> GameSpec:
    """The spec of a variant; the one rules option is ``rounds`` (1-2)."""
    variant = Rules.make(num_players, **rules)
    P, rounds = variant.num_players, variant.rounds
    return GameSpec(
        name=GAME.name, title=GAME.title, version=GAME.version, num_players=P, min_players=GAME.min_players,
        max_players=GAME.max_players, num_actions=NUM_ACTIONS, action_names=ACTION_NAMES,
        observation_high=observation_high(P, rounds), make_core=lambda n, seed: TinyCore(n, P, rounds, seed),
        standings=lambda core: core.points, render=render_table, observation_string=observation_string,
        rules=variant.options(), episode_stats=EPISODE_STATS, agents=AGENTS,
        hooks=GameHooks(belief=TinyBelief(P, rounds), play=TinyPlay(),
                        advantage=advantage_recipes(observation_high(P, rounds).size)))
