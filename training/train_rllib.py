"""Train on Ray RLlib, locally or on a cluster: ``python -m training.train_rllib``.

Multi-agent PPO on RLlib's current API stack (RLModules, Learners, EnvRunners with connectors) for
every game of ``keine_ahnung_env.registry``:

* the env runners are fed by the batched engine: each runner steps ``--num-envs-per-env-runner``
  games as one batched core (``training/rllib_env.py``: ``BatchedEnvRunner``,
  ``CoreVectorMultiAgentEnv``), one game per RLlib sub-environment, the seats as its agents;
* the learning policy is ``MaskedPPOModule``, an MLP whose logits are masked by the legal actions
  (RLlib's action-masking example), over the game's policy features (``--features``);
* without ``--opponents`` one shared policy plays every seat (self-play); with ``--opponents`` each
  game seats the learner once and the listed heuristic agents (``agents.make`` specs) at the other
  seats as fixed RLlib policies (``HeuristicModule``, not trained);
* progress (a line per iteration), TensorBoard (``<run>/tensorboard``), RLlib checkpoints
  (``<run>/checkpoints/iter_N``, for resuming your own runs: they hold pickles), and at every
  checkpoint and at the end a safe export of the policy (``<run>/policy.npz`` + ``policy.json``,
  ``agents/rllib.py``) that plays everywhere as ``agents.make("rllib:<run>/policy.npz")``;
* at the end the tournament table of ``training.train`` (``final_tournament``): the trained agent
  against P-1 copies of each baseline, and the learning curve (``learning_curve.png``).

Without ``--address`` it starts a local Ray instance (``--num-cpus``); with ``--address`` it joins an
existing cluster (``auto`` or ``HOST:PORT``), whose nodes must have the project installed. See
docs/rllib.md for running on a cluster and what scales.
"""

from __future__ import annotations

import dataclasses
import json
import os
import time
from pathlib import Path

from keine_ahnung_env.registry import DEFAULT_GAME

from .cli import (UsageError, check_env, check_int, check_number, check_players, check_positive, check_seed,
                  check_variant, make_agent, parse_dataclass, parse_net_arch, parse_rules, run_command, usage_error,
                  user_errors)

PROG = "python -m training.train_rllib"
EXAMPLES = (
    "--env keine_ahnung_v0 --players 4 --opponents counter --total-timesteps 400000",
    "--env gap_v0 --players 3 --num-env-runners 2 --max-minutes 10",
    "--env dnp_v0 --players 4 --address auto --num-env-runners 16 --num-learners 2",
)
RAY_MISSING = ("Ray RLlib is not installed; it is an optional extra: pip install -e '.[rllib]' "
               "(in its own virtual environment: Ray pins its own gymnasium; see docs/rllib.md)")


