"""The gap game through the game door: the :class:`~keine_ahnung_env.game_spec.GameSpec` of a variant.

Everything the game-independent layers know of the gap game comes from :func:`game_spec`: the engine
(``core.py``), the results (``scoring.py``), the text views (``render.py``, ``observation.py``), the
statistics its tournaments report (gap plays, passes, rounds gone out), the policy feature sets
(``features.py``), the oracle critic's hidden inputs (``privileged.py``) and the heuristic agents
(``agents.py``).
"""

from __future__ import annotations

from types import MappingProxyType
from typing import Any

import numpy as np

from ...game_spec import AdvantageRecipe, AgentInfo, EpisodeStats, GameHooks, GameSpec, StatColumn
from .actions import ACTION_PASS, NUM_ACTIONS, Phase, action_name
from .belief import GapBelief
from .play import GapPlay
from .config import Rules
from .core import GapCore
from .deck import CARD_COLOUR, CARD_NUMBER
from .game import GAME
from .observation import OBSERVATION_VERSION, ObservationLayout, observation_string
from .privileged import privileged_features, privileged_size
from .picture import table_scene
from .render import describe_move, render_table, terminal_view
from .scoring import standings

NAME = GAME.name
TITLE = GAME.title
ACTION_NAMES = tuple(action_name(a) for a in range(NUM_ACTIONS))

_AGENTS = "keine_ahnung_env.games.gap.agents"
AGENTS = {
    "gap_hunter": AgentInfo(f"{_AGENTS}:GapHunterAgent",
                            description="gap plays leaving the smallest gap, sheds and hides high-star cards"),
    "planner": AgentInfo(f"{_AGENTS}:PlannerAgent",
                         description="the strongest heuristic: plans the whole turn's chain, counts cards"),
}
"""The heuristic agents, offered by ``agents.make(name, game="gap_v0")``."""


