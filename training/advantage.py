"""Distil one step of roll-out search into a network that overrules a heuristic where it pays.

    python -m training.advantage --env keine_ahnung_v0 --players 4 --games 200000 --seed 0 --out runs/advantage_4p/model

The loop is game-independent: it reaches a game only through its door. A game joins by declaring data:
its advantage recipes (``GameSpec.advantage``, one per decision name: ``AdvantageRecipe``, the heuristic
improved on and its opponents, the take action or set, the gate, the feature set and the network's
input columns), its belief sampler (``GameSpec.belief.sample_states``), a core that branches rows
(``gather``), its agents and its feature sets. ``--decision`` picks a recipe (the first by default; each
game's recipes: docs/skill_ceiling.md). The command

1. plays ``--games`` games: the recipe's ``base`` heuristic in one seat (rotating between games), its
   ``opponents`` in the others;
2. at each of that seat's decisions of the recipe (a move of the take set and another move legal,
   inside the gate) draws ``--playouts`` states from the seat's belief (every hidden card and the draw
   order, as likely as the observation makes them), plays the heuristic's best move of the take set and
   its best other move in each (common states and later chance events), then the heuristic in the
   deciding seat and the opponents elsewhere to the end of the game, and labels the decision with the
   mean paired difference of the deciding seat's win shares; the game itself goes on with the
   heuristic's move. Roll-outs by compiled heuristics (``play_together``) run inside the engine; those
   of agents that answer by ``act`` are gathered into batches of many decisions;
3. fits a small network (``--hidden``) to the labels from the recipe's input features, holding out the
   last ``--validation`` share of the batches, and reports what the network's choices would gain on
   the held-out decisions (each label is an unbiased, noisy measure of its decision's gain);
4. writes ``OUT.npz`` and its sidecar ``OUT.json`` (``agents/advantage.py``), played by
   ``agents.make("advantage:OUT.npz", game=...)``.

The labels value one decision with the heuristic playing on: the network learns where the heuristic's
own choice is not the better one (one step of policy improvement: expert iteration with
roll-out values as the targets). ``--improve MODEL`` labels the play of an earlier model instead (it
plays the seat in the games and the roll-outs): the next round, on the same decision or on another one;
the new model then plays the earlier one everywhere else. Every batch of ``--batch-size`` games seeds
itself from ``--seed`` and its number, so ``--processes N`` labels the same decisions as one process.
Figures and the commands of the shipped models: docs/skill_ceiling.md and docs/results.md.
"""

from __future__ import annotations

import dataclasses
import sys
import time
from pathlib import Path

import numpy as np

from agents.advantage import advantage_recipe
from agents.base import next_decisions, play_seats
from keine_ahnung_env import registry

from .cli import (check_device, check_env, check_int, check_number, check_players, check_positive, check_seed,
                  check_variant, parse_dataclass, parse_net_arch, resolve_device, run_command, usage_error, user_errors)

DEFAULT_ENV = registry.DEFAULT_GAME
PROG = "python -m training.advantage"
EXAMPLES = (
    "--players 4 --games 200000 --seed 0 --processes 2 --out runs/advantage_4p/model",
    "--decision reserve --games 100000 --processes 2 --improve runs/advantage_4p/model.npz --out runs/advantage_4p/reserve",
    "--players 3 --games 20000 --playouts 8 --out runs/advantage_3p/model",
    "--games 2000 --epochs 2 --out /tmp/advantage_try --no-progress",
)