@dataclasses.dataclass
class Args:
    """Train multi-agent PPO on Ray RLlib for a registered game: self-play (one
    shared policy at every seat) or a learner against fixed heuristic agents
    (--opponents); ends with training.train's tournament and a safe export.

    Starts a local Ray instance, or joins a cluster with --address. Ends with the tournament table of
    training.train and a safe export of the policy (agents.make("rllib:RUN/policy.npz"))."""

    env: str = DEFAULT_GAME
    """the game"""
    players: int = 0
    """players (0: the game's default)"""
    opponents: str = ""
    """fixed opponents; empty: self-play

    Comma-separated agent specs seated as fixed policies around the learner (one learner seat per game,
    the others drawn from this list per game and seat); empty: self-play, one shared policy at every
    seat."""
    total_timesteps: int = 400_000
    """learner decisions to train on

    Agent steps of the learning policy; in self-play every decision."""
    max_minutes: float = 0.0
    """time budget in minutes (0: none)

    Checked after each iteration."""
    num_env_runners: int = 0
    """Ray env runners (0: sample in the driver)"""
    num_envs_per_env_runner: int = 64
    """games each env runner steps in one core"""
    num_learners: int = 0
    """Ray learners (0: update in the driver)"""
    train_batch_size: int = 8192
    """env steps (all seats) per iteration"""
    minibatch_size: int = 2048
    """minibatch size of a PPO update"""
    num_epochs: int = 4
    """passes over each iteration's batch"""
    learning_rate: float = 3e-4
    """Adam step size"""
    gamma: float = 0.998
    """discount (games pay only at the end)"""
    gae_lambda: float = 0.95
    """GAE smoothing"""
    clip_range: float = 0.2
    """PPO clipping"""
    ent_coef: float = 0.01
    """entropy bonus"""
    net_arch: str = "256,256"
    """hidden layer sizes"""
    activation: str = "tanh"
    """tanh or relu"""
    features: str = ""
    """policy inputs: one of the game's feature sets

    Empty: the game's default (GameSpec.default_features)."""
    rules: list[str] = dataclasses.field(default_factory=list)
    """the game's rules options"""
    eval_every: int = 5
    """iterations between evaluations (0: never)

    Each evaluation against the baselines also writes a checkpoint."""
    eval_games: int = 100
    """games per baseline in an evaluation"""
    final_games: int = 400
    """games per final tournament"""
    baselines: str = ""
    """opponents of evaluations and the tournament

    Comma-separated agent specs; empty: --opponents, or in self-play random plus every heuristic agent
    the game declares (as training.train's default pool)."""
    address: str = ""
    """Ray cluster to join (auto, HOST:PORT)

    Empty: start a local Ray instance."""
    num_cpus: int = 0
    """CPUs of a local Ray instance (0: all)

    Ignored with --address."""
    seed: int = 0
    """seeds games, opponents and networks"""
    out_dir: str = "runs"
    """where runs are written"""
    run_name: str = ""
    """sub-folder (default <env>_<P>p_rllib_seed<seed>)"""
    torch_threads: int = 2
    """torch CPU threads of the driver"""
    progress: bool = True
    """print a line per iteration"""


LOOPBACK_SWITCH = "RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER"
"""Ray's switch for cluster networking, read once when Ray is imported: "0" makes every process of a Ray
instance started here listen and talk on 127.0.0.1 only (Ray otherwise binds the machine's network
address even for a local instance, so that other nodes could join)."""


def keep_ray_on_loopback() -> None:
    """Makes a local Ray instance this process starts stay on the loopback interface (its workers inherit
    the setting). Call it before Ray is imported; a run that joins a cluster (``--address``) must not."""
    os.environ.setdefault(LOOPBACK_SWITCH, "0")


def check_args(args: Args):
    """Raises a ``UsageError`` naming the first bad argument; returns the variant's ``GameSpec``.
    Imports nothing heavy (Ray is imported after the arguments are checked)."""
    entry = check_env(args.env)
    players = check_players(entry, args.players, zero_is_default=True)
    check_seed(args.seed)
    for name in ("total_timesteps", "num_envs_per_env_runner", "train_batch_size", "minibatch_size", "num_epochs",
                 "eval_games", "final_games", "torch_threads"):
        check_positive(f"--{name.replace('_', '-')}", getattr(args, name))
    for name in ("num_env_runners", "num_learners", "num_cpus", "eval_every"):
        check_int(f"--{name.replace('_', '-')}", getattr(args, name), 0, allowed="0 or a positive integer")
    check_number("--max-minutes", args.max_minutes, 0.0, allowed="0 (no budget) or a positive number of minutes")
    for name in ("learning_rate", "gamma", "clip_range"):
        check_number(f"--{name.replace('_', '-')}", getattr(args, name), 0.0, strict=True, allowed="a positive number")
    check_number("--gae-lambda", args.gae_lambda, 0.0, allowed="a number in [0, 1]")
    check_number("--ent-coef", args.ent_coef, 0.0, allowed="0 or a positive number")
    if args.minibatch_size > args.train_batch_size:
        raise UsageError(f"--minibatch-size {args.minibatch_size} is larger than --train-batch-size "
                         f"{args.train_batch_size}; allowed: at most the batch size")
    if args.activation not in ("tanh", "relu"):
        raise usage_error("--activation", args.activation, "tanh, relu")
    if not parse_net_arch(args.net_arch):
        raise usage_error("--net-arch", args.net_arch, "comma-separated positive sizes, e.g. 256,256")
    spec, _ = check_variant(entry, players, args.rules)
    if args.features and args.features not in spec.feature_names:
        raise usage_error("--features", args.features, ", ".join(spec.feature_names), args.env)
    cpus = args.num_cpus or os.cpu_count() or 1
    if not args.address and args.num_env_runners + args.num_learners > cpus:
        # Each remote runner and learner reserves a CPU: Ray would wait for them forever.
        raise UsageError(f"--num-env-runners {args.num_env_runners} and --num-learners {args.num_learners} need "
                         f"{args.num_env_runners + args.num_learners} CPUs; the local Ray instance has {cpus} "
                         "(--num-cpus); allowed: at most that many together, or a cluster (--address)")
    return spec


