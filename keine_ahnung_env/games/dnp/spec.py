"""dnp through the game door: the :class:`~keine_ahnung_env.game_spec.GameSpec` of a variant."""

from __future__ import annotations

from types import MappingProxyType
from typing import Any

import numpy as np

from ...game_spec import AdvantageRecipe, AgentInfo, EpisodeStats, GameHooks, GameSpec, StatColumn
from .actions import ActionLayout
from .belief import DnpBelief
from .config import Rules
from .core import DnpCore
from .game import GAME
from .observation import OBSERVATION_VERSION, ObservationLayout, observation_string
from .play import DnpPlay
from .picture import table_scene
from .render import describe_move, render_table, terminal_view

NAME = GAME.name
TITLE = GAME.title

_AGENTS = "keine_ahnung_env.games.dnp.agents"
AGENTS = {
    "shedder": AgentInfo(f"{_AGENTS}:ShedderAgent", description="plays its largest legal set, beats sets when it can"),
    "tactician": AgentInfo(f"{_AGENTS}:TacticianAgent",
                           description="the strongest heuristic (safe sets, beats near-finishers, turns by plan)"),
}


def _moves_before(core, actions: np.ndarray, active: np.ndarray):
    """Which games make a move of kind A/B/C/D now, and by which seat."""
    L = core.actions
    a = np.asarray(actions)
    rows = np.flatnonzero(np.asarray(active, bool) & ~core.done & (a >= L.play))
    act = a[rows]
    kind = np.where(act == L.play, 0, np.where(act < L.take_base, 1, np.where(act < L.turn, 2, 3)))
    return rows, core.current[rows].astype(np.intp), kind


def _moves_after(core, token) -> np.ndarray:
    rows, seats, kind = token
    out = np.zeros((core.num_envs, core.num_players, 4), np.int64)
    np.add.at(out, (rows, seats, kind), 1)
    return out


EPISODE_STATS = EpisodeStats(
    counters=("plays", "adds", "takes", "turns"), before_step=_moves_before, after_step=_moves_after,
    finals=("points",), final=lambda core: np.asarray(core.points, np.int64)[:, :, None],
    columns=(StatColumn("mean_points", "pts", "points", long_header="mean points"),
             StatColumn("plays_per_game", "A/g", "plays", long_header="sets played/game"),
             StatColumn("adds_per_game", "B/g", "adds", long_header="cards added/game"),
             StatColumn("takes_per_game", "C/g", "takes", long_header="sets taken/game"),
             StatColumn("turns_per_game", "D/g", "turns", long_header="hands turned/game")))
"""Moves of each kind per seat (A play, B add, C take, D turn) and points (round wins) at the end."""


def _feature_sets() -> dict:
    """``spec -> DnpFeatures`` per feature set ("raw", "advice"; ``features.py``), imported on first use."""
    def maker(kind: str):
        def make(spec: GameSpec):
            from .features import DnpFeatures

            return DnpFeatures(kind, spec.num_players, spec.rules)

        return make

    return {kind: maker(kind) for kind in ("raw", "advice", "belief")}


def _advantage(layout: ObservationLayout, actions: ActionLayout, num_players: int) -> MappingProxyType:
    """The advantage recipes of a variant (``GameSpec.advantage``), columns of the "belief" feature set:
    the observation, the tactician's move as a one-hot over the actions, then the belief block.

    ``turn``: at the start of a move (no selection) where something besides turning the hand is legal,
    may ``tactician`` turn its hand (TURN, dnp's way of passing) instead of its best move, or move
    instead of turning? Where its best other move is taking a set (which it never chooses: with nothing
    else to play, its fallback takes one at random) the tactician decides. The network reads the acting seat, the area, the players' counts, the table's
    sets and the own hand's values, whether the tactician turns, and the belief block (what each
    opponent can still hold)."""
    from .deck import MAX_VALUE

    advice = layout.size
    belief_width = (num_players - 1) * (actions.num_cards + MAX_VALUE)
    inputs = ((0, layout.slice("hand_values").stop), (advice + actions.turn, advice + actions.turn + 1),
              (advice + actions.num_actions, advice + actions.num_actions + belief_width))
    return MappingProxyType({
        "turn": AdvantageRecipe(base="tactician", opponents="tactician", action="TURN", features="belief",
                                gate_column=None, gate_low=0.0, gate_high=0.0, inputs=inputs,
                                other_not=tuple(name for name in actions.names() if name.startswith("TAKE_"))),
    })


TRAINING_RECIPE = MappingProxyType({
    # Residual learning from the strongest heuristic: the policy reads the tactician's move (the advice
    # features) and first imitates the tactician, so PPO starts at its level (figures: docs/results.md) ...
    "features": "advice",
    "imitate": "tactician",
    "imitation_games": 600,
    # The policy must learn to copy a one-hot over about 50 moves: 4 passes over 300 games' decisions
    # copy 74% of them, 12 passes 99.6%, 30 passes all (a few seconds a pass on one core).
    "imitation_epochs": 30,
    # ... then gentle PPO (small steps, tight clipping, no entropy bonus: a large update forgets the
    # imitated play) against a pool where the tactician sits in three seats of four and the shedder
    # in the rest.
    "opponents": "tactician,tactician,tactician,shedder",
    "learning_rate": 5e-5,
    "clip_range": 0.1,
    "ent_coef": 0.0,
    "gamma": 0.999,
    # A small network: the policy copies a one-hot it is handed.
    "net_arch": "64,64",
    "num_envs": 128,
    "n_steps": 64,
    "batch_size": 2048,
    # Within 15 minutes on 2 cores in all: the heuristics are plain Python (about 0.4 ms a decision,
    # the advice one more per learner decision), so the PPO phase stops after 6 minutes.
    "total_timesteps": 1_000_000,
    "max_minutes": 6.0,
    "eval_every": 10,
    "final_opponents": "tactician,shedder",
    "final_games": 1000,
})
"""What ``python -m training.train`` does for this game unless told otherwise (``GameSpec.training_recipe``;
``--recipe plain`` gives the generic defaults)."""


def game_spec(num_players: int = GAME.default_players, **rules: Any) -> GameSpec:
    """The variant as every game-independent layer sees it; validates the options (``Rules``)."""
    variant = Rules.make(num_players, **rules)
    tables = variant.tables()
    layout = ObservationLayout.make(variant.num_players, tables.num_cards)
    actions = ActionLayout(tables.num_cards, variant.num_players)
    return GameSpec(
        name=GAME.name, title=GAME.title, version=GAME.version, num_players=variant.num_players,
        min_players=GAME.min_players, max_players=GAME.max_players, num_actions=actions.num_actions,
        action_names=actions.names(),
        observation_high=layout.high(variant.target), observation_version=OBSERVATION_VERSION,
        make_core=lambda n, s: DnpCore(n, variant, seed=s),
        standings=lambda core: np.asarray(core.points, np.int64),
        render=lambda core, b, reveal_all: render_table(core, b, reveal_all=reveal_all),
        observation_string=lambda obs: observation_string(np.asarray(obs, np.float32), layout, tables),
        rules=variant.options(), policy_neutral_rules=("reward", "max_turns"), episode_stats=EPISODE_STATS,
        feature_sets=_feature_sets(), default_features="raw",
        agents=AGENTS, default_opponent="tactician", describe_move=describe_move, terminal_view=terminal_view,
        hooks=GameHooks(belief=DnpBelief(variant), play=DnpPlay(variant),
                        advantage=_advantage(layout, actions, variant.num_players), training_recipe=TRAINING_RECIPE),
        scene=table_scene)