@dataclasses.dataclass
class Args:
    """Label the decisions of a game's advantage recipe with roll-out values, fit a network to them and
    write it as an agent's model (agents.make("advantage:OUT.npz"))."""

    out: str = ""
    """where to write the model: OUT.npz and its sidecar OUT.json (required)"""
    env: str = DEFAULT_ENV
    """the game (one whose spec offers advantage recipes: keine_ahnung_v0, gap_v0, dnp_v0)"""
    decision: str = ""
    """which of the game's advantage recipes (keine_ahnung_v0: call, reserve; gap_v0: pass; dnp_v0: turn;
    default: the game's first)"""
    players: int = 0
    """seats at the table; 0: the game's default (4 for keine_ahnung_v0, gap_v0 and dnp_v0)"""
    games: int = 200000
    """games played to collect decisions (at 4 players: keine_ahnung_v0 about 1.2 labelled call decisions
    a game, 10 reserve decisions; gap_v0 about 35 pass decisions; dnp_v0 about 19 turn decisions)"""
    playouts: int = 4
    """belief states per labelled decision; each plays both choices to the end of the game"""
    batch_size: int = 10000
    """games stepped together (a batch seeds itself and is the unit a worker process plays)"""
    processes: int = 1
    """worker processes sharing the batches (the same labels as 1)"""
    rules: list[str] = dataclasses.field(default_factory=list)
    """rules options as key=value (e.g. memory=none)"""
    seed: int = 0
    """seeds the deals, the agents, the belief samples and the network"""
    hidden: str = "64,64"
    """hidden layer sizes of the network"""
    epochs: int = 12
    """passes over the labelled decisions"""
    learning_rate: float = 3e-4
    """Adam's step size"""
    weight_decay: float = 1e-4
    """Adam's weight decay"""
    validation: float = 0.1
    """share of the batches held out to measure the network's choices (0: fit on all)"""
    improve: str = ""
    """a model (OUT.npz of an earlier run) whose agent plays the labelled seat, in the games and in the
    roll-outs, instead of the bare heuristic: the next round of expert iteration (the new model plays it
    wherever its own network does not decide; keep the two files side by side)"""
    data: str = ""
    """also write the labelled decisions (inputs, labels, the heuristic's choice) to this .npz"""
    device: str = "auto"
    """torch device of the fit: auto, cpu or cuda

    auto: cuda where torch sees a CUDA device, else cpu. Only the fit moves there; the labelling plays on
    the CPU, and the model plays in NumPy."""
    progress: bool = True
    """report progress on stderr after each batch of games"""


def _batch_seeds(seed: int, number: int) -> list[int]:
    """Six seeds for batch ``number``: the deals, the heuristic, the opponents, their two roll-out copies,
    the belief samples."""
    return [int(s) for s in np.random.SeedSequence([int(seed), int(number)]).generate_state(6)]


ROLLOUT_ROWS = 65536
"""Roll-outs are gathered into one core of at most about this many games before they are played."""