def split(specs: str) -> list[str]:
    """Comma-separated agent specs, without blanks or repeats."""
    return list(dict.fromkeys(s.strip() for s in specs.split(",") if s.strip()))


def build_algorithm(args: Args, spec, opponents: list[str]):
    """Joins the cluster of ``--address`` or starts a local Ray instance (unless one is running), and
    builds RLlib's PPO for the checked ``args`` (see the module docstring): the batched env runners, the
    masked learner module, the opponents as fixed modules. Returns the ``Algorithm``."""
    import ray
    from ray.rllib.algorithms.ppo import PPOConfig
    from ray.rllib.core.rl_module.multi_rl_module import MultiRLModuleSpec
    from ray.rllib.core.rl_module.rl_module import RLModuleSpec

    from . import rllib_env

    players = spec.num_players
    rules = parse_rules(args.rules)
    features = args.features or spec.default_features
    hidden = parse_net_arch(args.net_arch)
    if not ray.is_initialized():
        if args.address:
            ray.init(address=args.address, log_to_driver=False)
        else:
            rllib_env.start_local_ray(args.num_cpus or None)
    rllib_env.register()
    env_config = {"game": args.env, "num_players": players, "rules": rules, "features": features,
                  "include_raw": bool(opponents), "seed": args.seed}
    modules = {rllib_env.LEARNER: RLModuleSpec(module_class=rllib_env.MaskedPPOModule,
                                                model_config={"net_arch": hidden, "activation": args.activation})}
    for i, name in enumerate(opponents):
        modules[f"opponent_{i}"] = RLModuleSpec(module_class=rllib_env.HeuristicModule,
                                                model_config={"agent": name, "game": args.env,
                                                              "num_players": players,
                                                              "seed": args.seed + 1 + i})
    config = (
        PPOConfig()
        .environment(rllib_env.ENV_NAME, env_config=env_config, disable_env_checking=True)
        .framework("torch", torch_compile_learner=False)
        .env_runners(env_runner_cls=rllib_env.BatchedEnvRunner, num_env_runners=args.num_env_runners,
                     num_envs_per_env_runner=args.num_envs_per_env_runner, rollout_fragment_length="auto",
                     num_cpus_per_env_runner=1)
        .learners(num_learners=args.num_learners)
        .training(train_batch_size_per_learner=args.train_batch_size // max(args.num_learners, 1),
                  minibatch_size=args.minibatch_size, num_epochs=args.num_epochs, lr=args.learning_rate,
                  gamma=args.gamma, lambda_=args.gae_lambda, clip_param=args.clip_range,
                  entropy_coeff=args.ent_coef, use_kl_loss=False, vf_clip_param=float("inf"))
        .multi_agent(policies=set(modules), policy_mapping_fn=rllib_env.SeatMapping(players, len(opponents)),
                     policies_to_train=[rllib_env.LEARNER])
        .rl_module(rl_module_spec=MultiRLModuleSpec(rl_module_specs=modules))
        .callbacks(rllib_env.LearnerStats)
        .debugging(seed=args.seed, log_level="ERROR")
    )
    return config.build_algo()


