"""The soak (``benchmarks/soak.py``): a few hundred random games of every game in the default run, that
its checks catch a broken state, and the reduced soak runs behind ``-m soak``. The full ones are
``python benchmarks/soak.py --games 1000000`` (every game) and ``--train-minutes 10``."""

from __future__ import annotations

import importlib.util
import io
import json
from pathlib import Path

import numpy as np
import pytest

from keine_ahnung_env import registry

ROOT = Path(__file__).resolve().parents[1]
BUILT_IN_GAMES = ("dnp_v0", "gap_v0", "keine_ahnung_v0")

# Per game: a card in a hand or layout (location code ``source``) moved to ``target`` without the
# bookkeeping the rules do (counts, lists), as a bug in a kernel would leave it.
CORRUPTIONS = {"keine_ahnung_v0": (1, 0), "gap_v0": (1, 0), "dnp_v0": (0, 2)}


def load_soak():
    spec = importlib.util.spec_from_file_location("benchmarks_soak", ROOT / "benchmarks" / "soak.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def soak():
    return load_soak()


def test_every_registered_game_is_soaked_at_every_table_size(soak):
    assert set(BUILT_IN_GAMES) <= set(registry.games())
    for game in registry.games():
        seated = {options["num_players"] for _, options in soak.variants(game)}
        assert seated == set(registry.game(game).players), game
        for _, options in soak.variants(game):
            options = dict(options)
            registry.game_spec(game, options.pop("num_players"), **options)  # valid rules options
    assert soak.variants("keine_ahnung_v0") == soak.VARIANTS
    assert all(len(soak.variants(game)) > len(registry.game(game).players) for game in BUILT_IN_GAMES), \
        "each built-in game is also soaked with rules options beyond its defaults"


def test_each_game_has_its_own_invariants(soak):
    for game in BUILT_IN_GAMES:
        core = registry.game_spec(game).make_core(2, 0)
        module = soak.invariants_module(core)
        assert module is not None and module.__name__.endswith(".invariants"), game
        assert all(not np.asarray(rows).any() for _, rows in module.violations(core)), game


@pytest.mark.parametrize("game", BUILT_IN_GAMES)
def test_a_few_hundred_random_games_of_each_game_pass_every_check(soak, game):
    out = io.StringIO()
    games = 40 * len(soak.variants(game))
    result = soak.soak_games(games, batch=32, seed=3, check_every=3, report_every=1e9, out=out, game=game)
    total = result["total"]
    assert result["game"] == game
    assert total["games"] == games
    assert set(result["variants"]) == {name for name, _ in soak.variants(game)}
    assert all(v["games"] == 40 for v in result["variants"].values())
    assert total["invariant_checks"] > 50
    assert total["decisions"] > total["games"]
    assert 0 < total["turns_min"] <= total["turns_mean"] <= total["turns_max"]
    assert total["truncated"] > 0, "a small max_turns variant truncates some games"
    assert game in out.getvalue()


@pytest.mark.parametrize("game", BUILT_IN_GAMES)
def test_a_card_moved_without_bookkeeping_stops_the_soak(soak, game, monkeypatch):
    """The game's own invariants are not vacuous: a kernel bug that moves a card without updating the
    counts (here: after the 7th step, in game 2) is reported with the game and the variant."""
    core_class = type(registry.game_spec(game, 3).make_core(1, 0))
    step = core_class.step
    source, target = CORRUPTIONS[game]
    calls = {"n": 0}

    def corrupting_step(self, actions, active=None):
        step(self, actions, active)
        calls["n"] += 1
        if calls["n"] == 7:
            cards = np.flatnonzero(self.card_loc[2] == source)
            assert cards.size, "game 2 holds a card to move"
            self.card_loc[2, cards[0]] = target

    monkeypatch.setattr(core_class, "step", corrupting_step)
    with pytest.raises(soak.SoakError, match=rf"\[{game} 2p\] .*\(game 2 of"):
        soak.soak_games(100, batch=16, seed=0, check_every=1, report_every=1e9, out=io.StringIO(), game=game)


def test_the_generic_checks_catch_a_reward_in_a_live_game(soak):
    spec = registry.game_spec("gap_v0", 2)
    core = spec.make_core(4, 0)
    checker = soak.Checker(spec, core, "control")
    live, turn = ~core.done, np.asarray(core.turn).astype(np.int64)
    core.step(soak.random_legal(np.random.default_rng(0), core.legal_mask))
    checker.step(core, live, turn)
    core.rewards[1, 0] = 1.0
    with pytest.raises(soak.SoakError, match=r"did not end was paid a reward \(game 1 of 4"):
        checker.step(core, live, turn)


def test_the_command_writes_per_game_figures(soak, tmp_path):
    path = tmp_path / "soak.json"
    out = io.StringIO()
    import contextlib

    with contextlib.redirect_stdout(out):
        status = soak.main(["--games", "16", "--batch", "8", "--game", "dnp_v0", "--json", str(path)])
    assert status == 0, out.getvalue()
    result = json.loads(path.read_text())
    assert list(result["games"]) == ["dnp_v0"]
    figures = result["games"]["dnp_v0"]
    assert figures["total"]["games"] == 16 and figures["total"]["decisions"] > 16
    assert "growth_after_warmup_mb" in figures["memory"]
    assert "| dnp_v0 |" in out.getvalue()
    with pytest.raises(SystemExit), contextlib.redirect_stderr(io.StringIO()):
        soak.main(["--games", "1", "--game", "no_such_game"])


@pytest.mark.soak
def test_twenty_thousand_random_games_of_every_game_without_error_and_flat_memory(soak):
    out = io.StringIO()
    results = soak.soak_all(20_000, batch=1024, seed=1, check_every=10, report_every=60.0, out=out)
    assert set(results) == set(registry.games())
    for game, result in results.items():
        assert "error" not in result, result.get("error")
        total = result["total"]
        assert total["games"] == 20_000
        assert set(result["variants"]) == {name for name, _ in soak.variants(game)}
        assert total["invariant_checks"] > 100
        assert 0 < total["turns_min"] <= total["turns_mean"] <= total["turns_max"]
        assert result["memory"]["growth_after_warmup_mb"] < 100, out.getvalue()


@pytest.mark.soak
def test_the_invariant_check_catches_a_broken_state(soak):
    """The soak's whole-batch checks are not vacuous: a card put in two places is reported."""
    from keine_ahnung_env.games.keine_ahnung import KeineAhnungCore, Rules

    core = KeineAhnungCore(8, Rules.make(3), seed=0)
    soak.check_batch(core, "control")
    core.layout[5, 1, 0] = core.layout[5, 0, 0]
    with pytest.raises(soak.SoakError, match=r"game 5"):
        soak.check_batch(core, "control")


@pytest.mark.soak
def test_training_runs_for_a_minute_without_error(soak, tmp_path):
    result = soak.soak_training(1.0, players=2, seed=0, out_dir=str(tmp_path), sample_every=2.0, out=io.StringIO())
    assert not result["exited_early"], "\n".join(result["log_tail"])
    assert result["rss_max_mb"] is not None
