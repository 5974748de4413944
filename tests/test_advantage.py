"""The advantage agent (agents/advantage.py) and its training command (training/advantage.py).

The network overrules the game's heuristic only inside the recipe's gate; its files are read without
running anything; the command labels the same decisions whatever the number of processes."""

from __future__ import annotations

import dataclasses
import json
import pickle
from pathlib import Path

import numpy as np
import pytest

import agents
from agents.advantage import (SHIPPED_CALL_MODEL, SHIPPED_MODEL, AdvantageModelInfo, load_model, npz_path,
                              sidecar_path, write_model)
from keine_ahnung_env import registry
from training import advantage as command
from training.tournament import play_tournament

GAME = "keine_ahnung_v0"


def _info(players: int = 4, hidden=(8,), decision: str = "call", **more) -> AdvantageModelInfo:
    spec = registry.game_spec(GAME, players)
    recipe = spec.advantage[decision]
    return AdvantageModelInfo(game=GAME, num_players=players, rules=dict(spec.rules),
                              observation_version=spec.observation_version, observation_size=spec.observation_size,
                              num_actions=spec.num_actions, features=recipe.features, net_arch=tuple(hidden),
                              recipe=recipe.as_record(), decision=decision, game_version=spec.version, **more)


def _constant_model(tmp_path: Path, value: float, players: int = 4, name: str = "model", decision: str = "call",
                    **more) -> Path:
    """A model whose network predicts ``value`` everywhere (zero weights, the output bias ``value``)."""
    info = _info(players, decision=decision, **more)
    width = int(registry.game_spec(GAME, players).advantage[decision].input_columns().size)
    arrays = {name_: np.zeros(shape, np.float32) for name_, shape in info.layer_shapes(width).items()}
    arrays["input_scale"][:] = 1.0
    arrays["layer.1.bias"][:] = value
    return write_model(arrays, tmp_path / name, info)


def _decisions(players: int = 4, games: int = 64, steps: int = 400, seed: int = 5):
    """Observations and masks of the seats to act along counter self-play (many call decisions)."""
    spec = registry.game_spec(GAME, players)
    core = spec.make_core(games, seed)
    counter = agents.make("counter", seed=seed)
    obs, masks = [], []
    for _ in range(steps):
        live = np.flatnonzero(~core.done)
        if live.size == 0:
            break
        o, m = core.observe(core.current[live], games=live), core.legal_mask[live]
        obs.append(o)
        masks.append(m)
        actions = np.zeros(games, np.int64)
        actions[live] = counter.act(o, m)
        core.step(actions, active=~core.done)
    return spec, np.concatenate(obs), np.concatenate(masks)


def test_the_recipe_names_the_call_and_its_success_chance_at_every_table_size():
    for players in (2, 3, 4, 5):
        spec = registry.game_spec(GAME, players)
        decision, recipe = command.advantage_recipe(spec)
        assert decision == "call" and list(spec.advantage) == ["call", "reserve"]
        features = spec.features(recipe.features)
        assert (recipe.base, recipe.opponents, recipe.action) == ("counter_tuned", "counter", "CALL")
        assert recipe.gate_column == spec.observation_size  # the first hint: the call's success chance
        columns = recipe.input_columns()
        assert columns.max() < features.size and np.unique(columns).size == columns.size
    spec, obs, masks = _decisions()
    hints = spec.features("hints")(obs)
    gate = spec.features("advice_tuned")(obs, masks)[:, spec.advantage["call"].gate_column]
    np.testing.assert_array_equal(gate, hints[:, spec.observation_size])
    assert ((gate > 0.2) & (gate < 0.99)).any()


