"""``--device auto|cpu|cuda`` of the training commands: the shared check, the resolver, the refusal of
``cuda`` where torch sees no CUDA device, and the device recorded beside the models. No test moves a
tensor to a GPU: ``torch.cuda.is_available`` is patched where a visible device is pretended."""

import json

import numpy as np
import pytest
import torch

from agents.ppo import load_policy, read_info, sidecar_path
from keine_ahnung_env import cli
from training import advantage as advantage_module
from training import train as train_module
from training.cli import parse_dataclass


@pytest.fixture
def no_cuda(monkeypatch):
    monkeypatch.setattr(torch.cuda, "is_available", lambda: False)


@pytest.fixture
def pretend_cuda(monkeypatch):
    monkeypatch.setattr(torch.cuda, "is_available", lambda: True)


def test_auto_and_cpu_pass_and_other_names_are_refused_naming_the_allowed_ones(no_cuda):
    assert cli.DEVICES == ("auto", "cpu", "cuda")
    assert cli.check_device("auto") == "auto" and cli.check_device("cpu") == "cpu"
    with pytest.raises(cli.UsageError, match=r"^--device 'tpu'; allowed: auto, cpu, cuda$"):
        cli.check_device("tpu")
    with pytest.raises(cli.UsageError, match=r"^--device 'CPU'; allowed: auto, cpu, cuda$"):
        cli.check_device("CPU")


def test_cuda_without_a_visible_device_is_refused_in_one_line(no_cuda):
    with pytest.raises(cli.UsageError) as refused:
        cli.check_device("cuda")
    message = str(refused.value)
    assert "\n" not in message
    assert message.startswith("--device 'cuda'; allowed: auto, cpu")
    assert "no CUDA device is visible" in message


def test_auto_resolves_to_cpu_without_cuda_and_to_cuda_with_it(monkeypatch):
    monkeypatch.setattr(torch.cuda, "is_available", lambda: False)
    assert cli.resolve_device("auto") == "cpu"
    assert cli.resolve_device("cpu") == "cpu"
    monkeypatch.setattr(torch.cuda, "is_available", lambda: True)
    assert cli.resolve_device("auto") == "cuda"
    assert cli.resolve_device("cpu") == "cpu"  # asked for, kept even where a GPU is visible
    assert cli.check_device("cuda") == "cuda" and cli.resolve_device("cuda") == "cuda"


def test_this_machine_resolves_auto_as_torch_sees_it():
    assert cli.resolve_device("auto") == ("cuda" if torch.cuda.is_available() else "cpu")


def test_the_flag_parses_with_auto_as_default_in_both_commands(pretend_cuda):
    for module in (train_module, advantage_module):
        assert parse_dataclass(module.Args, []).device == "auto"
        for value in ("auto", "cpu", "cuda"):
            assert parse_dataclass(module.Args, ["--device", value]).device == value
    spec = train_module.check_args(train_module.Args(device="cuda"))  # visible (patched): accepted
    assert spec.num_players == 4


def test_training_refuses_cuda_before_anything_is_trained_or_written(no_cuda, tmp_path, capsys):
    with pytest.raises(cli.UsageError, match="--device 'cuda'; allowed: auto, cpu .*no CUDA device"):
        train_module.main(["--device", "cuda", "--out-dir", str(tmp_path)])
    with pytest.raises(cli.UsageError, match="--device 'gpu'; allowed: auto, cpu, cuda"):
        train_module.main(["--device", "gpu", "--out-dir", str(tmp_path)])
    assert not any(tmp_path.iterdir())
    with pytest.raises(SystemExit) as exited:
        cli.run_command(train_module.main, ["--device", "cuda", "--out-dir", str(tmp_path)])
    assert exited.value.code == 2
    err = capsys.readouterr().err.strip()
    assert err.count("\n") == 0 and err.startswith("error: --device 'cuda'; allowed: auto, cpu")


def test_advantage_refuses_cuda_before_playing(no_cuda, tmp_path):
    with pytest.raises(cli.UsageError, match="--device 'cuda'; allowed: auto, cpu .*no CUDA device"):
        advantage_module.main(["--device", "cuda", "--games", "10", "--out", str(tmp_path / "m")])
    assert not any(tmp_path.iterdir())


def test_the_device_is_printed_and_recorded_and_the_checkpoint_loads_on_the_cpu(tmp_path, capsys):
    summary = train_module.main([
        "--players", "3", "--total-timesteps", "256", "--num-envs", "8", "--n-steps", "32", "--batch-size", "128",
        "--n-epochs", "1", "--eval-every", "0", "--final-games", "4", "--opponents", "random", "--out-dir",
        str(tmp_path), "--no-progress", "--net-arch", "16", "--recipe", "plain", "--device", "auto"])
    printed = capsys.readouterr().out.splitlines()
    assert "training keine_ahnung_v0 at 3 players, seed 0, on cpu (--device auto)" in printed[:3]
    assert summary["device"] == "cpu"
    checkpoint = summary["checkpoint"]
    assert json.loads(sidecar_path(checkpoint).read_text())["device"] == "cpu"
    assert read_info(checkpoint).device == "cpu"
    # A checkpoint trained elsewhere on a GPU loads here on the CPU; one written before the field
    # existed loads with the device unknown.
    side = json.loads(sidecar_path(checkpoint).read_text())
    for recorded in ("cuda", None):
        if recorded is None:
            del side["device"]
        else:
            side["device"] = recorded
        sidecar_path(checkpoint).write_text(json.dumps(side))
        policy, info = load_policy(checkpoint)
        assert info.device == (recorded or "")
        assert {p.device.type for p in policy.parameters()} == {"cpu"}
    side["device"] = 3
    sidecar_path(checkpoint).write_text(json.dumps(side))
    with pytest.raises(ValueError, match="device=3; allowed: a string"):
        load_policy(checkpoint)


def test_the_advantage_fit_records_its_device_and_fits_alike_when_told_cpu(tmp_path):
    common = ["--games", "200", "--batch-size", "100", "--epochs", "1", "--playouts", "1", "--hidden", "8",
              "--validation", "0", "--no-progress"]
    auto = advantage_module.main(common + ["--out", str(tmp_path / "auto")])
    told = advantage_module.main(common + ["--out", str(tmp_path / "cpu"), "--device", "cpu"])
    assert auto["device"] == told["device"] == "cpu"
    assert json.loads((tmp_path / "cpu.json").read_text())["device"] == "cpu"
    a, b = np.load(tmp_path / "auto.npz"), np.load(tmp_path / "cpu.npz")
    assert sorted(a.files) == sorted(b.files)
    for key in a.files:
        np.testing.assert_array_equal(a[key], b[key])