def label_batch(task: tuple) -> dict[str, np.ndarray]:
    """Plays one batch of games and labels its gated decisions (the module docstring, steps 1-2).
    ``task``: ``(env, players, rules, seed, number, start, games, playouts, improve)``; game ``start + i``
    of the command seats the labelled seat at ``(start + i) % players``; ``improve``: a model's path
    whose agent plays that seat (in the games and the roll-outs) instead of the bare heuristic, or ""."""
    import agents
    from agents.advantage import recipe_decisions

    env, players, rules, decision, seed, number, start, games, playouts, improve = task
    spec = registry.game_spec(env, players, **rules)
    _, recipe = advantage_recipe(spec, decision)
    deal, s_base, s_opp, s_rbase, s_ropp, s_belief = _batch_seeds(seed, number)
    made = dict(game=env, num_players=players, rules=rules or None)
    seat_spec = f"advantage:{improve}" if improve else recipe.base
    policy, opponents = agents.make(seat_spec, seed=s_base, **made), agents.make(recipe.opponents, seed=s_opp, **made)
    # The two moves of a labelled decision: the heuristic's (the seat's own policy where that is the heuristic).
    base = agents.make(recipe.base, seed=s_base + 1, **made) if improve else policy
    roll = [agents.make(seat_spec, seed=s_rbase, **made), agents.make(recipe.opponents, seed=s_ropp, **made)]
    features = spec.features(recipe.features)
    columns = recipe.input_columns()
    first = spec.action_names.index(recipe.action)
    other_not = np.array([spec.action_names.index(a) for a in recipe.other_not], np.int64)
    rng = np.random.default_rng(s_belief)
    core = spec.make_core(games, deal)
    seat = (start + np.arange(games)) % players
    others = np.where(np.arange(players)[None, :] == seat[:, None], -1, 0)
    inputs, labels, takes, decisions = [], [], [], 0
    # Roll-out cores whose first move is made, with the deciding seat of each row (the seat to act in the
    # belief samples, wherever the game's sampler seats the observer), played together when enough wait.
    pending: list = []
    # Roll-outs by compiled heuristics (``play_together``) are played at once; those of agents that
    # answer by ``act`` (a Python call per round: a model, or a game's heuristics without a compiled
    # path) wait until many are gathered.
    gather_rows = 0 if all(getattr(agent, "play_together", None) is not None for agent in roll) else ROLLOUT_ROWS

    def play_pending() -> None:
        sims = [sim for sim, _, _ in pending]
        sim = sims[0] if len(sims) == 1 else type(sims[0]).gather([(x, np.arange(x.num_envs)) for x in sims])
        deciding = np.concatenate([seats for _, seats, _ in pending])
        going = np.flatnonzero(~np.asarray(sim.done))
        # The deciding seat plays on with the labelled policy (agent 0), every other seat the opponents.
        play_seats(sim, going, roll, (np.arange(players)[None, :] != deciding[going, None]).astype(np.int64))
        value = spec.seat_win_shares(sim, deciding)
        at = 0
        for x, _, count in pending:
            v = value[at: at + x.num_envs].reshape(count, 2, playouts)
            labels.append((v[:, 0] - v[:, 1]).mean(1).astype(np.float32))
            at += x.num_envs
        pending.clear()

    while True:
        live = next_decisions(core, [opponents], others)
        if live.size == 0:
            break
        obs, mask = core.observe(core.current[live], games=live), core.legal_mask[live]
        moves = np.asarray(policy.act(obs, mask), np.int64)
        decisions += live.size
        rows, feats, take, other = recipe_decisions(recipe, first, other_not, base, features, obs, mask)
        if rows.size:
            taken = np.full(rows.size, first) if recipe.take_width() == 1 else np.asarray(base.act(obs[rows], take), np.int64)
            parts, first_moves, seats = [], [], []
            for r, move, alt in zip(rows, taken, other):
                sampled = spec.hooks.belief.sample_states(obs[r], playouts, rng)
                parts += [(sampled, np.arange(playouts))] * 2
                first_moves += [np.full(playouts, move), np.full(playouts, alt)]
                seats += [np.asarray(sampled.current, np.intp)] * 2
            sim = type(parts[0][0]).gather(parts)
            sim.step(np.concatenate(first_moves))
            pending.append((sim, np.concatenate(seats), rows.size))
            inputs.append(feats[:, columns].astype(np.float32))
            takes.append(take[np.arange(rows.size), moves[rows]])
            if sum(x.num_envs for x, _, _ in pending) >= gather_rows:
                play_pending()
        actions = np.zeros(core.num_envs, np.int64)
        actions[live] = moves
        active = np.zeros(core.num_envs, bool)
        active[live] = True
        core.step(actions, active=active)
    if pending:
        play_pending()
    width = columns.size
    return {"inputs": np.concatenate(inputs) if inputs else np.zeros((0, width), np.float32),
            "labels": np.concatenate(labels) if labels else np.zeros(0, np.float32),
            "takes": np.concatenate(takes) if takes else np.zeros(0, bool),
            "batch": np.full(sum(map(len, labels)), number, np.int64), "decisions": np.array(decisions)}


def choice_gain(predicted: np.ndarray, labels: np.ndarray, takes: np.ndarray, margin: float = 0.0
                ) -> tuple[np.ndarray, np.ndarray]:
    """Per decision: whether the network departs from the heuristic (``takes``: the heuristic takes the
    action) and the label's gain from it (the label where it takes the action instead, minus the label
    where it gives it up, 0 where it agrees). On held-out decisions the mean gain is an unbiased
    estimate of what the network's choices add per decision."""
    want = np.where(takes, predicted > -margin, predicted > margin)
    changed = want != takes
    return changed, np.where(changed, np.where(want, labels, -labels), 0.0)