def test_the_network_decides_inside_the_gate_and_the_heuristic_everywhere_else(tmp_path):
    spec, obs, masks = _decisions()
    call = spec.action_names.index("CALL")
    feats = spec.features("advice_tuned")(obs, masks)
    gate = feats[:, spec.advantage["call"].gate_column]
    inside = masks[:, call] & (masks.sum(1) > 1) & (gate >= 0.2) & (gate < 0.99)
    assert inside.sum() >= 20 and (~inside).sum() >= 20
    base = agents.make("counter_tuned", seed=3).act(obs, masks)
    assert (base[inside] == call).any() and (base[inside] != call).any()  # both kinds of decision occur
    calls = agents.make(f"advantage:{_constant_model(tmp_path, 0.5, name='yes')}", seed=3)
    never = agents.make(f"advantage:{_constant_model(tmp_path, -0.5, name='no')}", seed=3)
    for agent, inside_call in ((calls, True), (never, False)):
        moves = agent.act(obs, masks)
        assert masks[np.arange(len(moves)), moves].all()
        np.testing.assert_array_equal(moves[~inside], base[~inside])  # the same first draw of tie-breaks
        assert ((moves[inside] == call) == inside_call).all()
        assert agent.decisions == inside.sum()
    assert calls.changed == (base[inside] != call).sum() and never.changed == (base[inside] == call).sum()
    # A margin larger than every prediction leaves the heuristic's choice of calling alone.
    shy = agents.make(f"advantage:{_constant_model(tmp_path, 0.5, name='yes')}:margin=0.6", seed=3)
    moves = shy.act(obs, masks)
    np.testing.assert_array_equal(moves == call, base == call)
    assert shy.changed == 0
    with pytest.raises(ValueError, match=r"margin=2; allowed: a number from 0 up to 1"):
        agents.make(f"advantage:{_constant_model(tmp_path, 0.5, name='yes')}:margin=2")


def test_the_reserve_recipe_flags_exactly_the_known_cards_that_fit_a_pile_now():
    """The take set of ``reserve`` (feature flags) against the engine's own state: a layout card every seat
    has seen, no prize, whose face fits a pile top now."""
    spec = registry.game_spec(GAME, 4)
    decision, recipe = command.advantage_recipe(spec, "reserve")
    assert (decision, recipe.action, recipe.take_width(), recipe.other_not) == ("reserve", "REVEAL_0", 6, ("CALL",))
    assert recipe.gate_column is None and recipe.inputs == spec.advantage["call"].inputs
    core = spec.make_core(32, 7)
    tuned = agents.make("counter_tuned", seed=7)
    features = spec.features(recipe.features)
    tables = core.tables
    flagged = 0
    for _ in range(300):
        live = np.flatnonzero(~core.done)
        if live.size == 0:
            break
        obs, mask = core.observe(core.current[live], games=live), core.legal_mask[live]
        take = recipe.take_mask(features(obs, mask), mask, 0)
        for row, g in enumerate(live):
            seat = int(core.current[g])
            for slot in range(6):
                card = int(core.layout[g, seat, slot])
                truth = bool(mask[row, slot] and core.card_known[g, card] and not tables.is_prize[card]
                             and (tables.compat[tables.face[card], :36] & (core.top_count[g] > 0)).any())
                assert take[row, slot] == truth, (g, seat, slot)
                flagged += truth
        assert not take[:, 6:].any()
        actions = np.zeros(core.num_envs, np.int64)
        actions[live] = tuned.act(obs, mask)
        core.step(actions, active=~core.done)
    assert flagged > 100


