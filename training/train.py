"""Train a MaskablePPO agent against the heuristic baselines: ``python -m training.train``.

Read top to bottom: the arguments (``Args``), the opponent pool, the vector environment over the
batched core, the model, the callback that shows progress, logs to TensorBoard, evaluates,
snapshots and checkpoints, and the final tournament with its learning curve. ``--critic oracle``
gives the value network hidden state that the policy never reads (``training/oracle.py``).

Everything goes to ``<out_dir>/<run_name>/``: ``final.zip`` + ``final.json`` (the checkpoint and its
sidecar), ``checkpoints/``, ``tensorboard/``, ``learning_curve.png``, ``tournament.json``.
"""

from __future__ import annotations

import copy
import dataclasses
import json
import time
from collections import defaultdict, deque
from pathlib import Path

import numpy as np

from agents.features import FEATURE_SETS

from .cli import parse_dataclass, parse_rules

GAMES = ("keine_ahnung_v0",)


@dataclasses.dataclass
class Args:
    """Train a MaskablePPO agent for Keine Ahnung against heuristic baselines (and its own snapshots)."""

    env: str = "keine_ahnung_v0"
    """the game variant family (keine_ahnung_v0)"""
    players: int = 4
    """number of players, 2-5; the learner takes one seat, rotating between games"""
    total_timesteps: int = 400_000
    """learner decisions to train on (the default, 400,000, took 4 min 18 s on an idle 2-core machine)"""
    max_minutes: float = 0.0
    """wall-clock budget of the PPO phase in minutes (0: none); training stops at the first rollout
    end past it and then checkpoints and plays the final tournament as usual"""
    num_envs: int = 128
    """games stepped together in one core (more games amortise the opponents' batched act calls)"""
    n_steps: int = 64
    """learner decisions per game per rollout (rollout size = num_envs * n_steps)"""
    batch_size: int = 2048
    """minibatch size of a PPO update"""
    n_epochs: int = 4
    """passes over each rollout"""
    learning_rate: float = 3e-4
    """Adam step size"""
    gamma: float = 0.998
    """discount: games last 50-400 learner decisions and pay only at the end, so close to 1"""
    gae_lambda: float = 0.95
    """GAE smoothing"""
    clip_range: float = 0.2
    """PPO clipping"""
    ent_coef: float = 0.01
    """entropy bonus"""
    critic: str = "public"
    """public: the value network reads the policy's inputs; oracle: it also reads hidden state (face-down
    cards, the next draws, trophy values; training/oracle.py) that the policy never reads, for less noisy
    advantages (asymmetric actor-critic). A checkpoint of the other kind given to --resume lends its actor"""
    critic_warmup: int = 0
    """PPO updates at the start during which only the value network learns (the actor is frozen):
    useful when a trained actor meets a new critic (--resume across --critic kinds, --imitate)"""
    warmup_learning_rate: float = 5e-4
    """Adam step size during --critic-warmup (only the critic learns then, so it may be larger)"""
    net_arch: str = "256,256"
    """hidden layer sizes of the policy and value networks"""
    activation: str = "tanh"
    """tanh or relu"""
    features: str = "hints"
    """policy inputs: raw (the scaled observation), hints (plus risk-model features) or advice (hints plus the
    counter heuristic's move as a one-hot: the policy learns where to differ from it; agents/features.py)"""
    opponents: str = "random,never_call,always_call,greedy,risk_caller:0.5,counter"
    """comma-separated agent specs forming the opponent pool (sampled per game and seat)"""
    resume: str = ""
    """continue training a checkpoint written by this script (its zip is unpickled: only your own files)"""
    imitate: str = ""
    """warm start: imitate this agent spec (e.g. counter) before PPO; empty = start from scratch"""
    imitation_games: int = 600
    """with --imitate: games the teacher plays (every seat) to make the demonstrations"""
    imitation_epochs: int = 4
    """with --imitate: passes over the demonstrations"""
    self_play: bool = False
    """also add frozen snapshots of the learner to the opponent pool"""
    snapshot_every: int = 25
    """with --self-play: add a snapshot every this many PPO updates"""
    max_snapshots: int = 5
    """with --self-play: keep at most this many snapshots (oldest dropped)"""
    eval_every: int = 20
    """evaluate against the baselines and checkpoint every this many PPO updates (0: never)"""
    eval_games: int = 100
    """games per baseline in each periodic evaluation"""
    final_games: int = 400
    """games in the final tournament against each baseline"""
    rules: list[str] = dataclasses.field(default_factory=list)
    """rules options as key=value (e.g. memory=none allow_keep=true)"""
    seed: int = 0
    """seeds the games, the opponents and the network"""
    out_dir: str = "runs"
    """where runs are written"""
    run_name: str = ""
    """sub-folder of out_dir (default: <env>_<players>p_seed<seed>)"""
    torch_threads: int = 2
    """torch CPU threads"""
    progress: bool = True
    """show a progress bar"""


