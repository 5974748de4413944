"""tiny_v0's declaration: name, title, player range and default, version, rules options, entry points
(``keine_ahnung_env.game_declaration``; ``docs/adding_a_game.md``, step 1)."""

from __future__ import annotations

from keine_ahnung_env.game_declaration import GameDeclaration

GAME = GameDeclaration(
    name="tiny_v0",
    title="Hidden high card (a test game)",
    min_players=2,
    max_players=3,
    default_players=2,
    make_spec="tiny_game.spec:game_spec",
    rules="tiny_game.config:Rules",
    module="tiny_game",  # a game outside the package: its own package holds the entry points
    status="test",
)
