"""The game declaration and what hangs off it: the registry holds the declarations themselves, GameSpec
describes the environment while the training and research hooks sit in GameHooks, the presets a game
ships are offered through its declaration, and the packed entry points come from one place."""

from __future__ import annotations

import dataclasses
import pickle

import pytest

from keine_ahnung_env import registry
from keine_ahnung_env.game_declaration import GameDeclaration
from keine_ahnung_env.game_spec import GameHooks, GameSpec
from keine_ahnung_env.games.keine_ahnung.game import GAME as KEINE_AHNUNG

PRESETS = ("advantage_2p", "advantage_3p", "advantage_4p", "advantage_4p_call", "advantage_5p", "ismcts_2p", "ismcts_3p",
           "ismcts_4p", "ismcts_5p", "ppo_4p", "ppo_4p_v1")


def test_the_registry_entry_is_the_declaration():
    assert registry.GameEntry is GameDeclaration
    for name in registry.games():
        entry = registry.game(name)
        assert entry.rules_class is not None and entry.players == range(entry.min_players, entry.max_players + 1)
        assert registry.default_players(name) == entry.default_players
    assert registry.DEFAULT_GAME == KEINE_AHNUNG.name == "keine_ahnung_v0"
    bad = dataclasses.replace(KEINE_AHNUNG, name="bad_v0", default_players=6)
    with pytest.raises(ValueError, match="players 2..5 with default 6; need 1 <= min <= default <= max"):
        registry.register_game(bad)


def test_the_spec_describes_the_environment_and_the_hooks_sit_apart():
    fields = {f.name for f in dataclasses.fields(GameSpec)}
    assert not fields & set(GameHooks.NAMES) and "hooks" in fields
    spec = registry.game_spec("keine_ahnung_v0", 4)
    assert isinstance(spec.hooks, GameHooks)
    for name in GameHooks.NAMES:  # each hook is also readable under its old name
        assert getattr(spec, name) is getattr(spec.hooks, name)
    assert spec.hooks.search is not None and spec.hooks.ceiling is not None and set(spec.hooks.advantage) == {
        "call", "reserve"} and spec.hooks.training_recipe["imitate"] == "counter_tuned"
    for name, decisions in (("gap_v0", {"pass"}), ("dnp_v0", {"turn"})):
        hooks = registry.game_spec(name).hooks
        assert hooks.belief is not None and hooks.search is None and hooks.ceiling is None
        assert set(hooks.advantage) == decisions
    assert registry.game_hook("keine_ahnung_v0", "ceiling", "privileged players") is spec.hooks.ceiling
    with pytest.raises(ValueError, match=r"^gap_v0 offers no privileged players \(GameSpec\.ceiling\); games that "
                                         r"offer it: keine_ahnung_v0$"):
        registry.game_hook("gap_v0", "ceiling", "privileged players")


def test_a_spec_pickles_through_the_registry():
    spec = registry.game_spec("gap_v0", 3, rounds=2)
    again = pickle.loads(pickle.dumps(spec))
    assert (again.name, again.num_players, again.rules) == (spec.name, spec.num_players, spec.rules)


def test_the_presets_are_offered_by_the_game():
    import agents

    assert tuple(sorted(KEINE_AHNUNG.presets)) == PRESETS
    offered = agents.describe("keine_ahnung_v0")
    for name in PRESETS:
        assert offered[name] == KEINE_AHNUNG.presets[name].description
        assert name not in agents.available("gap_v0")
    with open(agents.__file__) as handle:  # no longer listed by the generic agents package
        source = handle.read()
    assert not [name for name in PRESETS if f'"{name}"' in source]


def test_the_packed_entry_points_are_compiled_per_game_from_one_place():
    from keine_ahnung_env import packing
    from keine_ahnung_env.games.dnp import kernels as dnp
    from keine_ahnung_env.games.gap import kernels as gap
    from keine_ahnung_env.games.keine_ahnung import kernels as keine_ahnung

    for module in (keine_ahnung, gap, dnp):
        assert module.PACKED == {module.step_range: module.step_range_packed,
                                 module.step_range_checked: module.step_range_checked_packed,
                                 module.deal_range: module.deal_range_packed,
                                 module.observe_range: module.observe_range_packed}
        for twin in module.PACKED.values():
            # the game's own function: its globals are the module's, its cache sits beside the module
            assert twin.py_func.__globals__ is vars(module) and twin.py_func.__module__ == module.__name__
            assert twin.py_func.__code__.co_filename == module.__file__
            # made from packing's template of the same name (the game's serial loop spliced in)
            template = getattr(packing, "_" + twin.__name__)
            assert twin.py_func.__code__.co_varnames[:template.__code__.co_argcount] == \
                template.__code__.co_varnames[:template.__code__.co_argcount]
    assert keine_ahnung.step_range_packed is not gap.step_range_packed
