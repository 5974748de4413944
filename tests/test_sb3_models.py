"""Models trained with plain Stable-Baselines3 on ``sb3_vec_env`` as agents (``agents/ppo.py``,
``load_plain_policy``): a ``MaskablePPO`` or ``PPO`` zip saved by ``model.save`` plays through
``agents.make("ppo:PATH:env=GAME:players=N")`` and the commands' ``--agents``, is read without
unpickling anything, and is refused with the sizes named when it does not fit the table."""

from __future__ import annotations

import base64
import json
import pickle
import re
import zipfile
from pathlib import Path

import numpy as np
import pytest

import agents
from keine_ahnung_env import keine_ahnung_v0, registry

PLAYERS = 3


@pytest.fixture(scope="module")
def models(tmp_path_factory) -> dict[str, object]:
    """A tiny MaskablePPO and a tiny PPO, each trained for a few hundred steps on
    ``keine_ahnung_v0.sb3_vec_env`` (3 players, random opponents) and saved with ``model.save``."""
    import torch
    from sb3_contrib import MaskablePPO
    from stable_baselines3 import PPO

    torch.set_num_threads(1)
    folder = tmp_path_factory.mktemp("sb3")
    venv = keine_ahnung_v0.sb3_vec_env(4, opponents=[agents.make("random", seed=1), agents.make("random", seed=2)],
                                       num_players=PLAYERS, seed=0)
    masked = MaskablePPO("MlpPolicy", venv, n_steps=64, batch_size=64, n_epochs=2, seed=0, device="cpu",
                         policy_kwargs=dict(net_arch=[32, 16], activation_fn=torch.nn.ReLU))
    masked.learn(256)
    masked.save(folder / "masked.zip")
    plain = PPO("MlpPolicy", venv, n_steps=64, batch_size=64, n_epochs=1, seed=0, device="cpu",
                policy_kwargs=dict(net_arch=dict(pi=[24], vf=[8, 8])))
    plain.learn(256)
    plain.save(folder / "plain.zip")
    return {"masked": masked, "plain": plain, "masked_path": folder / "masked.zip", "plain_path": folder / "plain.zip"}


def test_a_plain_maskable_ppo_zip_plays_as_sb3_itself_would(models):
    agent = agents.make(f"ppo:{models['masked_path']}:env=keine_ahnung_v0:players={PLAYERS}", seed=0)
    assert agent.info.features == "raw" and agent.info.net_arch == (32, 16) and agent.info.activation == "relu"
    assert agent.info.timesteps == models["masked"].num_timesteps
    spec = registry.game_spec("keine_ahnung_v0", PLAYERS)
    venv = keine_ahnung_v0.sb3_vec_env(8, opponents=[agents.make("random", seed=3)] * 2, num_players=PLAYERS, seed=11)
    raw_venv = keine_ahnung_v0.sb3_vec_env(8, opponents=[agents.make("random", seed=3)] * 2, num_players=PLAYERS,
                                           seed=11, normalize_obs=False)
    scaled, raw = venv.reset(), raw_venv.reset()
    masks = venv.action_masks()
    np.testing.assert_allclose(scaled, raw * spec.observation_scale, rtol=1e-6)
    expected, _ = models["masked"].predict(scaled, action_masks=masks, deterministic=True)
    actions = agent.act(raw, masks)
    np.testing.assert_array_equal(actions, expected)
    assert masks[np.arange(len(actions)), actions].all()


def test_a_plain_ppo_zip_plays_too_with_illegal_actions_masked(models):
    agent = agents.make(f"ppo:{models['plain_path']}", game="keine_ahnung_v0", num_players=PLAYERS, seed=0)
    assert agent.info.net_arch == (24,) and agent.info.activation == "tanh"
    venv = keine_ahnung_v0.vector_env(32, num_players=PLAYERS, seed=3)
    step = venv.reset()
    for _ in range(20):
        actions = agent.act(step.observation, step.action_mask)
        assert step.action_mask[np.arange(len(actions)), actions].all()
        step = venv.step(actions)


def test_the_evaluate_command_plays_a_plain_zip(models, capsys):
    from training import evaluate

    spec = f"ppo:{models['masked_path']}"
    result = evaluate.run(["--players", str(PLAYERS), "--agents", f"{spec},random,random", "--games", "6",
                           "--seed", "1", "--no-progress"])
    out = capsys.readouterr().out
    row = next(a for a in result.agents if a.name == spec)
    assert row.games == 6 and spec in out
    # The spec may name the table itself; it must agree with the command's.
    evaluate.run(["--players", str(PLAYERS), "--agents", f"{spec}:env=keine_ahnung_v0:players={PLAYERS},random,random",
                  "--games", "3", "--no-progress"])
    with pytest.raises(ValueError, match=rf"players=4, but the agent is made for {PLAYERS} \(the command's --players\)"):
        evaluate.run(["--players", str(PLAYERS), "--agents", f"{spec}:players=4,random,random", "--games", "3"])