def test_the_reserve_network_plays_a_known_fitting_card_or_the_heuristics_other_move(tmp_path):
    spec, obs, masks = _decisions(games=96, steps=500)
    recipe = spec.advantage["reserve"]
    feats = spec.features("advice_tuned")(obs, masks)
    rows, take = recipe.decided(feats, masks, 0)
    heuristic = agents.make("counter_tuned", seed=3)
    other = heuristic.act(obs[rows], masks[rows] & ~take)
    keep = other != spec.action_names.index("CALL")
    rows, take, other = rows[keep], take[keep], other[keep]
    inside = np.zeros(len(obs), bool)
    inside[rows] = True
    assert inside.sum() >= 50 and (~inside).sum() >= 50
    base = agents.make("counter_tuned", seed=3).act(obs, masks)
    plays = take[np.arange(rows.size), base[rows]]
    assert plays.any() and (~plays).any()  # counter_tuned plays some known fitting cards and keeps others back
    eager = agents.make(f"advantage:{_constant_model(tmp_path, 0.5, name='eager', decision='reserve')}", seed=3)
    keeper = agents.make(f"advantage:{_constant_model(tmp_path, -0.5, name='keeper', decision='reserve')}", seed=3)
    assert eager.decision == "reserve" and eager.base is eager.heuristic
    for agent, plays_fit in ((eager, True), (keeper, False)):
        moves = agent.act(obs, masks)
        assert masks[np.arange(len(moves)), moves].all()
        np.testing.assert_array_equal(moves[~inside], base[~inside])
        assert (take[np.arange(rows.size), moves[rows]] == plays_fit).all()
        assert agent.decisions == rows.size
        # Where the network agrees with counter_tuned, its move stays (the same first draw of tie-breaks).
        agrees = plays if plays_fit else ~plays
        np.testing.assert_array_equal(moves[rows][agrees], base[rows][agrees])
    assert eager.changed == (~plays).sum() and keeper.changed == plays.sum()


def test_a_model_of_another_decision_plays_the_earlier_model_everywhere_else(tmp_path):
    """--improve with another decision: the reserve model continues the call model it was labelled with."""
    eager = _constant_model(tmp_path, 0.5, name="eager")  # calls at every gated call decision
    command.main(["--decision", "reserve", "--games", "200", "--batch-size", "200", "--epochs", "1",
                  "--validation", "0", "--seed", "4", "--no-progress", "--hidden", "8", "--improve", str(eager),
                  "--out", str(tmp_path / "reserve"), "--data", str(tmp_path / "reserve_data.npz")])
    data = np.load(tmp_path / "reserve_data.npz")
    assert data["labels"].size > 5 * 200 and not data["takes"].all() and data["takes"].any()
    info = json.loads(sidecar_path(tmp_path / "reserve").read_text())
    assert info["decision"] == "reserve" and info["continuation"] == "advantage:eager.npz"
    agent = agents.make(f"advantage:{tmp_path / 'reserve.npz'}", seed=1)
    assert agent.decision == "reserve" and agent.base.decision == "call" and agent.base.info.sha256 == \
        json.loads(sidecar_path(eager).read_text())["sha256"]
    spec, obs, masks = _decisions()
    call = spec.action_names.index("CALL")
    gate = spec.features("advice_tuned")(obs, masks)[:, spec.advantage["call"].gate_column]
    gated = masks[:, call] & (masks.sum(1) > 1) & (gate >= 0.2) & (gate < 0.99)
    assert (agent.act(obs, masks)[gated] == call).all()  # the call model's choice where it decides
    # The earlier model must lie beside it, unchanged.
    moved = tmp_path / "moved"
    moved.mkdir()
    for suffix in (".npz", ".json"):
        (moved / f"reserve{suffix}").write_bytes((tmp_path / f"reserve{suffix}").read_bytes())
    with pytest.raises(ValueError, match=r"continues the earlier model 'eager.npz', which must lie beside it"):
        agents.make(f"advantage:{moved / 'reserve.npz'}")
    other = _constant_model(moved, -0.5, name="eager")
    assert other.parent == moved
    with pytest.raises(ValueError, match=r"continues .*eager.npz, but that file is not the model it was trained on"):
        agents.make(f"advantage:{moved / 'reserve.npz'}")


