"""Ray RLlib: the safe policy export and ``agents.make("rllib:PATH")`` (no Ray needed), and per game one
training iteration of ``training.train_rllib`` on a local 2-CPU Ray instance with a short evaluation.

The Ray tests need the optional ``[rllib]`` extra (its own virtual environment: Ray pins its own
gymnasium; ``.ci/run`` makes it). Without Ray they are skipped with a message saying so, unless
``KEINE_AHNUNG_REQUIRE_RLLIB=1`` is set (``.ci/run`` sets it in the RLlib environment): then a missing
Ray is a failure, so CI cannot go green by skipping them.
"""

from __future__ import annotations

import dataclasses
import json
import os
import pickle
import re
from pathlib import Path

import numpy as np
import pytest

import agents
from agents.rllib import RLlibPolicyInfo, load_export, npz_path, sidecar_path, write_export
from keine_ahnung_env import registry
from training.tournament import play_tournament

GAMES = ("keine_ahnung_v0", "gap_v0", "dnp_v0")
REQUIRE = "KEINE_AHNUNG_REQUIRE_RLLIB"


def _info(game: str, players: int, hidden=(16,), features: str = "raw", **changes) -> RLlibPolicyInfo:
    spec = registry.game_spec(game, players)
    info = RLlibPolicyInfo(game=game, num_players=players, rules=spec.rules,
                           observation_version=spec.observation_version, observation_size=spec.observation_size,
                           num_actions=spec.num_actions, features=features, net_arch=tuple(hidden), activation="tanh",
                           game_version=spec.version)
    return dataclasses.replace(info, **changes)


def _random_weights(info: RLlibPolicyInfo, seed: int = 0) -> dict[str, np.ndarray]:
    spec = registry.game_spec(info.game, info.num_players)
    width = spec.features(info.features).size
    rng = np.random.default_rng(seed)
    return {name: rng.normal(0, 0.3, shape).astype(np.float32) for name, shape in info.layer_shapes(width).items()}


def _export(tmp_path: Path, game: str = "gap_v0", players: int = 3, **changes) -> Path:
    info = _info(game, players, **changes)
    return write_export(_random_weights(info), tmp_path / f"{game}_{players}p", info)


# ------------------------------------------------------------------ the export (no Ray needed)


@pytest.mark.parametrize("game", GAMES)
def test_an_export_plays_legal_games_through_agents_make(tmp_path, game):
    path = _export(tmp_path, game, 3)
    agent = agents.make(f"rllib:{path}", game=game, num_players=3)
    result = play_tournament([agent, agents.make("random", game=game)], num_players=3, games=6, seed=1, env=game)
    assert result.agents[0].games == 12 and result.agents[0].name.startswith("rllib:")  # 2 of 3 seats, 6 games
    # The NumPy forward pass is the network: logits match a hand computation, illegal moves at -inf.
    weights, info = load_export(path, game)
    spec = registry.game_spec(game, 3)
    core = spec.make_core(4, 0)
    core.reset_games(np.arange(4))
    obs, mask = core.observe(core.current), core.legal_mask
    x = spec.features("raw")(obs)
    expected = np.tanh(x @ weights["pi.0.weight"].T + weights["pi.0.bias"]) @ weights["pi.1.weight"].T \
        + weights["pi.1.bias"]
    logits = agent.logits(obs, mask)
    np.testing.assert_allclose(logits[mask], expected[mask], rtol=1e-5, atol=1e-5)
    assert np.isneginf(logits[~mask]).all()
    assert (agent.act(obs, mask) == np.where(mask, expected, -np.inf).argmax(axis=1)).all()


