"""Keine Ahnung through the game door: the :class:`~keine_ahnung_env.game_spec.GameSpec` of a variant.

Everything the game-independent layers know of Keine Ahnung comes from :func:`game_spec`: the engine
(``core.py``), the results (``scoring.py``), the text views (``render.py``, ``observation.py``), the
statistics its tournaments report (calls, successful calls, trophies), the policy feature sets
(``features.py``), the oracle critic's hidden inputs (``privileged.py``), the heuristic agents
(``agents.py``), the roll-out planner's hooks (``search.py``) and a seat's exact beliefs (``belief.py``).
"""

from __future__ import annotations

from types import MappingProxyType
from typing import Any

import numpy as np

from ...game_spec import AdvantageRecipe, AgentInfo, EpisodeStats, GameHooks, GameSpec, StatColumn
from .actions import ACTION_CALL, NUM_ACTIONS, action_name
from .config import SLOTS, Rules
from .core import KeineAhnungCore
from .features import HINT_WIDTH, feature_sets
from .picture import table_scene
from .observation import OBSERVATION_VERSION, ObservationLayout, observation_string
from .privileged import privileged_features, privileged_size
from .render import describe_move, render_table, terminal_view
from .scoring import standings_key
from .ceiling import CEILING
from .search import SEARCH
from .belief import belief_for
from .play import PLAY
from .game import GAME

NAME = GAME.name
TITLE = GAME.title
ACTION_NAMES = tuple(action_name(a) for a in range(NUM_ACTIONS))

_AGENTS = "keine_ahnung_env.games.keine_ahnung.agents"
AGENTS = {
    "never_call": AgentInfo(f"{_AGENTS}:NeverCallAgent", description="reveals unknown cards, never calls"),
    "always_call": AgentInfo(f"{_AGENTS}:AlwaysCallAgent", description="reveals unknown cards, calls whenever allowed"),
    "greedy": AgentInfo(f"{_AGENTS}:GreedyAgent", description="plays known fitting cards, calls only when sure"),
    "risk_caller": AgentInfo(f"{_AGENTS}:RiskCallerAgent", positional=("threshold",),
                             description="greedy, calls when the success probability >= threshold"),
    "counter": AgentInfo(f"{_AGENTS}:CounterAgent", description="the strongest heuristic (card counting, tuned calls)"),
    "counter_tuned": AgentInfo(f"{_AGENTS}:TunedCounterAgent",
                               description="counter with lower call thresholds, tuned against counter"),
}
"""The heuristic agents, offered by ``agents.make(name, game="keine_ahnung_v0")``."""


def _calls_before(core, actions: np.ndarray, active: np.ndarray):
    """Which games call now, by which seat, and that seat's trophies before the call."""
    rows = np.flatnonzero(active & ~core.done & (np.asarray(actions) == ACTION_CALL))
    seats = core.current[rows].astype(np.intp)
    return rows, seats, core.trophy_count[rows, seats].copy()


def _calls_after(core, token) -> np.ndarray:
    """[B, P, 2] this step's calls and successful calls (a success: the caller's trophy count rose)."""
    rows, seats, before = token
    out = np.zeros((core.num_envs, core.num_players, 2), np.int64)
    out[rows, seats, 0] = 1
    out[rows, seats, 1] = core.trophy_count[rows, seats] > before
    return out


EPISODE_STATS = EpisodeStats(
    counters=("calls", "call_successes"), before_step=_calls_before, after_step=_calls_after,
    finals=("trophies",), final=lambda core: np.asarray(core.trophy_count, np.int64)[:, :, None],
    columns=(StatColumn("mean_trophies", "troph", "trophies", long_header="mean trophies"),
             StatColumn("calls_per_game", "calls/g", "calls", long_header="calls/game"),
             StatColumn("call_success_rate", "call ok%", "call_successes", "calls", percent=True,
                        long_header="call success %")))
"""Calls of "Nothing fits anymore!", the calls that won a trophy, and trophies held at the end."""


