"""The gap game: the game's declaration (name, title, player range and default, version, rules options,
entry-point module, presets and shipped agents), read by the registry, the rules options, the spec,
the entry points, the commands and the tests (``keine_ahnung_env.game_declaration``)."""

from __future__ import annotations

from ...game_declaration import GameDeclaration
from ...game_spec import AgentInfo

PRESETS = {
    f"gap_learned_{p}p": AgentInfo(
        "agents.ppo:make_checkpoint_agent",
        bound={"checkpoint": f"gap_v0_{p}p_recipe.zip", "preset": f"gap_learned_{p}p"},
        description=f"the default training recipe's {p}-player agent"
                    f"{', level with planner' if p == 4 else ''} (docs/results.md)")
    for p in (2, 3, 4, 5)
}
SEARCH_BUDGET = {"playouts": 16, "screen": 4, "margin": 2.5, "when": "all",
                 "rollout": "planner:in_engine=true", "opponents": "planner:in_engine=true"}
"""The shipped search agents' budget: 16 belief-sampled states per distinct move (a first look at 4 of
them), every decision, the learned agent's move kept unless another beats it by 2.5 standard errors;
the roll-outs are played by planners inside the compiled engine (twice as fast as round by round;
their hidden-card ties drawn from per-game streams)."""

PRESETS.update({
    f"gap_search_{p}p": AgentInfo(
        "agents.ismcts:make_shipped_search_agent",
        bound={"size": p, "preset": f"gap_search_{p}p", "budget": SEARCH_BUDGET},
        description=f"the {p}-player search agent: ismcts over gap_learned_{p}p's move at every decision, "
                    f"planner roll-outs against planners (docs/results.md)")
    for p in (2, 3, 4, 5)
})
"""The agents the game ships beyond its heuristics, built by the ``agents`` package (named here as
``"module:function"``, imported only when one is made)."""


GAME = GameDeclaration(
    name="gap_v0",
    title="The gap game",
    min_players=2,
    max_players=5,
    default_players=4,
    make_spec="keine_ahnung_env.games.gap.spec:game_spec",
    rules="keine_ahnung_env.games.gap.config:Rules",
    module="keine_ahnung_env.gap_v0",
    status="stable",
    presets=PRESETS,
    shipped={p: {"learned": f"gap_learned_{p}p", "search": f"gap_search_{p}p"} for p in (2, 3, 4, 5)},
)
