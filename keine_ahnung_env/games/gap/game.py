"""The gap game: the game's declaration (name, title, player range and default, version, rules options,
entry-point module), read by the registry, the rules options, the spec, the entry points, the
commands and the tests (``keine_ahnung_env.game_declaration``)."""

from __future__ import annotations

from ...game_declaration import GameDeclaration


GAME = GameDeclaration(
    name="gap_v0",
    title="The gap game",
    version=0,
    min_players=2,
    max_players=5,
    default_players=4,
    make_spec="keine_ahnung_env.games.gap.spec:game_spec",
    rules="keine_ahnung_env.games.gap.config:Rules",
    module="keine_ahnung_env.gap_v0",
    status="stable",
)