def test_an_export_is_refused_for_another_game_player_count_or_observation_version(tmp_path):
    path = _export(tmp_path, "gap_v0", 3)
    with pytest.raises(ValueError, match="trained for 'gap_v0', not 'dnp_v0'"):
        agents.make(f"rllib:{path}", game="dnp_v0")
    with pytest.raises(ValueError, match="trained for 3 players, not 4"):
        agents.make(f"rllib:{path}", game="gap_v0", num_players=4)
    side = sidecar_path(path)
    data = json.loads(side.read_text())
    data["observation_version"] += 1
    side.write_text(json.dumps(data))
    with pytest.raises(ValueError, match="observation version"):
        agents.make(f"rllib:{path}", game="gap_v0")
    data["observation_version"] -= 1
    data["net_arch"] = [17]
    side.write_text(json.dumps(data))
    with pytest.raises(ValueError, match="do not match the recorded architecture|needs float32"):
        agents.make(f"rllib:{path}", game="gap_v0")
    side.unlink()
    with pytest.raises(ValueError, match="no sidecar"):
        agents.make(f"rllib:{path}", game="gap_v0")


def test_a_changed_export_is_refused(tmp_path):
    path = _export(tmp_path)
    raw = bytearray(path.read_bytes())
    raw[-30] ^= 0xFF
    path.write_bytes(bytes(raw))
    with pytest.raises(ValueError, match="SHA-256"):
        agents.make(f"rllib:{path}", game="gap_v0")


class _Marker:
    """Unpickling this creates the marker file: proof that code ran."""

    def __init__(self, marker: str):
        self.marker = marker

    def __reduce__(self):
        return (Path.touch, (Path(self.marker),))


def _pickle_sidecar(path: Path, info: RLlibPolicyInfo) -> None:
    import hashlib

    sidecar_path(path).write_text(dataclasses.replace(info, sha256=hashlib.sha256(path.read_bytes()).hexdigest())
                                  .to_json())


def test_a_crafted_pickle_given_as_path_is_refused_without_running(tmp_path):
    marker = tmp_path / "code_ran"
    payload = pickle.dumps(_Marker(str(marker)))
    info = _info("gap_v0", 3)
    # 1. A pickle named like an export, with a sidecar that matches it (hash included).
    evil = tmp_path / "evil.npz"
    evil.write_bytes(payload)
    _pickle_sidecar(evil, info)
    with pytest.raises(ValueError, match="not a NumPy archive of weights .refused, not run."):
        agents.make(f"rllib:{evil}", game="gap_v0")
    # 2. A real .npz whose layer is an array of Python objects (a pickle inside the archive).
    inner = tmp_path / "inner.npz"
    arrays = _random_weights(info)
    arrays["pi.0.bias"] = np.array([_Marker(str(marker))], dtype=object)
    with inner.open("wb") as handle:
        np.savez(handle, **arrays)
    _pickle_sidecar(inner, info)
    with pytest.raises(ValueError, match="refused, not run"):
        agents.make(f"rllib:{inner}", game="gap_v0")
    # 3. A pickle file under any other name, and an RLlib checkpoint directory (pickles inside).
    other = tmp_path / "algorithm_state.pkl"
    other.write_bytes(payload)
    with pytest.raises(ValueError, match="no sidecar"):
        agents.make(f"rllib:{other}", game="gap_v0")
    checkpoint = tmp_path / "checkpoint"
    checkpoint.mkdir()
    (checkpoint / "algorithm_state.pkl").write_bytes(payload)
    with pytest.raises(ValueError, match="is a directory .an RLlib checkpoint holds pickles"):
        agents.make(f"rllib:{checkpoint}", game="gap_v0")
    # 4. A sidecar that is itself a pickle.
    fake = tmp_path / "fake.npz"
    fake.write_bytes(npz_path(_export(tmp_path)).read_bytes())
    sidecar_path(fake).write_bytes(payload)
    with pytest.raises(ValueError, match="not valid JSON|not the sidecar"):
        agents.make(f"rllib:{fake}", game="gap_v0")
    assert not marker.exists(), "loading an export ran code from a pickle"
    # The payload is a real one: unpickling it does create the marker.
    pickle.loads(payload)
    assert marker.exists()