def main(argv: list[str] | None = None) -> dict:
    """Runs one training as ``Args`` says; returns a summary (paths and final figures)."""
    args = parse_dataclass(Args, argv, prog=PROG, examples=EXAMPLES)
    return train(args)


def train(args: Args) -> dict:
    """Trains, evaluates, checkpoints, exports and plays the final tournament (module docstring)."""
    from .train import default_opponents, final_tournament, plot_curve

    with user_errors():
        spec = check_args(args)
        opponents = split(args.opponents)
        baselines = split(args.baselines) or opponents or split(default_opponents(spec))
        # Every spec is built once here, so a typo is the user's error before Ray starts.
        for flag, specs in (("--opponents", opponents), ("--baselines", baselines)):
            for s in specs:
                make_agent(flag, s, game=args.env, seed=args.seed, num_players=spec.num_players)
    if not args.address:
        keep_ray_on_loopback()
    try:
        import ray
        import ray.rllib  # noqa: F401
    except ImportError:
        raise UsageError(RAY_MISSING) from None
    import torch

    from agents.rllib import RLlibAgent, RLlibPolicyInfo, load_export, write_export

    from . import rllib_env
    from .tournament import play_tournament

    torch.set_num_threads(args.torch_threads)
    rules = parse_rules(args.rules)
    players = spec.num_players
    features = args.features or spec.default_features
    hidden = parse_net_arch(args.net_arch)
    run_dir = Path(args.out_dir) / (args.run_name or f"{args.env}_{players}p_rllib_seed{args.seed}")
    (run_dir / "checkpoints").mkdir(parents=True, exist_ok=True)

    algo = build_algorithm(args, spec, opponents)
    info = RLlibPolicyInfo(game=spec.name, num_players=players, rules=spec.rules,
                           observation_version=spec.observation_version, observation_size=spec.observation_size,
                           num_actions=spec.num_actions, features=features, net_arch=tuple(hidden),
                           activation=args.activation, game_version=spec.version, ray_version=ray.__version__)

    def export(path: Path, timesteps: int) -> Path:
        """Writes the learning policy's safe export (``agents/rllib.py``) to ``path``.npz/.json."""
        state = algo.learner_group.get_weights(module_ids=[rllib_env.LEARNER])[rllib_env.LEARNER]
        return write_export(rllib_env.policy_weights(state), path, dataclasses.replace(info, timesteps=timesteps))

    def evaluate(path: Path, seed: int) -> dict[str, float]:
        """The exported policy against P-1 copies of each baseline: its win share."""
        weights, loaded = load_export(path, args.env)
        learner = RLlibAgent(weights, loaded, name="rllib")
        out = {}
        for name in baselines:
            opponent = make_agent("--baselines", name, game=args.env, seed=seed, num_players=players)
            result = play_tournament([learner] + [opponent] * (players - 1), num_players=players,
                                     games=args.eval_games, seed=seed, env=args.env, **rules)
            out[name] = result.agents[0].win_rate
        return out

    from torch.utils.tensorboard import SummaryWriter

    writer = SummaryWriter(str(run_dir / "tensorboard"))
    curve: list[dict] = []
    learner_steps = env_steps = iteration = 0
    start = time.time()
    while learner_steps < args.total_timesteps:
        result = algo.train()
        iteration += 1
        runners = result.get("env_runners", {})
        learner_steps = int(runners.get("num_module_steps_sampled_lifetime", {}).get(rllib_env.LEARNER, learner_steps))
        env_steps = int(result.get("num_env_steps_sampled_lifetime", env_steps))
        elapsed = time.time() - start
        win = runners.get("learner_win_share", float("nan"))
        figures = {"learner_decisions": learner_steps, "env_steps": env_steps,
                   "env_steps_per_s": env_steps / max(elapsed, 1e-9), "learner_win_share": win}
        for key, value in figures.items():
            writer.add_scalar(f"rllib/{key}", value, learner_steps)
        for name, value in runners.items():
            if name.startswith("win_share_vs/"):
                writer.add_scalar(name, value, learner_steps)
        learner_results = result.get("learners", {}).get(rllib_env.LEARNER, {})
        for key in ("policy_loss", "vf_loss", "entropy"):
            if key in learner_results:
                writer.add_scalar(f"learner/{key}", float(learner_results[key]), learner_steps)
        point = {"timesteps": learner_steps, "train_win_rate": float(win) if opponents else float("nan")}
        out_of_time = args.max_minutes and elapsed >= 60 * args.max_minutes
        last = out_of_time or learner_steps >= args.total_timesteps
        if args.eval_every and iteration % args.eval_every == 0 and not last:
            export_path = export(run_dir / "checkpoints" / f"iter_{iteration}_policy", learner_steps)
            algo.save_to_path(str((run_dir / "checkpoints" / f"iter_{iteration}").resolve()))
            point["eval"] = evaluate(export_path, seed=10_000 + iteration)
            for name, value in point["eval"].items():
                writer.add_scalar(f"eval_win_rate/{name}", value, learner_steps)
        curve.append(point)
        writer.flush()
        if args.progress:
            shown = ", ".join(f"{k} {v:.3f}" for k, v in point.get("eval", {}).items())
            print(f"iter {iteration}: {learner_steps:,} learner decisions, {env_steps:,} env steps "
                  f"({figures['env_steps_per_s']:,.0f}/s), {elapsed / 60:.1f} min"
                  + (f", train win share {win:.3f}" if opponents else "") + (f"; eval: {shown}" if shown else ""),
                  flush=True)
        if out_of_time:
            break
    train_seconds = time.time() - start
    final_path = export(run_dir / "policy", learner_steps)
    algo.save_to_path(str((run_dir / "checkpoints" / "final").resolve()))
    writer.close()
    algo.stop()

    import agents

    learner = agents.make(f"rllib:{final_path}", game=args.env, num_players=players, rules=rules)
    learner.name = "rllib"
    summary = final_tournament(learner, baselines, args.env, players, args.final_games, args.seed, rules,
                               args.progress, run_dir / "tournament.json")
    curve_path = plot_curve(curve, run_dir / "learning_curve.png", players, title="RLlib PPO")
    # Strict JSON: a win share not measured (self-play trains against itself) is null, not NaN.
    plain = [{k: (None if isinstance(v, float) and v != v else v) for k, v in point.items()} for point in curve]
    (run_dir / "curve.json").write_text(json.dumps(plain, indent=2, allow_nan=False))
    print(f"\ntrained {learner_steps:,} learner decisions ({env_steps:,} env steps) in {train_seconds / 60:.1f} min "
          f"({env_steps / train_seconds:,.0f} env steps/s)")
    print(f"policy export:  {final_path} (+ {final_path.with_suffix('.json').name}); "
          f"agents.make('rllib:{final_path}')")
    print(f"RLlib checkpoint: {run_dir / 'checkpoints' / 'final'} (pickles: for resuming your own runs only)")
    print(f"tournament:     {run_dir / 'tournament.json'}")
    print(f"learning curve: {curve_path}")
    print(f"tensorboard:    tensorboard --logdir {run_dir / 'tensorboard'}")
    return {"run_dir": str(run_dir), "export": str(final_path), "tournament": summary, "timesteps": learner_steps,
            "env_steps": env_steps, "seconds": train_seconds, "iterations": iteration,
            "learning_curve": str(curve_path)}


if __name__ == "__main__":
    os.environ.setdefault("RAY_DEDUP_LOGS", "0")
    run_command(main)