TRAINING_RECIPE = MappingProxyType({
    # Residual learning from the strongest heuristic: the policy reads counter_tuned's move (the
    # advice_tuned features) and first imitates counter_tuned, so PPO starts at its level (two
    # runs of this recipe won 25.8% [25.5, 26.1] of 100,000 fresh games each against three counters,
    # where the same recipe on counter's advice gave 25.2%; docs/skill_ceiling.md) ...
    "features": "advice_tuned",
    "imitate": "counter_tuned",
    "imitation_games": 1000,
    "imitation_epochs": 4,
    # counter(_tuned) reveals one of its unknown cards at random: asked 8 times per decision it names the
    # alike cards, and the policy learns that set (else another move can top each 1/k share).
    "imitation_samples": 8,
    # ... then gentle PPO (small steps, tight clipping, no entropy bonus: a large update forgets the
    # imitated calling, which is what the game's skill is) against a pool where counter sits in half
    # the seats and the other callers in the rest.
    "opponents": "counter,counter,greedy,risk_caller:0.5",
    "learning_rate": 5e-5,
    "clip_range": 0.1,
    "ent_coef": 0.0,
    "gamma": 0.999,
    # A small network: the policy copies a one-hot it is handed, and 64,64 plays as 256,256 did (25.8%
    # of the same 100,000 fresh games each, seed 82004) at 1.7x the PPO phase's speed (docs/training.md).
    "net_arch": "64,64",
    "num_envs": 256,
    "n_steps": 64,
    "batch_size": 4096,
    # At most about ten minutes on 2 cores in all: the PPO phase stops at 1,000,000 decisions (3.7 minutes
    # in the README's 21:21 run) or 7 minutes.
    "total_timesteps": 1_000_000,
    "max_minutes": 7.0,
    "eval_every": 10,
    # The final tournament: against three counters and three randoms, and a league where the agent,
    # counter, greedy and risk_caller:0.5 share every table; 3000 games each (intervals +-1.6 points).
    "final_opponents": "counter,random",
    "final_league": "counter,greedy,risk_caller:0.5",
    "final_games": 3000,
})
"""What ``python -m training.train`` does for this game unless told otherwise (``GameSpec.training_recipe``;
``--recipe plain`` gives the generic defaults). Measured: docs/training.md#the-default-recipe."""


def advantage_recipes(layout: ObservationLayout) -> MappingProxyType:
    """Where a network may overrule counter_tuned (``GameSpec.advantage``), against ``counter``s; each
    network reads the table counts, the players' trophies and prizes, its own trophy points (the
    standings), the hints and counter_tuned's move (the ``advice_tuned`` features, ``features.py``):

    * ``call``: whether to call "Nothing fits anymore!", at decisions whose call succeeds with a chance
      from 0.2 to 0.99 (the first hint), about 1.2 decisions a game at 4 players. Below 0.2 a call almost
      always fails, and a sure call is always right, so the roll-outs are spent in between.
    * ``reserve``: whether to play a card of one's layout known to fit a pile now (the hints' "own
      known cards that fit", slots 0-5) or to make counter_tuned's best other move, usually revealing an
      unknown card while the known ones are kept back (counter's "reserve" rule); about 10 decisions a
      game at 4 players. Where that other move is a call, playing the card first is the plan itself, and
      counter_tuned decides.

    docs/skill_ceiling.md."""
    hints = layout.size
    width = hints + HINT_WIDTH + NUM_ACTIONS  # the advice features: observation, hints, the adviser's move
    inputs = ((layout.slice("table_counts").start, layout.slice("own_trophy_points").stop), (hints, width))
    known_fit = (hints + 3, hints + 3 + SLOTS)  # hints: success, fit, prize, known fitting (6), known misfits (6)
    return MappingProxyType({
        "call": AdvantageRecipe(base="counter_tuned", opponents="counter", action="CALL", features="advice_tuned",
                                gate_column=hints, gate_low=0.2, gate_high=0.99, inputs=inputs),
        "reserve": AdvantageRecipe(base="counter_tuned", opponents="counter", action="REVEAL_0",
                                   features="advice_tuned", gate_column=None, gate_low=0.0, gate_high=0.0,
                                   inputs=inputs, take_flags=known_fit, other_not=("CALL",)),
    })


def game_spec(num_players: int = GAME.default_players, **rules: Any) -> GameSpec:
    """The variant as every game-independent layer sees it; validates the options (``Rules``)."""
    variant = Rules.make(num_players, **rules)
    tables = variant.tables()
    layout = ObservationLayout.for_tables(variant.num_players, tables)
    return GameSpec(
        name=GAME.name,
        title=GAME.title,
        version=GAME.version,
        num_players=variant.num_players,
        min_players=GAME.min_players,
        max_players=GAME.max_players,
        num_actions=NUM_ACTIONS,
        action_names=ACTION_NAMES,
        observation_high=layout.high(tables).astype(np.float32),
        observation_version=OBSERVATION_VERSION,
        make_core=lambda n, s: KeineAhnungCore(n, variant, seed=s),
        standings=lambda core: standings_key(core.scores, core.holdings),
        render=lambda core, b, reveal_all: render_table(core, b, reveal_all=reveal_all),
        observation_string=lambda obs: observation_string(np.asarray(obs, np.float32), layout, tables),
        rules=variant.options(),
        policy_neutral_rules=("reward", "max_turns"),
        episode_stats=EPISODE_STATS,
        feature_sets=feature_sets(),
        default_features="hints",
        privileged_size=privileged_size(variant.num_players),
        privileged=privileged_features,
        agents=AGENTS,
        default_opponent="greedy",
        describe_move=describe_move, terminal_view=terminal_view,
        scene=table_scene,
        older_observations={1: ObservationLayout.for_tables(variant.num_players, tables, version=1).size},
        hooks=GameHooks(search=SEARCH, belief=belief_for(variant), play=PLAY, ceiling=CEILING,
                        advantage=advantage_recipes(layout), training_recipe=TRAINING_RECIPE),
    )