def test_the_command_refuses_bad_arguments_before_starting_ray():
    from keine_ahnung_env.cli import UsageError
    from training import train_rllib

    for argv, message in ((["--env", "chess_v0"], "chess_v0"), (["--players", "9"], "--players"),
                          (["--opponents", "nobody"], "--opponents"), (["--net-arch", "0"], "--net-arch"),
                          (["--minibatch-size", "9000"], "--minibatch-size"), (["--features", "x"], "--features"),
                          (["--num-env-runners", "-1"], "--num-env-runners"),
                          (["--num-env-runners", "2", "--num-learners", "1", "--num-cpus", "2"], "need 3 CPUs")):
        with pytest.raises(UsageError, match=message):
            train_rllib.main(argv + ["--no-progress"])


def _ray_installed() -> bool:
    import importlib.util

    return importlib.util.find_spec("ray") is not None


def test_the_command_answers_a_mistake_and_a_missing_ray_in_one_line():
    import subprocess
    import sys

    root = Path(__file__).resolve().parents[1]
    runs = [(["--env", "chess"], r"^error: --env 'chess'")]
    if not _ray_installed():  # the main environment: valid arguments, then the missing extra is named
        runs.append((["--players", "3"], r"^error: Ray RLlib is not installed; it is an optional extra: "
                                         r"pip install -e '\.\[rllib\]'"))
    for argv, message in runs:
        done = subprocess.run([sys.executable, "-m", "training.train_rllib", *argv], capture_output=True, text=True,
                              timeout=300, cwd=root, env={**os.environ, "PYTHONPATH": str(root)})
        assert done.returncode == 2 and done.stdout == "", (done.returncode, done.stdout, done.stderr)
        lines = done.stderr.splitlines()
        assert len(lines) == 1 and re.search(message, lines[0]), done.stderr


# ------------------------------------------------------------------ on Ray RLlib


@pytest.fixture(scope="module")
def ray_session():
    """A local Ray instance with 2 CPUs for this module's training runs; skipped (or, with
    KEINE_AHNUNG_REQUIRE_RLLIB=1, failed) where Ray RLlib is not installed."""
    from training.train_rllib import keep_ray_on_loopback

    keep_ray_on_loopback()
    try:
        import ray
        import ray.rllib  # noqa: F401
    except ImportError:
        message = ("Ray RLlib is not installed (optional extra: pip install -e '.[rllib]' in its own virtual "
                   "environment, see docs/rllib.md)")
        if os.environ.get(REQUIRE) == "1":
            pytest.fail(f"{REQUIRE}=1 but {message}")
        pytest.skip(message)
    from training.rllib_env import start_local_ray

    start_local_ray(num_cpus=2)
    yield ray
    ray.shutdown()


def test_the_batched_env_steps_one_core_as_rllib_sub_environments(ray_session):
    from training.rllib_env import CoreVectorMultiAgentEnv

    config = {"game": "keine_ahnung_v0", "num_players": 3, "include_raw": True}
    env = CoreVectorMultiAgentEnv(config, 6, seed=5)
    spec = env.game
    reference = spec.make_core(6, 5)
    reference.reset_games(np.arange(6))
    observations, _ = env.reset()
    rng = np.random.default_rng(0)
    ended = 0
    for _ in range(3000):
        for b, obs in enumerate(observations):
            if env._autoreset[b]:
                continue
            (aid, seat_obs), = obs.items()  # only the seat to act observes
            assert aid == f"player_{reference.current[b]}"
            np.testing.assert_array_equal(seat_obs["raw"], reference.observe(reference.current[b:b + 1],
                                                                             games=np.array([b]))[0])
            np.testing.assert_array_equal(seat_obs["action_mask"] > 0.5, reference.legal_mask[b])
        moves = np.array([rng.choice(np.flatnonzero(m)) if m.any() else 0 for m in reference.legal_mask])
        was_done = env._autoreset.copy()
        observations, rewards, terminateds, truncateds, infos = env.step(
            [{f"player_{reference.current[b]}": int(moves[b])} if not was_done[b] else {} for b in range(6)])
        reference.step(moves, active=~was_done)
        if was_done.any():
            reference.reset_games(np.flatnonzero(was_done))
        for b in np.flatnonzero(reference.done & ~was_done):
            ended += 1  # every seat gets its last observation, its reward and the end flag
            assert terminateds[b]["__all__"] or truncateds[b]["__all__"]
            assert set(observations[b]) == {f"player_{p}" for p in range(3)}
            np.testing.assert_allclose([rewards[b][f"player_{p}"] for p in range(3)], reference.rewards[b])
            shares = spec.win_shares(reference)[b]
            assert [infos[b][f"player_{p}"]["win_share"] for p in range(3)] == pytest.approx(shares.tolist())
        if ended >= 8:
            break
    assert ended >= 8


