"""dnp (dnup): the game's declaration (name, title, player range and default, version, rules options,
entry-point module, presets and shipped agents), read by the registry, the rules options, the spec,
the entry points, the commands and the tests (``keine_ahnung_env.game_declaration``)."""

from __future__ import annotations

from ...game_declaration import GameDeclaration
from ...game_spec import AgentInfo

PRESETS = {
    f"dnp_learned_{p}p": AgentInfo(
        "agents.ppo:make_checkpoint_agent",
        bound={"checkpoint": f"dnp_v0_{p}p_recipe.zip", "preset": f"dnp_learned_{p}p"},
        description=f"the default training recipe's {p}-player agent"
                    f"{', copying tactician' if p == 4 else ''} (docs/results.md)")
    for p in (2, 3, 4, 5)
}
SEARCH_BUDGET = {"playouts": 64, "screen": 8, "margin": 1.5, "when": "all"}
"""The shipped search agents' budget: 64 belief-sampled states per distinct move (a first look at 8 of
them), every decision, the learned agent's move kept unless another beats it by 1.5 standard errors
(16 states and a margin of 2.5 won 28.8% at 4 players, this budget 45.8% on fresh seeds: docs/results.md)."""

PRESETS.update({
    f"dnp_search_{p}p": AgentInfo(
        "agents.ismcts:make_shipped_search_agent",
        bound={"size": p, "preset": f"dnp_search_{p}p", "budget": SEARCH_BUDGET},
        description=f"the {p}-player search agent: ismcts over dnp_learned_{p}p's move at every decision, "
                    f"tactician roll-outs against tacticians (docs/results.md)")
    for p in (2, 3, 4, 5)
})
"""The agents the game ships beyond its heuristics, built by the ``agents`` package (named here as
``"module:function"``, imported only when one is made)."""


GAME = GameDeclaration(
    name="dnp_v0",
    title="dnp (dnup)",
    min_players=2,
    max_players=5,
    default_players=4,
    make_spec="keine_ahnung_env.games.dnp.spec:game_spec",
    rules="keine_ahnung_env.games.dnp.config:Rules",
    module="keine_ahnung_env.dnp_v0",
    status="stable",
    presets=PRESETS,
    shipped={p: {"learned": f"dnp_learned_{p}p", "search": f"dnp_search_{p}p"} for p in (2, 3, 4, 5)},
)