def test_the_command_writes_a_model_that_plays_and_labels_alike_in_two_processes(tmp_path, capsys):
    argv = ["--games", "600", "--batch-size", "200", "--epochs", "1", "--validation", "0.34", "--seed", "11",
            "--no-progress", "--hidden", "16"]
    one = command.main(argv + ["--out", str(tmp_path / "one"), "--data", str(tmp_path / "one_data.npz")])
    two = command.main(argv + ["--out", str(tmp_path / "two"), "--data", str(tmp_path / "two_data.npz"),
                               "--processes", "2"])
    a, b = np.load(tmp_path / "one_data.npz"), np.load(tmp_path / "two_data.npz")
    for key in ("inputs", "labels", "takes", "batch"):
        np.testing.assert_array_equal(a[key], b[key])
    assert one["labelled"] == two["labelled"] > 100 and one["decisions"] > 10 * one["labelled"]
    assert set(np.unique(a["batch"])) == {0, 1, 2} and one["validation"]["decisions"] == (a["batch"] == 2).sum()
    assert np.abs(a["labels"]).max() <= 1.0 and (a["labels"] != 0).any()
    out = capsys.readouterr().out
    assert "labelled" in out and "held-out batches" in out and f"advantage:{tmp_path / 'one.npz'}" in out
    info = json.loads(sidecar_path(tmp_path / "one").read_text())
    assert info["timesteps"] == (a["batch"] < 2).sum() and info["net_arch"] == [16] and info["seed"] == 11
    # The look at what the network does, on the same held-out batch.
    import subprocess
    import sys

    looked = subprocess.run([sys.executable, "research/advantage_choices.py", "--data", str(tmp_path / "one_data.npz"),
                             "--model", str(tmp_path / "one.npz"), "--validation", "0.34"],
                            capture_output=True, text=True, timeout=120)
    assert looked.returncode == 0, looked.stderr
    assert f"{one['validation']['decisions']} held-out decisions of {one['labelled']}" in looked.stdout
    assert "| gate (success chance) | decisions | counter_tuned takes CALL | the network takes it |" in looked.stdout
    agent = agents.make(f"advantage:{tmp_path / 'one.npz'}", game=GAME, num_players=4, seed=0)
    result = play_tournament([agent, agents.make("counter", seed=1)], num_players=4, games=40, seed=2)
    assert result.games == 40 and result.truncated == 0 and agent.decisions > 0


def test_the_next_round_labels_the_play_of_an_earlier_model(tmp_path):
    """--improve: the earlier model's agent plays the labelled seat (in the games and the roll-outs)."""
    eager = _constant_model(tmp_path, 0.5, name="eager")  # calls at every gated decision
    command.main(["--games", "300", "--batch-size", "300", "--epochs", "1", "--validation", "0", "--seed", "4",
                  "--no-progress", "--hidden", "8", "--improve", str(eager), "--out", str(tmp_path / "next"),
                  "--data", str(tmp_path / "next_data.npz")])
    data = np.load(tmp_path / "next_data.npz")
    assert data["takes"].size > 50 and data["takes"].all()  # the seat's policy took the call every time
    info = json.loads(sidecar_path(tmp_path / "next").read_text())
    assert info["continuation"] == "advantage:eager.npz"
    assert info["continuation_sha256"] == json.loads(sidecar_path(eager).read_text())["sha256"]
    plain = json.loads(sidecar_path(_constant_model(tmp_path, 0.0, name="plain")).read_text())
    assert plain["continuation"] == "" and plain["continuation_sha256"] == ""
    with pytest.raises(ValueError, match=r"--improve .*no sidecar"):
        command.main(["--out", str(tmp_path / "m"), "--improve", str(tmp_path / "missing.npz")])
    with pytest.raises(ValueError, match=r"--improve .*trained for 4 players, not 3"):
        command.main(["--out", str(tmp_path / "m"), "--players", "3", "--improve", str(eager)])


