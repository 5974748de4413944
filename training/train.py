"""Train a MaskablePPO agent against the heuristic baselines: ``python -m training.train``.

Works for every game of ``keine_ahnung_env.registry``: everything game-specific (player range, rules,
observation and action sizes, feature sets, the oracle critic's hidden inputs, the game's own episode
statistics, its heuristic agents, its tuned recipe) comes from the game's ``GameSpec``.

The game's recipe (``GameSpec.training_recipe``) fills every argument the user leaves out, so the
plain ``python -m training.train`` trains the game's strong default; for Keine Ahnung a warm start
imitating ``counter_tuned`` on features that carry its move, then gentle PPO (docs/training.md,
"The default recipe"). ``--recipe plain`` gives the generic defaults of ``Args`` instead.

Read top to bottom: the arguments (``Args``), the opponent pool, the vector environment over the
batched core, the model, the callback that shows progress, logs to TensorBoard, evaluates,
snapshots and checkpoints, and the final tournament with its learning curve. ``--critic oracle``
gives the value network hidden state that the policy never reads (``training/oracle.py``).
``--resume`` rebuilds the model from the checkpoint's sidecar and reads only tensors and plain JSON
numbers from its archive (``agents.ppo.load_training_state``): nothing in the file is unpickled.

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

from keine_ahnung_env.registry import DEFAULT_GAME

from .cli import (UsageError, check_device, check_env, check_int, check_number, check_players, check_positive,
                  check_seed, check_variant, given_fields, make_agent, parse_dataclass, parse_net_arch, parse_rules,
                  resolve_device, run_command, usage_error, user_errors)

PROG = "python -m training.train"
EXAMPLES = (
    "--env keine_ahnung_v0 --players 4",
    "--players 3 --recipe plain --opponents counter --max-minutes 10 --seed 1",
    "--resume runs/keine_ahnung_v0_4p_seed0/final.zip --critic oracle --critic-warmup 20",
)


@dataclasses.dataclass
class Args:
    """Train a MaskablePPO agent for a registered game against heuristic baselines
    (and its own snapshots). The game's recipe fills every option you leave out;
    --recipe plain uses the defaults shown.

    Defaults that depend on the game come from its spec: ``--players 0`` is the game's default player
    count, an empty ``--features`` its default feature set, an empty ``--opponents`` ``random`` plus
    every heuristic agent the game declares (keine_ahnung_v0: 4 players, hints,
    random,never_call,always_call,greedy,risk_caller,counter).

    On top of them the game's recipe (``--recipe game``, the game's ``training_recipe``) sets every
    argument the command line leaves out; keine_ahnung_v0: features advice_tuned, imitate counter_tuned
    (1000 games, 4 epochs, 8 samples), opponents counter,counter,greedy,risk_caller:0.5, learning rate
    5e-5, clip 0.1, entropy 0, gamma 0.999, 256 games x 64 steps, batches of 4096, 1,000,000 decisions
    or 7 minutes, eval every 10 updates, a final tournament of 3000 games against three counters, three
    randoms and in a league with counter, greedy and risk_caller:0.5 (TRAINING_RECIPE in the game's
    spec.py; docs/training.md). ``--recipe plain`` keeps the defaults of this class."""

    env: str = DEFAULT_GAME
    """the game"""
    recipe: str = "game"
    """game (the game's tuned recipe) or plain

    game: the game's recipe sets every argument left out (keine_ahnung_v0: imitate counter_tuned on the
    advice_tuned features, then gentle PPO against a counter-heavy pool; docs/training.md); plain: the
    defaults of this class."""
    players: int = 0
    """players (0: the game's default)

    The learner takes one seat, rotating between games."""
    total_timesteps: int = 400_000
    """learner decisions to train on"""
    max_minutes: float = 0.0
    """time budget of the PPO phase (0: none)

    Training stops at the first rollout end past it, then checkpoints and plays the final tournament
    as usual."""
    num_envs: int = 128
    """games stepped together in one core

    More games amortise the opponents' batched act calls."""
    n_steps: int = 64
    """learner decisions per game per rollout"""
    batch_size: int = 2048
    """minibatch size of a PPO update"""
    n_epochs: int = 4
    """passes over each rollout"""
    learning_rate: float = 3e-4
    """Adam step size"""
    gamma: float = 0.998
    """discount

    Close to 1 for games that pay only at the end (Keine Ahnung: 50-400 learner decisions)."""
    gae_lambda: float = 0.95
    """GAE smoothing"""
    clip_range: float = 0.2
    """PPO clipping"""
    ent_coef: float = 0.01
    """entropy bonus"""
    critic: str = "public"
    """public or oracle (reads hidden state)

    public: the value network reads the policy's inputs; oracle: it also reads the game's hidden state
    (GameSpec.privileged; Keine Ahnung: face-down cards, the next draws, trophy values;
    training/oracle.py) that the policy never reads, for less noisy advantages (asymmetric
    actor-critic); only for games that offer hidden inputs. A checkpoint of the other kind given to
    --resume lends its actor."""
    critic_warmup: int = 0
    """updates that train only the critic

    Useful when a trained actor meets a new critic (--resume across --critic kinds, --imitate)."""
    warmup_learning_rate: float = 5e-4
    """Adam step size during --critic-warmup"""
    net_arch: str = "256,256"
    """hidden layer sizes"""
    activation: str = "tanh"
    """tanh or relu"""
    features: str = ""
    """policy inputs: one of the game's feature sets

    Empty: the game's default (GameSpec.default_features); raw, the scaled observation, is always
    there. keine_ahnung_v0 (default hints): raw, hints (plus risk-model features), advice (hints plus
    the counter heuristic's move as a one-hot: the policy learns where to differ from it) or
    advice_tuned (the same with counter_tuned's move; the recipe's;
    keine_ahnung_env/games/keine_ahnung/features.py)."""
    opponents: str = ""
    """opponent pool: comma-separated agent specs

    Sampled per game and seat; empty: random, then every heuristic agent the game declares (in its
    order, default arguments)."""
    resume: str = ""
    """continue training this checkpoint

    The model is rebuilt from its sidecar and the weights and optimizer state are read as tensors only
    (nothing in the file is unpickled); the hyper-parameters are this command's; --features,
    --net-arch and --activation come from the checkpoint (given, they must match it)."""
    imitate: str = ""
    """warm start: imitate this agent spec first

    Empty: start from scratch (pass --imitate '' to leave out the warm start of the game's recipe;
    --resume never imitates)."""
    imitation_games: int = 600
    """games the teacher plays for --imitate"""
    imitation_epochs: int = 4
    """passes over the demonstrations"""
    imitation_samples: int = 1
    """teacher's answers per decision

    Above 1 the policy learns to put its probability on the set of moves the teacher gave (a teacher
    that picks among alike moves at random, such as counter revealing one of its unknown cards, then
    still teaches one clear best move)."""
    self_play: bool = False
    """add learner snapshots to the opponent pool"""
    snapshot_every: int = 25
    """updates between self-play snapshots"""
    max_snapshots: int = 5
    """self-play snapshots kept"""
    eval_every: int = 20
    """updates between evaluations (0: never)

    Each evaluation also writes a checkpoint."""
    eval_games: int = 100
    """games per baseline in an evaluation"""
    final_games: int = 400
    """games per final tournament"""
    final_opponents: str = ""
    """final tournament's opponents; empty: the pool's

    Comma-separated agent specs the final tournament plays against (P-1 copies of each in turn);
    empty: every distinct agent of the opponent pool."""
    final_league: str = ""
    """agents of a final league with the trained one

    Comma-separated agent specs that also play one league with the trained agent at the end
    (--final-games games, every agent in every seat equally often, common deals: each agent's win
    share beside the trained agent's); empty: no league."""
    target_kl: float = 0.0
    """KL guard of a PPO update (0: none)

    Stops an update's passes early once the approximate KL divergence from the policy that played the
    rollout exceeds 1.5 x this (SB3's target_kl)."""
    rules: list[str] = dataclasses.field(default_factory=list)
    """the game's rules options (memory=none ...)"""
    seed: int = 0
    """seeds games, opponents and network"""
    out_dir: str = "runs"
    """where runs are written"""
    run_name: str = ""
    """sub-folder; default <env>_<players>p_seed<seed>"""
    torch_threads: int = 2
    """torch CPU threads"""
    device: str = "auto"
    """torch device: auto, cpu or cuda

    auto: cuda where torch sees a CUDA device, else cpu. Only the networks move there (the rollouts'
    forward passes and the PPO updates, the --imitate warm start); the games, the opponents and the
    evaluations stay on the CPU, and the checkpoint loads on the CPU as before (its sidecar records the
    device it was trained on)."""
    progress: bool = True
    """show a progress bar"""


def check_args(args: Args):
    """Raises ValueError (a ``UsageError``) naming the first bad argument, what was given and what is
    allowed; returns the ``GameSpec`` of the variant the arguments name (``--players 0``: the game's
    default player count). Imports nothing heavy: the command checks its arguments before torch."""
    entry = check_env(args.env)
    players = check_players(entry, args.players, zero_is_default=True)
    check_seed(args.seed)
    for name in ("total_timesteps", "num_envs", "n_steps", "batch_size", "n_epochs", "eval_games", "final_games",
                 "snapshot_every", "max_snapshots", "torch_threads", "imitation_games", "imitation_epochs",
                 "imitation_samples"):
        check_positive(f"--{name.replace('_', '-')}", getattr(args, name))
    if args.recipe not in ("game", "plain"):
        raise usage_error("--recipe", args.recipe, "game, plain")
    check_number("--max-minutes", args.max_minutes, 0.0, allowed="0 (no budget) or a positive number of minutes")
    check_number("--target-kl", args.target_kl, 0.0, allowed="0 (no guard) or a positive number")
    check_int("--eval-every", args.eval_every, 0, allowed="0 (never) or a positive integer")
    if args.critic not in ("public", "oracle"):
        raise usage_error("--critic", args.critic, "public, oracle")
    check_number("--warmup-learning-rate", args.warmup_learning_rate, 0.0, strict=True, allowed="a positive number")
    check_int("--critic-warmup", args.critic_warmup, 0, allowed="0 or a positive number of updates")
    check_device(args.device)
    if args.activation not in ("tanh", "relu"):
        raise usage_error("--activation", args.activation, "tanh, relu")
    if not parse_net_arch(args.net_arch):
        raise usage_error("--net-arch", args.net_arch, "comma-separated positive sizes, e.g. 256,256")
    spec, _ = check_variant(entry, players, args.rules)  # the game validates the rules options
    if args.features and args.features not in spec.feature_names:
        raise usage_error("--features", args.features, ", ".join(spec.feature_names), args.env)
    if args.critic == "oracle" and not spec.privileged_size:
        raise UsageError(f"--critic oracle: {args.env} offers no hidden inputs for an oracle critic "
                         "(GameSpec.privileged_size is 0); allowed: --critic public")
    return spec


def default_opponents(spec) -> str:
    """The opponent pool of an empty ``--opponents``: ``random``, then the game's heuristic agents in
    the order its spec declares them (each with its default arguments)."""
    return ",".join(["random"] + [name for name in spec.agents if name != "random"])


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


def passive_openmp() -> str:
    """Sets ``OMP_WAIT_POLICY=PASSIVE`` unless the environment already names a policy; returns the policy
    in force. Effective only before an OpenMP runtime loads (torch's at ``import torch``, Numba's at its
    first parallel kernel), so ``main`` calls it first; a program that imported torch earlier keeps
    its own setting.

    Why: torch's and Numba's OpenMP threads spin after every parallel region by default. On a machine
    with few cores and another job on one of them, the spinning threads and that job take turns, and
    the PPO phase runs several times slower; sleeping threads make no measurable difference on an
    idle machine (``research/ppo_speed.py`` measures both). Results do not depend on it."""
    import os

    return os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")


def main(argv: list[str] | None = None) -> dict:
    """Runs one training as ``Args`` says; returns a summary (paths and final figures)."""
    passive_openmp()
    args = parse_dataclass(Args, argv, prog=PROG, examples=EXAMPLES)
    return train(args, given=given_fields(Args, argv))


def apply_recipe(args: Args, spec, given: set[str] | None = None) -> Args:
    """``args`` with the game's recipe (``spec.training_recipe``) in every argument not ``given``
    (the flags of the command line; None: every argument still at its default counts as left out);
    unchanged with ``--recipe plain``. A ``--resume`` run starts from its checkpoint, so the recipe's
    warm start (``imitate``) is left out there."""
    if args.recipe == "plain":
        return args
    defaults = Args()
    fields = {field.name for field in dataclasses.fields(Args)}
    changes = {}
    for name, value in spec.hooks.training_recipe.items():
        if name not in fields or name in ("env", "recipe", "players", "resume", "seed", "rules"):
            raise ValueError(f"{spec.name}: training_recipe sets {name!r}, which is no recipe argument of "
                             "training.train")
        left = getattr(args, name) == getattr(defaults, name) if given is None else name not in given
        if left and not (args.resume and name == "imitate"):
            changes[name] = value
    return dataclasses.replace(args, **changes)


def left_out(args: Args, name: str, spec, given: set[str] | None) -> bool:
    """Whether the user left argument ``name`` out: not on the command line (``given``), or, called
    from Python (``given`` None), still at the value the recipe (``apply_recipe``) or ``Args`` gives."""
    if given is not None:
        return name not in given
    recipe = spec.hooks.training_recipe if args.recipe == "game" else {}
    return getattr(args, name) == recipe.get(name, getattr(Args(), name))


def train(args: Args, given: set[str] | None = None) -> dict:
    """Trains, evaluates and writes everything; see the module docstring. The game's recipe fills the
    arguments left out (``apply_recipe``; ``given``: the names set on the command line).

    The setup (the arguments, the opponents and the ``--imitate`` teacher, a ``--resume`` checkpoint)
    runs first: its ValueErrors are the user's (``UsageError``: one line and exit status 2 on the
    command line); a ValueError raised later, while training, is a bug and keeps its traceback."""
    with user_errors():
        spec = check_args(args)
    args = apply_recipe(args, spec, given)
    with user_errors():
        spec = check_args(args)
    args = dataclasses.replace(args, players=spec.num_players, features=args.features or spec.default_features,
                               opponents=args.opponents.strip() or default_opponents(spec))
    rules = parse_rules(args.rules)
    # Opponents: one instance per distinct baseline spec, shared by every game and seat (agents are
    # batched, so each extra instance would cost one more act() call per round of play); a spec
    # listed twice is drawn twice as often.
    listed = [s.strip() for s in args.opponents.split(",") if s.strip()]
    opponent_specs = list(dict.fromkeys(listed))
    instances = {s: make_agent("--opponents", s, game=args.env, seed=args.seed + 1 + i, num_players=args.players)
                 for i, s in enumerate(opponent_specs)}
    final_specs = [s.strip() for s in args.final_opponents.split(",") if s.strip()] or opponent_specs
    final_specs = list(dict.fromkeys(final_specs))
    for name in final_specs:  # checked now: a misspelt name is found before the training, not after
        make_agent("--final-opponents", name, game=args.env, num_players=args.players)
    league_specs = [s.strip() for s in args.final_league.split(",") if s.strip()]
    league = [make_agent("--final-league", name, game=args.env, seed=args.seed + 200 + i, num_players=args.players)
              for i, name in enumerate(league_specs)]
    teacher = make_agent("--imitate", args.imitate, game=args.env, seed=args.seed + 500,
                         num_players=args.players) if args.imitate else None
    import torch
    from sb3_contrib import MaskablePPO
    from stable_baselines3.common.callbacks import BaseCallback
    from stable_baselines3.common.vec_env import VecMonitor
    from tqdm import tqdm

    import agents
    from agents.features import feature_vec_env, pad_privileged
    from agents.policies import ACTOR_PREFIXES, OracleCriticPolicy
    from agents.ppo import (CheckpointInfo, PPOAgent, check_compatible, load_policy, load_training_state,
                            restore_training_state, save_checkpoint)
    from keine_ahnung_env.sb3_vec import CoreVecEnv, timed_vec_env

    from .imitation import collect_demonstrations, pretrain
    from .oracle import learner_privileged
    from .tournament import play_tournament

    torch.set_num_threads(args.torch_threads)
    device = resolve_device(args.device)
    resumed = None
    if args.resume:
        # Never MaskablePPO.load: it unpickles the archive's data entry, which can run any code. The
        # sidecar describes the model; the archive gives tensors and plain JSON numbers only.
        with user_errors("--resume", args.resume):  # not one of this command's checkpoints, or for another table
            resumed = load_training_state(args.resume, args.env)
            recorded = resumed.info
            check_compatible(recorded, args.env, args.players, rules, where=f"--resume {args.resume}")
        # The checkpoint fixes the network's shape: whatever of it the user left out comes from there
        # (a checkpoint made before the recipe's network changed resumes as it is); a flag that
        # contradicts it is an error.
        inherited = {"features": recorded.features, "net_arch": ",".join(map(str, recorded.net_arch)),
                     "activation": recorded.activation}
        args = dataclasses.replace(args, **{name: value for name, value in inherited.items()
                                            if left_out(args, name, spec, given)})
        if recorded.features != args.features or list(recorded.net_arch) != parse_net_arch(args.net_arch) \
                or recorded.activation != args.activation:
            raise UsageError(f"--resume {args.resume} uses features={recorded.features!r}, net_arch="
                             f"{list(recorded.net_arch)}, activation={recorded.activation!r}; pass the same "
                             "--features, --net-arch and --activation")
    net_arch = parse_net_arch(args.net_arch)
    run_dir = Path(args.out_dir) / (args.run_name or f"{args.env}_{args.players}p_seed{args.seed}")
    (run_dir / "checkpoints").mkdir(parents=True, exist_ok=True)
    baselines = [instances[s] for s in listed]
    pool = OpponentPool(baselines, args.players, args.max_snapshots)
    features = spec.features(args.features)
    # The core of sb3_vec_env, made from the spec itself: a game registered without an entry-point
    # module (one defined in a test, say) trains the same way.
    games = CoreVecEnv(spec, args.num_envs, pool, seed=args.seed, normalize_obs=False)
    activation = {"tanh": torch.nn.Tanh, "relu": torch.nn.ReLU}[args.activation]
    oracle = args.critic == "oracle"
    hidden = spec.privileged_size if oracle else 0
    # Timed: the environment's share of the PPO phase (games, opponents, features) is printed at the end.
    timed = timed_vec_env(feature_vec_env(games, features, privileged=learner_privileged if oracle else None,
                                          privileged_width=hidden))
    env = VecMonitor(timed)
    info = CheckpointInfo(game=spec.name, game_version=spec.version, num_players=args.players, rules=spec.rules,
                          observation_version=spec.observation_version, observation_size=features.input_size,
                          num_actions=spec.num_actions, features=args.features, net_arch=tuple(net_arch),
                          activation=args.activation, critic=args.critic, privileged_size=hidden, device=device)
    policy_class = OracleCriticPolicy if oracle else "MlpPolicy"
    policy_kwargs = dict(net_arch=net_arch, activation_fn=activation)
    if oracle:
        policy_kwargs["public_size"] = features.size
    hyper = dict(learning_rate=args.learning_rate, n_steps=args.n_steps, batch_size=args.batch_size,
                 n_epochs=args.n_epochs, gamma=args.gamma, gae_lambda=args.gae_lambda, clip_range=args.clip_range,
                 ent_coef=args.ent_coef, target_kl=args.target_kl or None)
    same_critic = resumed is not None and resumed.info.critic == args.critic
    # A model resumed whole keeps the seed it was created with (as SB3's load did: it re-seeded torch,
    # the games and the opponents from it), so resumed runs replay as they did before.
    seed = resumed.counters.get("seed", args.seed) if same_critic else args.seed
    model = MaskablePPO(policy_class, env, policy_kwargs=policy_kwargs,
                        tensorboard_log=str(run_dir / "tensorboard"), seed=seed, device=device, verbose=0, **hyper)
    if same_critic:
        with user_errors("--resume", args.resume):  # weights or optimizer state that do not fit the architecture
            restore_training_state(model, resumed, where=f"--resume {args.resume}")
    elif resumed is not None:
        # Another critic kind: the actor (policy network and action head) carries over, the critic
        # starts afresh, so --critic-warmup is advised.
        with user_errors("--resume", args.resume):
            lent, _ = load_policy(args.resume, args.env)
        actor = {k: v for k, v in lent.state_dict().items() if k.startswith(ACTOR_PREFIXES)}
        model.policy.load_state_dict(actor, strict=False)
        model.num_timesteps = recorded.timesteps
        print(f"actor from {args.resume} ({recorded.critic} critic); new {args.critic} critic", flush=True)
    # The header, once the setup has passed (a user's mistake prints its one line and nothing else).
    print(f"training {args.env} at {args.players} players, seed {args.seed}, on {device} (--device {args.device})",
          flush=True)

    if teacher is not None:
        start = time.time()
        demos = collect_demonstrations(teacher, features, args.players, args.imitation_games, seed=args.seed + 500,
                                       rules=rules, game=args.env, samples=args.imitation_samples)
        demos = dataclasses.replace(demos, inputs=pad_privileged(demos.inputs, hidden))
        fit = pretrain(model.policy, demos, epochs=args.imitation_epochs, seed=args.seed)
        print(f"imitated {args.imitate}: {fit['samples']:,} decisions from {args.imitation_games} games, "
              f"accuracy {fit['accuracy']:.3f} ({time.time() - start:.0f} s)", flush=True)

    def learner_agent(deterministic: bool = True) -> PPOAgent:
        """The current policy, frozen, as a batched agent (on the CPU, where the games are played)."""
        policy = copy.deepcopy(model.policy).to("cpu")
        policy.set_training_mode(False)
        return PPOAgent(policy, dataclasses.replace(info, timesteps=model.num_timesteps),
                        deterministic=deterministic, name=f"ppo@{model.num_timesteps}")

    columns = [column.key for column in spec.episode_stats.columns] if spec.episode_stats else []

    def evaluate(games: int, seed: int) -> dict[str, dict]:
        """The learner against P-1 copies of each baseline, seat-rotated: win rate, its interval, mean
        score and the game's own statistics columns (Keine Ahnung: trophies, calls, call success)."""
        learner = learner_agent()
        out = {}
        for name in opponent_specs:
            opponent = agents.make(name, game=args.env, seed=seed, num_players=args.players)
            result = play_tournament([learner] + [opponent] * (args.players - 1), num_players=args.players,
                                     games=games, seed=seed, env=args.env, progress=False, **rules)
            stats = result.agents[0]
            figures = stats.to_dict()
            out[name] = {"win_rate": stats.win_rate, "win_interval": list(stats.win_interval),
                         "fair_share": 1.0 / args.players, "mean_score": stats.mean_score,
                         **{key: figures[key] for key in columns if key in figures}}
        return out

    curve: list[dict] = []
    stat_names = spec.episode_stats.names if spec.episode_stats else ()

    def learner_stats(info: dict) -> list[float]:
        """The learner's own statistics of an ended episode (``spec.episode_stats``): its counters, and
        its seat's entry of the finals (``sb3_vec_env`` reports those for every seat)."""
        seat = info.get("learner_seat", 0)
        values = []
        for name in stat_names:
            value = info.get(name, 0)
            values.append(float(value[seat] if isinstance(value, (list, tuple)) else value))
        return values

    class TrainingCallback(BaseCallback):
        """Progress bar, TensorBoard statistics, periodic evaluation, snapshots and checkpoints."""

        def __init__(self):
            super().__init__()
            self.recent = deque(maxlen=500)
            self.by_opponent = defaultdict(lambda: deque(maxlen=500))
            self.episode_stats = deque(maxlen=500)  # the learner's own statistics of each recent episode
            self.updates = 0
            self.eval_seconds = 0.0  # periodic evaluations, snapshots and checkpoints
            # Wall seconds of the rollout's network work (a rollout's time less the environment's, which
            # ``timed`` counts) and of the PPO updates (from a rollout's end to the next one's start).
            self.phase_seconds = {"rollout_network": 0.0, "update": 0.0}
            self.phase, self.phase_start, self.env_start = None, 0.0, 0.0
            self.out_of_time = False
            self.bar = tqdm(total=args.total_timesteps, disable=not args.progress, unit="step", smoothing=0.05)
            self.start = time.time()

        def _on_training_start(self) -> None:
            self.first_step = self.num_timesteps  # non-zero when resuming
            self._freeze_actor(args.critic_warmup > 0)

        def _start_phase(self, phase: str | None) -> None:
            """Adds the running phase's wall seconds to ``phase_seconds`` and starts ``phase`` (None: none)."""
            now = time.perf_counter()
            if self.phase == "rollout_network":
                self.phase_seconds[self.phase] += now - self.phase_start - (timed.seconds - self.env_start)
            elif self.phase == "update":
                self.phase_seconds[self.phase] += now - self.phase_start
            self.phase, self.phase_start, self.env_start = phase, now, timed.seconds

        def _on_rollout_start(self) -> None:
            self._start_phase("rollout_network")

        def _on_training_end(self) -> None:
            self._start_phase(None)

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
                # A shared win counts 1 / number of winners, as training.evaluate counts it.
                won = float(info.get("win_share", info.get("winner", False)))
                self.recent.append(won)
                for name in set(info.get("opponents", [])):
                    self.by_opponent[name].append(won)
                if stat_names:
                    self.episode_stats.append(learner_stats(info))
            self.bar.update(self.training_env.num_envs)
            return not self.out_of_time

        def _on_rollout_end(self) -> None:
            self._start_phase(None)
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
            if self.episode_stats:
                totals = dict(zip(stat_names, np.sum(self.episode_stats, axis=0).tolist()))
                games_seen = len(self.episode_stats)
                for name in stat_names:
                    self.logger.record(f"stats/{name}_per_game", totals[name] / games_seen)
                for column in spec.episode_stats.columns:
                    denominator = games_seen if column.denominator is None else totals[column.denominator]
                    if denominator:  # a rate of nothing (no calls yet, say) is not logged
                        self.logger.record(f"stats/{column.key}", totals[column.numerator] / denominator)
            curve.append({"timesteps": self.num_timesteps, "train_win_rate": win})
            start = time.perf_counter()
            self._snapshot_and_evaluate()
            self.eval_seconds += time.perf_counter() - start
            self._start_phase("update")  # SB3 runs the PPO update right after the rollout

        def _snapshot_and_evaluate(self) -> None:
            if args.self_play and self.updates % args.snapshot_every == 0:
                pool.snapshots.append(learner_agent(deterministic=False))
            if args.eval_every and self.updates % args.eval_every == 0:
                results = evaluate(args.eval_games, seed=10_000 + self.updates)
                for name, r in results.items():
                    self.logger.record(f"eval_win_rate/{name}", r["win_rate"])
                curve[-1]["eval"] = {name: r["win_rate"] for name, r in results.items()}
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
    summary = final_tournament(learner, final_specs, args.env, args.players, args.final_games, args.seed, rules,
                               args.progress, run_dir / "tournament.json", league=league, league_specs=league_specs)
    curve_path = plot_curve(curve, run_dir / "learning_curve.png", args.players)
    trained_now = model.num_timesteps - callback.first_step
    # Where the PPO phase's wall time went; "the rest": SB3's and the callback's bookkeeping, the
    # progress bar, TensorBoard logs.
    split = {"the rollout's network": callback.phase_seconds["rollout_network"],
             "PPO updates": callback.phase_seconds["update"], "evaluations and checkpoints": callback.eval_seconds}
    rest = train_seconds - timed.seconds - sum(split.values())
    print(f"\ntrained {trained_now:,} steps ({model.num_timesteps:,} in all) in {train_seconds / 60:.1f} min "
          f"({trained_now / train_seconds:,.0f} steps/s); the environment (games, opponents, features) "
          f"{timed.seconds / train_seconds:.0%} of that time, "
          + ", ".join(f"{name} {seconds / train_seconds:.0%}" for name, seconds in split.items())
          + f", the rest {rest / train_seconds:.0%}")
    print(f"checkpoint:     {final_path} (+ {final_path.with_suffix('.json').name})")
    print(f"tournament:     {run_dir / 'tournament.json'}")
    print(f"learning curve: {curve_path}")
    print(f"tensorboard:    tensorboard --logdir {run_dir / 'tensorboard'}")
    env.close()
    return {"run_dir": str(run_dir), "checkpoint": str(final_path), "tournament": summary, "device": device,
            "learning_curve": str(curve_path), "timesteps": int(model.num_timesteps),
            "train_seconds": train_seconds, "env_seconds": timed.seconds,
            "rollout_network_seconds": callback.phase_seconds["rollout_network"],
            "update_seconds": callback.phase_seconds["update"], "eval_seconds": callback.eval_seconds}


def final_tournament(learner, opponent_specs: list[str], env: str, players: int, games: int, seed: int, rules: dict,
                     progress: bool, json_path: Path, league: list | None = None,
                     league_specs: list[str] | None = None) -> dict:
    """The trained agent against P-1 copies of each baseline (seat-rotated, ``seed + 99``), then, given
    ``league`` (P-1 agent objects named by ``league_specs``), one league where all of them share every
    table (``seed + 98``): prints one tournament table each, writes the summary to ``json_path`` and
    returns it. Every trainer (this one, ``training.train_rllib``) ends with it."""
    import agents

    from .tournament import play_tournament

    tables, summary = [], {}
    for name in opponent_specs:
        opponent = agents.make(name, game=env, seed=seed, num_players=players)
        result = play_tournament([learner] + [opponent] * (players - 1), num_players=players, games=games,
                                 seed=seed + 99, env=env, progress=progress, **rules)
        tables.append(f"vs {players - 1} x {name}:\n{result.table()}")
        stats = result.agents[0]
        summary[name] = {"win_rate": stats.win_rate, "win_interval": list(stats.win_interval),
                         "fair_share": 1.0 / players, "games": stats.games, "mean_score": stats.mean_score}
    if league:
        result = play_tournament([learner] + list(league), num_players=players, games=games, seed=seed + 98, env=env,
                                 progress=progress, **rules)
        tables.append(f"league of {', '.join([learner.name] + list(league_specs or []))}:\n{result.table()}")
        summary["league"] = {stats.name: {"win_rate": stats.win_rate, "win_interval": list(stats.win_interval),
                                          "games": stats.games, "mean_score": stats.mean_score}
                             for stats in result.agents}
    print("\n\n".join(tables))
    json_path.write_text(json.dumps(summary, indent=2))
    return summary


def plot_curve(curve: list[dict], path: Path, num_players: int, title: str = "MaskablePPO") -> Path:
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
    ax.set_title(f"{title}, {num_players} players")
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)
    return path


if __name__ == "__main__":
    run_command(main)