def _train(tmp_path, game: str, extra: list[str]) -> dict:
    from training import train_rllib

    return train_rllib.main(["--env", game, "--players", "3", "--total-timesteps", "1", "--train-batch-size", "512",
                             "--minibatch-size", "256", "--num-epochs", "1", "--num-envs-per-env-runner", "8",
                             "--net-arch", "32", "--eval-every", "0", "--final-games", "6", "--out-dir",
                             str(tmp_path), "--no-progress", *extra])


@pytest.mark.parametrize("game", GAMES)
def test_one_iteration_against_heuristics_exports_a_policy_that_plays(ray_session, tmp_path, game, capsys):
    spec = registry.game_spec(game, 3)
    heuristic = next(name for name in spec.agents if name != "random")
    summary = _train(tmp_path, game, ["--opponents", f"random,{heuristic}"])
    assert summary["iterations"] == 1 and summary["env_steps"] >= 512 and summary["timesteps"] > 0
    # The learner took one seat per game: fewer decisions than the env steps of the iteration.
    assert summary["timesteps"] < summary["env_steps"]
    printed = capsys.readouterr().out
    assert f"vs 2 x {heuristic}:" in printed and "vs 2 x random:" in printed
    assert set(summary["tournament"]) == {"random", heuristic}
    for figures in summary["tournament"].values():
        assert figures["games"] == 6 and 0.0 <= figures["win_rate"] <= 1.0
    weights, info = load_export(summary["export"], game)
    assert info.num_players == 3 and info.net_arch == (32,) and info.timesteps == summary["timesteps"]
    assert info.ray_version == ray_session.__version__
    agent = agents.make(f"rllib:{summary['export']}", game=game, num_players=3)
    result = play_tournament([agent, agents.make(heuristic, game=game)], num_players=3, games=3, seed=7, env=game)
    assert result.agents[0].games == 6  # two of the three seats in each of 3 games
    run = Path(summary["run_dir"])
    assert (run / "tournament.json").is_file() and (run / "learning_curve.png").is_file()
    assert any((run / "tensorboard").iterdir()) and (run / "checkpoints" / "final").is_dir()
    with pytest.raises(ValueError, match="trained for 3 players, not 4"):
        agents.make(f"rllib:{summary['export']}", game=game, num_players=4)


def test_self_play_on_a_remote_env_runner(ray_session, tmp_path):
    summary = _train(tmp_path, "keine_ahnung_v0", ["--num-env-runners", "1", "--baselines", "random"])
    # Self-play: every decision is the shared policy's.
    assert summary["timesteps"] == summary["env_steps"] >= 512
    curve = json.loads((Path(summary["run_dir"]) / "curve.json").read_text())
    assert curve == [{"timesteps": summary["timesteps"], "train_win_rate": None}]
    assert set(summary["tournament"]) == {"random"}


def test_seat_mapping_puts_one_learner_at_every_table(ray_session):
    from training.rllib_env import LEARNER, SeatMapping

    assert SeatMapping(4, 0).lineup("any") == [LEARNER] * 4  # self-play: one shared policy at every seat
    mapping = SeatMapping(4, 2)
    seats, opponents = np.zeros(4), set()
    for k in range(400):
        lineup = mapping.lineup(f"episode{k}")
        assert lineup.count(LEARNER) == 1 and lineup == mapping.lineup(f"episode{k}")  # every seat agrees
        seats[lineup.index(LEARNER)] += 1
        opponents.update(m for m in lineup if m != LEARNER)
        assert mapping(f"player_{lineup.index(LEARNER)}", type("Episode", (), {"id_": f"episode{k}"})()) == LEARNER
    assert opponents == {"opponent_0", "opponent_1"} and seats.min() > 60  # every seat, about 100 times each