def test_the_command_refuses_bad_arguments_before_playing(tmp_path):
    with pytest.raises(ValueError, match=r"--players 6; allowed for gap_v0: integers 2-5"):
        command.main(["--env", "gap_v0", "--players", "6", "--out", str(tmp_path / "m")])
    with pytest.raises(ValueError, match=r"--out .*a path for the model"):
        command.main([])
    with pytest.raises(ValueError, match=r"--out .*not a folder"):
        command.main(["--out", str(tmp_path)])
    with pytest.raises(ValueError, match=r"--validation 1.5.*a share from 0 up to 1"):
        command.main(["--out", str(tmp_path / "m"), "--validation", "1.5"])
    with pytest.raises(ValueError, match=r"--playouts 0"):
        command.main(["--out", str(tmp_path / "m"), "--playouts", "0"])
    with pytest.raises(ValueError, match=r"--hidden .64,x.; allowed: comma-separated positive layer sizes"):
        command.main(["--out", str(tmp_path / "m"), "--hidden", "64,x"])
    with pytest.raises(ValueError, match=r"--decision .place.: decision .place. for keine_ahnung_v0; allowed: call, reserve"):
        command.main(["--out", str(tmp_path / "m"), "--decision", "place"])
    assert not list(tmp_path.iterdir())


class _Marker:
    def __init__(self, path: str):
        self.path = path

    def __reduce__(self):
        return (Path.touch, (Path(self.path),))


def test_model_files_are_read_without_running_anything_and_checked(tmp_path):
    marker = tmp_path / "code_ran"
    good = _constant_model(tmp_path, 0.1)
    info = AdvantageModelInfo.from_json(sidecar_path(good).read_text(), "sidecar")
    # A pickle named like a model, with a sidecar whose hash matches it.
    evil = tmp_path / "evil.npz"
    evil.write_bytes(pickle.dumps(_Marker(str(marker))))
    import hashlib

    sidecar_path(evil).write_text(dataclasses.replace(info, sha256=hashlib.sha256(evil.read_bytes()).hexdigest())
                                  .to_json())
    with pytest.raises(ValueError, match="refused, not run"):
        agents.make(f"advantage:{evil}")
    sidecar_path(evil).write_bytes(pickle.dumps(_Marker(str(marker))))
    with pytest.raises(ValueError, match="not valid JSON"):
        agents.make(f"advantage:{evil}")
    assert not marker.exists()
    # A changed file, a missing sidecar, a folder, another player count, another recipe, bad arrays.
    changed = tmp_path / "changed.npz"
    raw = bytearray(good.read_bytes())
    raw[-1] ^= 1
    changed.write_bytes(bytes(raw))
    sidecar_path(changed).write_text(sidecar_path(good).read_text())
    with pytest.raises(ValueError, match="does not match the SHA-256"):
        load_model(changed)
    with pytest.raises(ValueError, match="no sidecar"):
        agents.make(f"advantage:{tmp_path / 'nothing.npz'}")
    with pytest.raises(ValueError, match="is a directory"):
        agents.make(f"advantage:{tmp_path}")
    with pytest.raises(ValueError, match="trained for 4 players, not 3"):
        agents.make(f"advantage:{good}", num_players=3)
    with pytest.raises(ValueError, match="trained for 'keine_ahnung_v0', not 'gap_v0'"):
        agents.make(f"advantage:{good}", game="gap_v0")
    data = json.loads(sidecar_path(good).read_text())
    data["recipe"]["gate_low"] = 0.3
    sidecar_path(good).write_text(json.dumps(data))
    with pytest.raises(ValueError, match="another advantage recipe of keine_ahnung_v0 .closest: the 'call' decision, "
                                         "which differs in gate_low"):
        agents.make(f"advantage:{good}")
    with pytest.raises(ValueError, match=r"layer.0.weight is float32 \(8, 3\)"):
        width = int(registry.game_spec(GAME, 4).advantage["call"].input_columns().size)
        arrays = {k: np.zeros(s, np.float32) for k, s in _info().layer_shapes(width).items()}
        arrays["layer.0.weight"] = np.zeros((8, 3), np.float32)
        write_model(arrays, tmp_path / "bad", _info())
    assert not npz_path(tmp_path / "bad").exists()