def fit(inputs: np.ndarray, labels: np.ndarray, hidden: list[int], epochs: int, learning_rate: float,
        weight_decay: float, seed: int, train: np.ndarray, report=None, device: str = "cpu") -> dict[str, np.ndarray]:
    """Fits the network (inputs standardised, ReLU layers, one output, squared error) on the rows
    ``train`` on the torch ``device``; returns its arrays (NumPy, as ``agents/advantage.py`` stores
    them). ``report(epoch, predict)`` is called after each epoch with a function giving the network's
    predictions for rows of ``inputs``."""
    import torch

    torch.manual_seed(seed)
    mean = inputs[train].mean(0)
    scale = inputs[train].std(0) + 1e-3  # constant columns stay finite
    x = torch.tensor((inputs - mean) / scale, dtype=torch.float32, device=device)
    y = torch.tensor(labels, dtype=torch.float32, device=device)
    sizes = [inputs.shape[1], *hidden]
    layers: list = []
    for fan_in, fan_out in zip(sizes[:-1], sizes[1:]):
        layers += [torch.nn.Linear(fan_in, fan_out), torch.nn.ReLU()]
    layers.append(torch.nn.Linear(sizes[-1], 1))
    net = torch.nn.Sequential(*layers).to(device)  # made on the CPU first: the same initial weights anywhere
    optimizer = torch.optim.Adam(net.parameters(), lr=learning_rate, weight_decay=weight_decay)
    rng = np.random.default_rng(seed)

    def predict(rows: np.ndarray) -> np.ndarray:
        with torch.no_grad():
            return net(x[rows]).squeeze(1).cpu().numpy()

    for epoch in range(epochs):
        order = torch.as_tensor(rng.permutation(train), device=device)
        for at in range(0, order.numel(), 1024):
            rows = order[at: at + 1024]
            loss = ((net(x[rows]).squeeze(1) - y[rows]) ** 2).mean()
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
        if report is not None:
            report(epoch, predict)
    linear = [m for m in net if isinstance(m, torch.nn.Linear)]
    arrays = {"input_mean": mean.astype(np.float32), "input_scale": scale.astype(np.float32)}
    for k, m in enumerate(linear):
        arrays[f"layer.{k}.weight"] = m.weight.detach().cpu().numpy().astype(np.float32)
        arrays[f"layer.{k}.bias"] = m.bias.detach().cpu().numpy().astype(np.float32)
    return arrays