def _counts_before(core, actions: np.ndarray, active: np.ndarray):
    """[B, P, 2] this step's gap plays and passes (read before the step changes the tops)."""
    B, P = core.num_envs, core.num_players
    a = np.asarray(actions).astype(np.int64)
    live = np.asarray(active, bool) & ~core.done & (core.phase == Phase.PLAY)
    out = np.zeros((B, P, 2), np.int64)
    rows = np.arange(B)
    seat = core.current.astype(np.intp)
    play = live & (a >= 0) & (a < ACTION_PASS)
    card = np.where(play, a // 2, 0)
    t0, t1 = core.pile_top[:, 0].astype(np.intp), core.pile_top[:, 1].astype(np.intp)
    n, n0, n1 = CARD_NUMBER[card], CARD_NUMBER[t0], CARD_NUMBER[t1]
    col = CARD_COLOUR[card]
    gap = play & (col != CARD_COLOUR[t0]) & (col != CARD_COLOUR[t1]) & (n > np.minimum(n0, n1)) & (n < np.maximum(n0, n1))
    out[rows, seat, 0] = gap
    out[rows, seat, 1] = live & (a == ACTION_PASS)
    return out


EPISODE_STATS = EpisodeStats(
    counters=("gap_plays", "passes"), before_step=_counts_before, after_step=lambda core, token: token,
    finals=("went_out",), final=lambda core: np.asarray(core.went_out, np.int64)[:, :, None],
    columns=(StatColumn("gap_plays_per_game", "gaps/g", "gap_plays", long_header="gap plays/game"),
             StatColumn("passes_per_game", "pass/g", "passes", long_header="passes/game"),
             StatColumn("rounds_out_per_game", "out/g", "went_out", long_header="rounds gone out/game")))
"""Gap plays and passes of each seat, and the rounds it ended by laying its last card."""


TRAINING_RECIPE = MappingProxyType({
    # Residual learning from the strongest heuristic: the policy reads planner's move (the advice
    # features) and first imitates planner, so PPO starts at its level instead of far below it.
    "features": "advice",
    "imitate": "planner",
    "imitation_games": 800,
    # Ten passes: after four the policy still leaves planner's play move at 1.5% of fresh play
    # decisions (and won 21% against three planners), after eight at about one in 10,000.
    "imitation_epochs": 10,
    # planner hides one of its highest-star cards at random: asked 4 times per decision it names the
    # tied cards, and the policy learns that set rather than a 1/k share of each.
    "imitation_samples": 4,
    # ... then gentle PPO (small steps, tight clipping, no entropy bonus: a large update forgets the
    # imitated turn planning) against a pool of mostly planners and a gap_hunter.
    "opponents": "planner,planner,planner,gap_hunter",
    "learning_rate": 5e-5,
    "clip_range": 0.1,
    "ent_coef": 0.0,
    "gamma": 0.999,
    # A small network: the policy copies a one-hot it is handed.
    "net_arch": "64,64",
    "num_envs": 256,
    "n_steps": 64,
    "batch_size": 4096,
    # At most about fifteen minutes on 2 cores in all: the planners' turn search is most of the cost of
    # every phase, so the PPO phase stops at 6 minutes.
    "total_timesteps": 1_000_000,
    "max_minutes": 6.0,
    "eval_every": 10,
    "eval_games": 100,
    # The final tournament: against three planners, three gap_hunters and three randoms, 1000 games each.
    "final_opponents": "planner,gap_hunter,random",
    "final_games": 1000,
})
"""What ``python -m training.train --env gap_v0`` does unless told otherwise (``GameSpec.training_recipe``;
``--recipe plain`` gives the generic defaults). Its figures: docs/results.md; docs/gap.md#the-default-recipe."""


def _feature_sets(rounds: int) -> dict:
    def maker(kind: str):
        def make(spec: GameSpec):
            from .features import GapFeatures

            return GapFeatures(kind, spec.num_players, rounds, rules=spec.rules)

        return make

    return {kind: maker(kind) for kind in ("raw", "hints", "advice", "belief")}


def _advantage(layout: ObservationLayout) -> MappingProxyType:
    """The advantage recipes of a variant (``GameSpec.advantage``), columns of the "belief" feature set:
    the observation, the hints (``features.HINT_WIDTH``), the planner's move as a one-hot over the
    actions, then the belief block (``features.BELIEF_WIDTH``).

    ``pass``: at a play decision where a card can be played, may ``planner`` pass (take the top draw
    card) instead of its best play, or play instead of passing? The network reads the hand, the tops,
    the sizes, table and scores, the hints, whether the planner passes, and the belief block (what is
    left to draw, what the others can still hold)."""
    from .features import BELIEF_WIDTH, HINT_WIDTH

    O = layout.size
    advice = O + HINT_WIDTH
    belief = advice + NUM_ACTIONS
    inputs = ((layout.slice("hand").start, layout.slice("hand").stop),
              (layout.slice("pile_tops").start, layout.slice("pile_tops").stop),
              (layout.slice("hand_sizes").start, layout.slice("scores").stop),
              (O, O + HINT_WIDTH), (advice + ACTION_PASS, advice + ACTION_PASS + 1),
              (belief, belief + BELIEF_WIDTH))
    return MappingProxyType({
        "pass": AdvantageRecipe(base="planner", opponents="planner", action="PASS", features="belief",
                                gate_column=None, gate_low=0.0, gate_high=0.0, inputs=inputs),
    })


def game_spec(num_players: int = GAME.default_players, **rules: Any) -> GameSpec:
    """The variant as every game-independent layer sees it; validates the options (``Rules``)."""
    variant = Rules.make(num_players, **rules)
    layout = ObservationLayout.make(variant.num_players, variant.rounds)
    return GameSpec(
        name=GAME.name,
        title=GAME.title,
        version=GAME.version,
        num_players=variant.num_players,
        min_players=GAME.min_players,
        max_players=GAME.max_players,
        num_actions=NUM_ACTIONS,
        action_names=ACTION_NAMES,
        observation_high=layout.high(),
        observation_version=OBSERVATION_VERSION,
        make_core=lambda n, s: GapCore(n, variant, seed=s),
        standings=standings,
        render=lambda core, b, reveal_all: render_table(core, b, reveal_all=reveal_all),
        observation_string=lambda obs: observation_string(np.asarray(obs, np.float32), layout),
        rules=variant.options(),
        policy_neutral_rules=("reward", "round_reward_scale", "max_turns"),
        episode_stats=EPISODE_STATS,
        feature_sets=_feature_sets(variant.rounds),
        default_features="hints",
        privileged_size=privileged_size(variant.num_players),
        privileged=privileged_features,
        agents=AGENTS,
        default_opponent="gap_hunter",
        describe_move=describe_move, terminal_view=terminal_view,
        hooks=GameHooks(belief=GapBelief(variant), play=GapPlay(variant), advantage=_advantage(layout), training_recipe=TRAINING_RECIPE),
        scene=table_scene,
    )