def check_args(args: Args) -> None:
    """Raises ValueError naming the first bad argument and what is allowed."""
    if args.env not in GAMES:
        raise ValueError(f"--env {args.env!r}; allowed: {', '.join(GAMES)}")
    if not 2 <= args.players <= 5:
        raise ValueError(f"--players {args.players}; allowed: 2-5")
    for name in ("total_timesteps", "num_envs", "n_steps", "batch_size", "n_epochs", "eval_games", "final_games",
                 "snapshot_every", "max_snapshots", "torch_threads", "imitation_games", "imitation_epochs"):
        if getattr(args, name) < 1:
            raise ValueError(f"--{name.replace('_', '-')} {getattr(args, name)}; allowed: a positive integer")
    if not args.max_minutes >= 0:
        raise ValueError(f"--max-minutes {args.max_minutes}; allowed: 0 (no budget) or a positive number of minutes")
    if args.eval_every < 0:
        raise ValueError(f"--eval-every {args.eval_every}; allowed: 0 (never) or a positive integer")
    if args.critic not in ("public", "oracle"):
        raise ValueError(f"--critic {args.critic!r}; allowed: public, oracle")
    if not args.warmup_learning_rate > 0:
        raise ValueError(f"--warmup-learning-rate {args.warmup_learning_rate}; allowed: a positive number")
    if args.critic_warmup < 0:
        raise ValueError(f"--critic-warmup {args.critic_warmup}; allowed: 0 or a positive number of updates")
    if args.features not in FEATURE_SETS:
        raise ValueError(f"--features {args.features!r}; allowed: {', '.join(FEATURE_SETS)}")
    if args.activation not in ("tanh", "relu"):
        raise ValueError(f"--activation {args.activation!r}; allowed: tanh, relu")
    try:
        arch = [int(n) for n in args.net_arch.split(",") if n.strip()]
    except ValueError:
        arch = []
    if not arch or min(arch) < 1:
        raise ValueError(f"--net-arch {args.net_arch!r}; allowed: comma-separated positive sizes, e.g. 256,256")


class OpponentPool:
    """Baselines (and, with self-play, learner snapshots); ``pool(rng)`` draws P-1 seats' agents."""

    def __init__(self, baselines: list, num_players: int, max_snapshots: int):
        self.baselines = baselines
        self.snapshots: deque = deque(maxlen=max_snapshots)
        self.num_players = num_players

    @property
    def members(self) -> list:
        return self.baselines + list(self.snapshots)

    def __call__(self, rng: np.random.Generator) -> list:
        members = self.members
        return [members[i] for i in rng.integers(len(members), size=self.num_players - 1)]


def main(argv: list[str] | None = None) -> dict:
    """Runs one training as ``Args`` says; returns a summary (paths and final figures)."""
    args = parse_dataclass(Args, argv)
    return train(args)