def main(argv: list[str] | None = None) -> dict:
    """Parses the arguments, labels the decisions, fits and writes the model; returns the summary. Bad
    arguments raise ValueError (a ``UsageError``) before any game is played."""
    from agents.advantage import CONTINUATION_PREFIX, AdvantageModelInfo, load_model, npz_path, write_model
    from agents.ppo import check_compatible

    args = parse_dataclass(Args, argv, prog=PROG, examples=EXAMPLES)
    with user_errors():
        game = check_env(args.env)
        with user_errors("--env", args.env):
            advantage_recipe(args.env)  # refuses a game without one, naming those with one
        players = check_players(game, args.players, zero_is_default=True)
        spec, rules = check_variant(game, players, args.rules)
        with user_errors("--decision", args.decision):
            decision, recipe = advantage_recipe(spec, args.decision)
        with user_errors("--env", args.env):
            recipe.check(spec, decision)  # the game's door offers what the loop needs
        if not args.out:
            raise usage_error("--out", args.out, "a path for the model (OUT.npz and OUT.json are written)")
        if Path(args.out).is_dir():
            raise usage_error("--out", args.out, "a file path, not a folder (OUT.npz and OUT.json are written)")
        check_positive("--games", args.games)
        check_int("--playouts", args.playouts, 1)
        check_positive("--batch-size", args.batch_size)
        check_positive("--processes", args.processes)
        check_seed(args.seed)
        check_positive("--epochs", args.epochs)
        check_number("--learning-rate", args.learning_rate, strict=True)
        check_number("--weight-decay", args.weight_decay)
        if not 0.0 <= args.validation < 1.0:
            raise usage_error("--validation", args.validation, "a share from 0 up to 1")
        improve_info = None
        if args.improve:
            with user_errors("--improve", args.improve):
                _, improve_info = load_model(args.improve, game.name)
                check_compatible(improve_info, game.name, players, rules, where="the model")
        hidden = parse_net_arch(args.hidden)
        if not hidden:
            raise usage_error("--hidden", args.hidden, "comma-separated positive layer sizes, e.g. 64,64")
        check_device(args.device)
    device = resolve_device(args.device)
    started = time.time()
    tasks = [(game.name, players, rules, decision, args.seed, number, start, min(args.batch_size, args.games - start),
              args.playouts, args.improve) for number, start in enumerate(range(0, args.games, args.batch_size))]
    batches: list[dict] = []

    def collect(result: dict) -> None:
        batches.append(result)
        if args.progress:
            print(f"batch {len(batches)} of {len(tasks)}: {result['labels'].size} labelled decisions "
                  f"({time.time() - started:.0f} s)", file=sys.stderr, flush=True)

    if args.processes > 1:
        import multiprocessing

        with multiprocessing.get_context("spawn").Pool(args.processes) as pool:
            for result in pool.imap(label_batch, tasks):
                collect(result)
    else:
        for task in tasks:
            collect(label_batch(task))
    labelled = time.time() - started
    inputs = np.concatenate([b["inputs"] for b in batches])
    labels = np.concatenate([b["labels"] for b in batches])
    takes = np.concatenate([b["takes"] for b in batches])
    number = np.concatenate([b["batch"] for b in batches])
    decisions = int(sum(int(b["decisions"]) for b in batches))
    if args.data:
        np.savez_compressed(args.data, inputs=inputs, labels=labels, takes=takes, batch=number)
    if labels.size < 2:
        raise SystemExit(f"{PROG}: only {labels.size} labelled decisions in {args.games} games; play more games")
    held = int(round(args.validation * len(tasks))) if len(tasks) > 1 else 0
    validation_rows = np.flatnonzero(number >= len(tasks) - held)
    train_rows = np.flatnonzero(number < len(tasks) - held)
    summary: dict = {}

    def report(epoch: int, predict) -> None:
        if validation_rows.size == 0:
            return
        changed, gain = choice_gain(predict(validation_rows), labels[validation_rows], takes[validation_rows])
        summary.update(decisions=int(validation_rows.size), changed=float(changed.mean()),
                       gain_per_decision=float(gain.mean()),
                       gain_se=float(gain.std(ddof=1) / np.sqrt(gain.size)) if gain.size > 1 else 0.0)
        if args.progress:
            print(f"epoch {epoch + 1}: on {gain.size} held-out decisions the network departs at {changed.mean():.1%}, "
                  f"gain {gain.mean():+.5f} +- {summary['gain_se']:.5f} win share per decision",
                  file=sys.stderr, flush=True)

    arrays = fit(inputs, labels, hidden, args.epochs, args.learning_rate, args.weight_decay, args.seed,
                 train_rows, report, device=device)
    info = AdvantageModelInfo(game=game.name, num_players=players, rules=dict(spec.rules),
                              observation_version=spec.observation_version,
                              observation_size=spec.observation_size, num_actions=spec.num_actions,
                              features=recipe.features, net_arch=tuple(hidden),
                              recipe=recipe.as_record(), decision=decision,
                              game_version=spec.version, timesteps=int(train_rows.size), playouts=args.playouts,
                              seed=args.seed, validation=dict(summary),
                              continuation=f"{CONTINUATION_PREFIX}{npz_path(args.improve).name}" if args.improve
                              else recipe.base,
                              continuation_sha256=improve_info.sha256 if improve_info else "", device=device)
    path = write_model(arrays, args.out, info)
    per_game = labels.size / args.games
    print(f"{game.name}, {players} players, the {decision!r} decision: {args.games} games, {decisions} decisions of the seat, "
          f"{labels.size} labelled ({per_game:.2f} a game; {args.playouts} belief states each), {labelled:.0f} s; "
          f"network fitted on {device}")
    if summary:
        print(f"held-out batches: the network departs from {info.continuation} at {summary['changed']:.1%} of "
              f"{summary['decisions']} decisions, gaining {summary['gain_per_decision']:+.5f} +- "
              f"{summary['gain_se']:.5f} win share each (about {100 * summary['gain_per_decision'] * per_game:+.2f} "
              f"points a game)")
    print(f"wrote {path} and {npz_path(path).with_suffix('.json')}; play it as advantage:{path}")
    return {"decisions": decisions, "labelled": int(labels.size), "validation": summary, "path": str(path),
            "device": device,
            "seconds": time.time() - started}


if __name__ == "__main__":
    run_command(main)