def test_the_shipped_models_load_and_record_how_they_were_made():
    call = agents.make("advantage_4p_call", seed=0)
    assert call.name == "advantage_4p_call" and call.decision == "call" and call.info.num_players == 4
    assert call.info.recipe["base"] == "counter_tuned" and call.info.timesteps > 100_000
    assert call.info.continuation == "counter_tuned" and call.info.playouts == 4 and call.info.seed == 85100
    assert call.info.validation["gain_per_decision"] > 0
    arrays, info = load_model(SHIPPED_CALL_MODEL, GAME)
    assert info == call.info and set(arrays) == set(info.layer_shapes(int(call.columns.size)))
    # advantage_4p: the reserve model, labelled on the call model's play, which it plays everywhere else.
    agent = agents.make("advantage_4p", seed=0)
    assert agent.name == "advantage_4p" and agent.decision == "reserve" and agent.info.seed == 86500
    assert agent.info.continuation == f"advantage:{SHIPPED_CALL_MODEL.name}" and agent.info.timesteps > 1_000_000
    assert agent.info.continuation_sha256 == call.info.sha256 == agent.base.info.sha256
    assert agent.base.decision == "call" and agent.info.validation["gain_per_decision"] > 0
    arrays, info = load_model(SHIPPED_MODEL, GAME)
    assert info == agent.info and SHIPPED_MODEL.parent == SHIPPED_CALL_MODEL.parent


@pytest.mark.parametrize("players,decision,seed", [(2, "reserve", 86502), (3, "call", 85103), (5, "call", 85105)])
def test_the_shipped_models_at_other_sizes_are_learned_there_and_refused_elsewhere(players, decision, seed):
    from keine_ahnung_env import keine_ahnung_v0

    agent = agents.make("learned", game=GAME, num_players=players, seed=0)
    assert agent.name == f"advantage_{players}p" and agent.decision == decision
    assert agent.info.num_players == players and agent.info.seed == seed and agent.info.playouts == 4
    assert agent.info.validation["gain_per_decision"] > 0
    if decision == "reserve":  # over the call network of the same size, which lies beside it
        assert agent.info.continuation == f"advantage:keine_ahnung_v0_{players}p_call_advantage.npz"
        assert agent.base.decision == "call" and agent.base.info.seed == 85100 + players
    else:
        assert agent.info.continuation == "counter_tuned"
    result = keine_ahnung_v0.vector_env(32, players, seed=1).reset()
    actions = agent.act(result.observation, result.action_mask)
    assert result.action_mask[np.arange(32), actions].all()
    other = 4 if players != 4 else 3
    with pytest.raises(ValueError, match=f"advantage_{players}p plays {players} players, not {other}; the shipped "
                                         "advantage agents: advantage_2p, advantage_3p, advantage_4p, advantage_5p"):
        agents.make(f"advantage_{players}p", game=GAME, num_players=other)


def test_the_split_sample_look_values_decisions_of_each_kind():
    import subprocess
    import sys

    for kind in ("call", "place"):
        run = subprocess.run([sys.executable, "research/split_headroom.py", "--kind", kind, "--games", "40",
                              "--playouts", "4", "--seed", "3"], capture_output=True, text=True, timeout=180)
        assert run.returncode == 0, run.stderr
        assert run.stdout.startswith(f"{kind}: ") and "2 states choose: gain" in run.stdout
        assert int(run.stdout.split()[1]) > 10  # decisions valued
    bad = subprocess.run([sys.executable, "research/split_headroom.py", "--playouts", "5"], capture_output=True,
                         text=True, timeout=60)
    assert bad.returncode == 2 and "--playouts 5: an even number >= 4" in bad.stderr