def train(args: Args) -> dict:
    """Trains, evaluates and writes everything; see the module docstring."""
    check_args(args)
    import torch
    from sb3_contrib import MaskablePPO
    from stable_baselines3.common.callbacks import BaseCallback
    from stable_baselines3.common.vec_env import VecMonitor
    from tqdm import tqdm

    import agents
    from agents.features import ObservationFeatures, feature_vec_env, pad_privileged
    from agents.policies import ACTOR_PREFIXES, OracleCriticPolicy
    from agents.ppo import (CheckpointInfo, PPOAgent, archive_path, check_compatible, is_play_only, load_policy,
                            read_info, save_checkpoint)
    from keine_ahnung_env import keine_ahnung_v0
    from keine_ahnung_env.games.keine_ahnung.actions import NUM_ACTIONS
    from keine_ahnung_env.games.keine_ahnung.config import Rules
    from keine_ahnung_env.games.keine_ahnung.observation import OBSERVATION_VERSION

    from .imitation import collect_demonstrations, pretrain
    from .oracle import learner_privileged, privileged_size
    from .tournament import play_tournament

    torch.set_num_threads(args.torch_threads)
    rules = parse_rules(args.rules)
    variant = Rules.make(args.players, **rules)  # validates the rules options
    run_dir = Path(args.out_dir) / (args.run_name or f"{args.env}_{args.players}p_seed{args.seed}")
    (run_dir / "checkpoints").mkdir(parents=True, exist_ok=True)
    net_arch = [int(n) for n in args.net_arch.split(",") if n.strip()]

    # Opponents: one instance per distinct baseline spec, shared by every game and seat (agents are
    # batched, so each extra instance would cost one more act() call per round of play); a spec
    # listed twice is drawn twice as often.
    listed = [s.strip() for s in args.opponents.split(",") if s.strip()]
    specs = list(dict.fromkeys(listed))
    instances = {s: agents.make(s, game=args.env, seed=args.seed + 1 + i) for i, s in enumerate(specs)}
    baselines = [instances[s] for s in listed]
    pool = OpponentPool(baselines, args.players, args.max_snapshots)
    features = ObservationFeatures(args.features, args.players, rules)
    games = keine_ahnung_v0.sb3_vec_env(args.num_envs, opponents=pool, num_players=args.players, seed=args.seed,
                                        normalize_obs=False, **rules)
    activation = {"tanh": torch.nn.Tanh, "relu": torch.nn.ReLU}[args.activation]
    oracle = args.critic == "oracle"
    hidden = privileged_size(args.players) if oracle else 0
    env = VecMonitor(feature_vec_env(games, features, privileged=learner_privileged if oracle else None,
                                     privileged_width=hidden))
    info = CheckpointInfo(game=args.env, num_players=args.players, rules=variant.options(),
                          observation_version=OBSERVATION_VERSION, observation_size=features.input_size,
                          num_actions=NUM_ACTIONS, features=args.features, net_arch=tuple(net_arch),
                          activation=args.activation, critic=args.critic, privileged_size=hidden)
    policy_class = OracleCriticPolicy if oracle else "MlpPolicy"
    policy_kwargs = dict(net_arch=net_arch, activation_fn=activation)
    if oracle:
        policy_kwargs["public_size"] = features.size
    hyper = dict(learning_rate=args.learning_rate, n_steps=args.n_steps, batch_size=args.batch_size,
                 n_epochs=args.n_epochs, gamma=args.gamma, gae_lambda=args.gae_lambda, clip_range=args.clip_range,
                 ent_coef=args.ent_coef)
    if args.resume:
        # MaskablePPO.load unpickles the archive: only for checkpoints this project wrote for you.
        recorded = read_info(args.resume)
        if is_play_only(args.resume):
            raise ValueError(f"--resume {args.resume} is a play-only export (weights without optimizer state or "
                             "training data); resume from the training run's own checkpoint")
        check_compatible(recorded, args.env, args.players, rules, where=f"--resume {args.resume}")
        if recorded.features != args.features or recorded.net_arch != tuple(net_arch) \
                or recorded.activation != args.activation:
            raise ValueError(f"--resume {args.resume} uses features={recorded.features!r}, net_arch="
                             f"{list(recorded.net_arch)}, activation={recorded.activation!r}; pass the same "
                             "--features, --net-arch and --activation")
    if args.resume and recorded.critic == args.critic:
        model = MaskablePPO.load(str(archive_path(args.resume)), env=env, device="cpu", custom_objects=hyper,
                                 tensorboard_log=str(run_dir / "tensorboard"))
    else:
        model = MaskablePPO(policy_class, env, policy_kwargs=policy_kwargs, tensorboard_log=str(run_dir / "tensorboard"),
                            seed=args.seed, device="cpu", verbose=0, **hyper)
        if args.resume:
            # Another critic kind: the actor (policy network and action head) carries over, the critic
            # starts afresh, so --critic-warmup is advised.
            lent, _ = load_policy(args.resume, args.env)
            actor = {k: v for k, v in lent.state_dict().items() if k.startswith(ACTOR_PREFIXES)}
            model.policy.load_state_dict(actor, strict=False)
            model.num_timesteps = recorded.timesteps
            print(f"actor from {args.resume} ({recorded.critic} critic); new {args.critic} critic", flush=True)

    if args.imitate:
        teacher = agents.make(args.imitate, game=args.env, seed=args.seed + 500)
        start = time.time()
        demos = collect_demonstrations(teacher, features, args.players, args.imitation_games, seed=args.seed + 500,
                                       rules=rules)
        demos = dataclasses.replace(demos, inputs=pad_privileged(demos.inputs, hidden))
        fit = pretrain(model.policy, demos, epochs=args.imitation_epochs, seed=args.seed)
        print(f"imitated {args.imitate}: {fit['samples']:,} decisions from {args.imitation_games} games, "
              f"accuracy {fit['accuracy']:.3f} ({time.time() - start:.0f} s)", flush=True)

    def learner_agent(deterministic: bool = True) -> PPOAgent:
        """The current policy, frozen, as a batched agent."""
        policy = copy.deepcopy(model.policy)
        policy.set_training_mode(False)
        return PPOAgent(policy, dataclasses.replace(info, timesteps=model.num_timesteps),
                        deterministic=deterministic, name=f"ppo@{model.num_timesteps}")

    def evaluate(games: int, seed: int) -> dict[str, dict]:
        """The learner against three copies (P-1 copies) of each baseline, seat-rotated."""
        learner = learner_agent()
        out = {}
        for spec in specs:
            opponent = agents.make(spec, game=args.env, seed=seed)
            result = play_tournament([learner] + [opponent] * (args.players - 1), num_players=args.players,
                                     games=games, seed=seed, progress=False, **rules)
            stats = result.agents[0]
            out[spec] = {"win_rate": stats.win_rate, "win_interval": list(stats.win_interval),
                         "fair_share": 1.0 / args.players, "mean_score": stats.mean_score,
                         "calls_per_game": stats.calls_per_game, "call_success_rate": stats.call_success_rate}
        return out

    curve: list[dict] = []

    class TrainingCallback(BaseCallback):
        """Progress bar, TensorBoard statistics, periodic evaluation, snapshots and checkpoints."""

        def __init__(self):
            super().__init__()
            self.recent = deque(maxlen=500)
            self.by_opponent = defaultdict(lambda: deque(maxlen=500))
            self.calls = deque(maxlen=500)
            self.successes = deque(maxlen=500)
            self.updates = 0
            self.out_of_time = False
            self.bar = tqdm(total=args.total_timesteps, disable=not args.progress, unit="step", smoothing=0.05)
            self.start = time.time()

        def _on_training_start(self) -> None:
            self.first_step = self.num_timesteps  # non-zero when resuming
            self._freeze_actor(args.critic_warmup > 0)

        def _freeze_actor(self, frozen: bool) -> None:
            # A frozen parameter gets no gradient, so Adam leaves it alone; the critic still learns,
            # at the warm-up step size (SB3 sets every update's step size from model.lr_schedule).
            for name, parameter in model.policy.named_parameters():
                if name.startswith(ACTOR_PREFIXES):
                    parameter.requires_grad_(not frozen)
            if frozen:
                self.schedule = model.lr_schedule
                model.lr_schedule = lambda _: args.warmup_learning_rate
            elif hasattr(self, "schedule"):
                model.lr_schedule = self.schedule

        def _on_step(self) -> bool:
            for done, info in zip(self.locals["dones"], self.locals["infos"]):
                if not done:
                    continue
                won = float(info.get("winner", False))
                self.recent.append(won)
                for name in set(info.get("opponents", [])):
                    self.by_opponent[name].append(won)
                if "calls" in info:
                    self.calls.append(info["calls"])
                    self.successes.append(info.get("call_successes", 0))
            self.bar.update(self.training_env.num_envs)
            return not self.out_of_time

        def _on_rollout_end(self) -> None:
            self.updates += 1
            if args.critic_warmup and self.updates == args.critic_warmup + 1:
                self._freeze_actor(False)  # the update after this rollout is the first to move the actor
            # The budget is checked only here, so a stop never cuts a rollout short.
            if args.max_minutes and time.time() - self.start >= 60 * args.max_minutes:
                self.out_of_time = True
            rate = (self.num_timesteps - self.first_step) / max(time.time() - self.start, 1e-9)
            win = float(np.mean(self.recent)) if self.recent else float("nan")
            self.bar.set_postfix(steps_per_s=f"{rate:,.0f}", win_rate=f"{win:.3f}", games=len(self.recent))
            self.logger.record("game/win_rate", win)
            self.logger.record("time/steps_per_second", rate)
            for name, results in self.by_opponent.items():
                self.logger.record(f"win_rate_vs/{name}", float(np.mean(results)))
            if self.calls:
                calls = float(np.sum(self.calls))
                self.logger.record("calls/per_game", calls / len(self.calls))
                self.logger.record("calls/success_rate", float(np.sum(self.successes)) / calls if calls else 0.0)
            curve.append({"timesteps": self.num_timesteps, "train_win_rate": win})
            if args.self_play and self.updates % args.snapshot_every == 0:
                pool.snapshots.append(learner_agent(deterministic=False))
            if args.eval_every and self.updates % args.eval_every == 0:
                results = evaluate(args.eval_games, seed=10_000 + self.updates)
                for spec, r in results.items():
                    self.logger.record(f"eval_win_rate/{spec}", r["win_rate"])
                curve[-1]["eval"] = {spec: r["win_rate"] for spec, r in results.items()}
                save_checkpoint(model, run_dir / "checkpoints" / f"step_{self.num_timesteps}",
                                dataclasses.replace(info, timesteps=self.num_timesteps))

    callback = TrainingCallback()
    model.learn(total_timesteps=args.total_timesteps, callback=callback, tb_log_name="ppo",
                reset_num_timesteps=not args.resume)
    callback.bar.close()
    train_seconds = time.time() - callback.start
    final_path = save_checkpoint(model, run_dir / "final", dataclasses.replace(info, timesteps=model.num_timesteps))

    # The final tournament: the evaluate command's table, the trained agent against each baseline.
    learner = agents.make("ppo", path=str(final_path), game=args.env, num_players=args.players, rules=rules)
    learner.name = "ppo"
    tables, summary = [], {}
    for spec in specs:
        opponent = agents.make(spec, game=args.env, seed=args.seed)
        result = play_tournament([learner] + [opponent] * (args.players - 1), num_players=args.players,
                                 games=args.final_games, seed=args.seed + 99, progress=args.progress, **rules)
        tables.append(f"vs {args.players - 1} x {spec}:\n{result.table()}")
        stats = result.agents[0]
        summary[spec] = {"win_rate": stats.win_rate, "win_interval": list(stats.win_interval),
                         "fair_share": 1.0 / args.players, "games": stats.games, "mean_score": stats.mean_score}
    print("\n\n".join(tables))
    (run_dir / "tournament.json").write_text(json.dumps(summary, indent=2))
    curve_path = plot_curve(curve, run_dir / "learning_curve.png", args.players)
    trained_now = model.num_timesteps - callback.first_step
    print(f"\ntrained {trained_now:,} steps ({model.num_timesteps:,} in all) in {train_seconds / 60:.1f} min "
          f"({trained_now / train_seconds:,.0f} steps/s)")
    print(f"checkpoint:     {final_path} (+ {final_path.with_suffix('.json').name})")
    print(f"tournament:     {run_dir / 'tournament.json'}")
    print(f"learning curve: {curve_path}")
    print(f"tensorboard:    tensorboard --logdir {run_dir / 'tensorboard'}")
    env.close()
    return {"run_dir": str(run_dir), "checkpoint": str(final_path), "tournament": summary,
            "learning_curve": str(curve_path), "timesteps": int(model.num_timesteps)}


def plot_curve(curve: list[dict], path: Path, num_players: int) -> Path:
    """Training win rate (rolling) and evaluation win rates against timesteps, as a PNG."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(8, 4.5))
    steps = [c["timesteps"] for c in curve]
    ax.plot(steps, [c["train_win_rate"] for c in curve], label="training games (last 500)", color="black")
    evals = [c for c in curve if "eval" in c]
    for spec in (evals[0]["eval"] if evals else {}):
        ax.plot([c["timesteps"] for c in evals], [c["eval"][spec] for c in evals], marker="o", label=f"vs {spec}")
    ax.axhline(1.0 / num_players, color="grey", linestyle="--", label="fair share")
    ax.set_xlabel("learner decisions (timesteps)")
    ax.set_ylabel("win rate")
    ax.set_ylim(0, 1)
    ax.set_title(f"MaskablePPO, {num_players} players")
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)
    return path


if __name__ == "__main__":
    main()
