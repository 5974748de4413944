"""Keine Ahnung / No Idea: the game's declaration (name, title, player range and default, version, rules options,
entry-point module, presets), read by the registry, the rules options, the spec, the entry points, the
commands and the tests (``keine_ahnung_env.game_declaration``)."""

from __future__ import annotations

from ...game_declaration import GameDeclaration
from ...game_spec import AgentInfo

_SHIPPED = "agents.advantage"
PRESETS = {
    "advantage_4p": AgentInfo(f"{_SHIPPED}:make_shipped_agent",
                              description="the shipped 4-player advantage models: counter_tuned, its calls and its "
                                          "kept-back known fitting cards overruled by roll-out values (the strongest "
                                          "agent)"),
    "advantage_4p_call": AgentInfo(f"{_SHIPPED}:make_shipped_call_agent",
                                   description="the earlier shipped 4-player advantage model: counter_tuned, its calls "
                                               "overruled by roll-out values"),
    "advantage_2p": AgentInfo(f"{_SHIPPED}:make_shipped_size_agent", bound={"size": 2},
                              description="the shipped 2-player advantage models: counter_tuned, its calls and its "
                                          "kept-back known fitting cards overruled by roll-out values"),
    "advantage_3p": AgentInfo(f"{_SHIPPED}:make_shipped_size_agent", bound={"size": 3},
                              description="the shipped 3-player advantage model: counter_tuned, its calls overruled by "
                                          "roll-out values"),
    "advantage_5p": AgentInfo(f"{_SHIPPED}:make_shipped_size_agent", bound={"size": 5},
                              description="the shipped 5-player advantage model: counter_tuned, its calls overruled by "
                                          "roll-out values"),
    "ismcts_4p": AgentInfo("agents.ismcts:make_search_4p_agent",
                           description="the 4-player search agent: ismcts over advantage_4p's move at every decision, "
                                       "counter_tuned roll-outs against counters (agents.ismcts.SEARCH_4P)"),
    **{f"ismcts_{p}p": AgentInfo("agents.ismcts:make_search_size_agent", bound={"size": p},
                                 description=f"the {p}-player search agent: ismcts over advantage_{p}p's move at every "
                                             "decision, counter_tuned roll-outs against counters (SEARCH_4P's budget)")
       for p in (2, 3, 5)},
    "ppo_4p": AgentInfo("agents.ppo:make_ready_agent",
                        description="the shipped 4-player PPO agent (counter_tuned's advice; 25.8% against three "
                                    "counters)"),
    "ppo_4p_v1": AgentInfo("agents.ppo:make_earlier_agent",
                           description="the earlier shipped 4-player PPO agent (counter's advice; the benchmark "
                                       "protocol's line-up)"),
}
"""The agents Keine Ahnung ships beyond its heuristics: trained models and a tuned search, built by the
``agents`` package (named here as ``"module:function"``, imported only when one is made)."""


GAME = GameDeclaration(
    name="keine_ahnung_v0",
    title="Keine Ahnung / No Idea",
    min_players=2,
    max_players=5,
    default_players=4,
    make_spec="keine_ahnung_env.games.keine_ahnung.spec:game_spec",
    rules="keine_ahnung_env.games.keine_ahnung.config:Rules",
    module="keine_ahnung_env.keine_ahnung_v0",
    status="stable",
    presets=PRESETS,
    shipped={2: {"learned": "advantage_2p", "search": "ismcts_2p"}, 3: {"learned": "advantage_3p", "search": "ismcts_3p"},
             4: {"learned": "advantage_4p", "search": "ismcts_4p"},
             5: {"learned": "advantage_5p", "search": "ismcts_5p"}},
)
