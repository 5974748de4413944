"""dnp (dnup): the game's declaration (name, title, player range and default, version, rules options,
entry-point module, presets and shipped agents), read by the registry, the rules options, the spec,
the entry points, the commands and the tests (``keine_ahnung_env.game_declaration``)."""

from __future__ import annotations

from ...game_declaration import GameDeclaration
from ...game_spec import AgentInfo

PRESETS = {
    "dnp_learned_2p": AgentInfo("agents.ppo:make_dnp_learned_2p_agent",
                                description="the default training recipe's 2-player agent (docs/results.md)"),
    "dnp_learned_3p": AgentInfo("agents.ppo:make_dnp_learned_3p_agent",
                                description="the default training recipe's 3-player agent (docs/results.md)"),
    "dnp_learned_4p": AgentInfo("agents.ppo:make_dnp_learned_4p_agent",
                                description="the default training recipe's 4-player agent, copying tactician (docs/results.md)"),
    "dnp_learned_5p": AgentInfo("agents.ppo:make_dnp_learned_5p_agent",
                                description="the default training recipe's 5-player agent (docs/results.md)"),
}
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
    shipped={2: {"learned": "dnp_learned_2p"}, 3: {"learned": "dnp_learned_3p"},
             4: {"learned": "dnp_learned_4p"}, 5: {"learned": "dnp_learned_5p"}},
)