def test_the_wrong_table_is_refused_naming_the_sizes(models):
    path = models["masked_path"]
    mine = registry.game_spec("keine_ahnung_v0", PLAYERS)
    other = registry.game_spec("keine_ahnung_v0", 4)
    with pytest.raises(ValueError, match=re.escape(
            f"reads observations of size {mine.observation_size} and chooses among {mine.num_actions} actions; "
            f"keine_ahnung_v0 with 4 players has observations of size {other.observation_size} and "
            f"{other.num_actions} actions (those are the sizes of keine_ahnung_v0 with {PLAYERS} players)")):
        agents.make(f"ppo:{path}:players=4")
    gap = registry.game_spec("gap_v0", PLAYERS)
    with pytest.raises(ValueError, match=f"gap_v0 with {PLAYERS} players has observations of size "
                                         f"{gap.observation_size} and {gap.num_actions} actions"):
        agents.make(f"ppo:{path}:env=gap_v0:players={PLAYERS}")
    with pytest.raises(ValueError, match=r"env='gap_v0', but the agent is made for 'keine_ahnung_v0'"):
        agents.make(f"ppo:{path}:env=gap_v0:players={PLAYERS}", game="keine_ahnung_v0")
    with pytest.raises(ValueError, match=r"no sidecar .*masked\.json; a plain Stable-Baselines3 archive plays when "
                                         r"its game and player count are given: ppo:.*:env=GAME:players=N"):
        agents.make(f"ppo:{path}")


def test_a_missing_file_is_no_such_file(tmp_path):
    from training import evaluate

    missing = tmp_path / "nothing_here.zip"
    with pytest.raises(ValueError, match=rf"^no such file: {re.escape(str(missing))}$"):
        agents.make(f"ppo:{missing}:players=4")
    with pytest.raises(ValueError, match=rf"^--agents 'ppo:{re.escape(str(missing))}': no such file: "):
        evaluate.run(["--agents", f"ppo:{missing},random", "--games", "4"])


class _Trap:
    """Unpickling this creates ``marker``: proof that code from the archive ran."""

    def __init__(self, marker: str):
        self.marker = marker

    def __reduce__(self):
        return (Path.touch, (Path(self.marker),))


def _with_data(src: Path, dst: Path, change) -> Path:
    with zipfile.ZipFile(src) as archive:
        content = {name: archive.read(name) for name in archive.namelist()}
    data = json.loads(content["data"])
    change(data)
    content["data"] = json.dumps(data).encode()
    with zipfile.ZipFile(dst, "w") as archive:
        for name, raw in content.items():
            archive.writestr(name, raw)
    return dst


def test_nothing_in_the_archive_is_unpickled(models, tmp_path, monkeypatch):
    marker = tmp_path / "code_ran"
    trap = base64.b64encode(pickle.dumps(_Trap(str(marker)))).decode()

    def plant(data):
        for key in ("policy_kwargs", "observation_space", "action_space", "policy_class"):
            entry = data[key] if isinstance(data.get(key), dict) else {}
            data[key] = {**entry, ":type:": "<class 'dict'>", ":serialized:": trap}
        data["only_pickled"] = {":type:": "<class 'object'>", ":serialized:": trap}

    forged = _with_data(models["masked_path"], tmp_path / "forged.zip", plant)

    def refuse(*args, **kwargs):
        raise AssertionError("something was unpickled")

    import cloudpickle

    for module, name in ((pickle, "loads"), (pickle, "load"), (cloudpickle, "loads"), (cloudpickle, "load")):
        monkeypatch.setattr(module, name, refuse)
    agent = agents.make(f"ppo:{forged}:players={PLAYERS}")
    venv = keine_ahnung_v0.vector_env(4, num_players=PLAYERS, seed=0)
    step = venv.reset()
    agent.act(step.observation, step.action_mask)
    assert not marker.exists()
    # The proof that the trap works: unpickled, it runs.
    monkeypatch.undo()
    pickle.loads(base64.b64decode(trap))
    assert marker.exists()


def test_other_layouts_and_unscaled_observations_are_refused(models, tmp_path):
    path = models["masked_path"]
    custom = _with_data(path, tmp_path / "custom.zip",
                        lambda d: d["policy_kwargs"].update(features_extractor_class="<class 'mine.Extractor'>"))
    with pytest.raises(ValueError, match=r"not a plain Stable-Baselines3 .*a custom feature extractor"):
        agents.make(f"ppo:{custom}:players={PLAYERS}")
    odd = _with_data(path, tmp_path / "odd.zip",
                     lambda d: d["policy_kwargs"].update(activation_fn="<class 'mine.Wobble'>"))
    with pytest.raises(ValueError, match=r"activation_fn \"<class 'mine.Wobble'>\"; allowed: torch.nn's Tanh, ReLU"):
        agents.make(f"ppo:{odd}:players={PLAYERS}")
    unscaled = _with_data(path, tmp_path / "unscaled.zip",
                          lambda d: d["observation_space"].update(high="[ 3. 1. 12. 1.]"))
    with pytest.raises(ValueError, match=r"not scaled into \[0, 1\] \(sb3_vec_env\(normalize_obs=False\)\)"):
        agents.make(f"ppo:{unscaled}:players={PLAYERS}")
    with zipfile.ZipFile(path) as archive:
        content = {name: archive.read(name) for name in archive.namelist() if name != "data"}
    bare = tmp_path / "bare.zip"
    with zipfile.ZipFile(bare, "w") as archive:
        for name, raw in content.items():
            archive.writestr(name, raw)
    with pytest.raises(ValueError, match=r"is not a plain Stable-Baselines3 .*: it lacks data"):
        agents.make(f"ppo:{bare}:players={PLAYERS}")
