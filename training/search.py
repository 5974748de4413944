"""Determinized roll-out search: how far can one better decision at a time get past a heuristic?

    python -m training.search --players 4 --games 2000 --playouts 48 --trophies-left 4 --seed 0

A :class:`RolloutPlanner` plays one seat (rotating between games) against ``players - 1`` copies of
the roll-out agent (default: the opponents of the game's first advantage recipe, its strongest heuristic;
Keine Ahnung's ``counter``). At each of its decisions in the end game (the game's
``SearchHooks.remaining`` at most ``--trophies-left``: trophies left in Keine Ahnung) it

1. lists the distinct moves (``SearchHooks.candidate_moves``; Keine Ahnung: call, reveal an unknown
   card (they are alike), each known fitting card, one known misfit (a safe way to end the turn), a
   known prize, or each pile for a placement);
2. deals ``--playouts`` determinizations (``SearchHooks.determinize``): what the seat cannot see
   drawn again at random (Keine Ahnung: the draw pile and the face-down cards nobody has seen since
   the last shuffle dealt again, the trophy values it cannot see shuffled); every candidate meets
   the same determinizations (common random numbers);
3. plays each candidate, then the roll-out agent in every seat to the end of the game;
4. takes a candidate instead of the roll-out agent's own move only when its mean win share is higher
   by more than ``--margin`` standard errors of the paired difference.

The planner reads the engine only through such copies. It works for every game whose ``GameSpec``
offers ``search`` hooks (Keine Ahnung's: ``keine_ahnung_env/games/keine_ahnung/search.py``); other
games are refused with an error naming those that do. It is a research tool (one-step policy
improvement, Bertsekas' "rollout"), not an ``act(observation, mask)`` agent: it needs the engine's
state to branch. Its figure against ``counter`` is in ``docs/keine_ahnung.md``.
"""

from __future__ import annotations

import dataclasses
import sys
import time
from typing import Sequence

import numpy as np

from agents.ismcts import default_rollout
from keine_ahnung_env import registry
from keine_ahnung_env.cli import write_json_file
from keine_ahnung_env.game_spec import GameSpec, SearchHooks
from keine_ahnung_env.stats import proportion_interval

from .cli import (check_env, check_int, check_json_path, check_number, check_players, check_positive,
                  check_seed, check_variant, make_agent, parse_dataclass, run_command, user_errors)

DEFAULT_ENV = registry.DEFAULT_GAME
PROG = "python -m training.search"
EXAMPLES = (
    "--players 4 --games 2000 --playouts 48 --trophies-left 4 --seed 0",
    "--players 3 --games 400 --rollout-agent greedy --json search.json",
    "--games 200 --rules memory=none --no-progress",
)


@dataclasses.dataclass
class Args:
    """Play a determinized roll-out planner against copies of a heuristic and print its win share."""

    env: str = DEFAULT_ENV
    """the game (one whose spec offers search hooks: keine_ahnung_v0)"""
    players: int = 0
    """number of players, in the game's range (2-5 for keine_ahnung_v0); 0: the game's default (keine_ahnung_v0:
    4). The planner takes one seat, rotating between games"""
    games: int = 400
    """games to play"""
    rollout_agent: str = ""
    """agents.make spec of the opponents and of every seat in the roll-outs ("": the opponents of the game's
    first advantage recipe, its strongest heuristic: counter for keine_ahnung_v0)"""
    playouts: int = 48
    """determinizations per decision (each candidate move is played in all of them)"""
    trophies_left: int = 4
    """search only while the game's ``SearchHooks.remaining`` is at most this (its own unit; keine_ahnung_v0:
    trophies left, 12 = the whole game)"""
    margin: float = 1.0
    """standard errors of the paired difference a move needs over the roll-out agent's own move"""
    batch_size: int = 128
    """games played together (their searches share one batch of roll-outs)"""
    rules: list[str] = dataclasses.field(default_factory=list)
    """rules options as key=value (e.g. memory=none)"""
    seed: int = 0
    """seeds the deals, the determinizations and the agents (an integer 0 to 2**32 - 1)"""
    json: str = ""
    """also write the summary and every game's win share to this JSON file"""
    progress: bool = True
    """report the win share so far on stderr after each batch of games"""


def search_hooks(game: str | GameSpec) -> SearchHooks:
    """The search hooks of ``game`` (a registered name or a spec); ValueError names the games that
    offer them (and, for an unknown name, the registered games)."""
    return registry.game_hook(game, "search", "search hooks", ", so the roll-out planner cannot play it")


def play_out(core, agent) -> None:
    """Plays every game of ``core`` to its end with ``agent`` in every seat."""
    while True:
        live = np.flatnonzero(~core.done)
        if live.size == 0:
            return
        actions = np.zeros(core.num_envs, np.int64)
        actions[live] = agent.act(core.observe(core.current[live], games=live), core.legal_mask[live])
        core.step(actions, active=~core.done)


class RolloutPlanner:
    """One-step improvement of a roll-out agent by determinized roll-outs (module docstring)."""

    def __init__(self, rollout_agent, playouts: int = 48, margin: float = 1.0, trophies_left: int = 4, seed: int = 0,
                 game: str | GameSpec = DEFAULT_ENV):
        """``rollout_agent``: a batched agent playing every seat of the roll-outs; ``playouts``: at
        least 2; ``margin``: a non-negative number; ``trophies_left``: a non-negative integer (the
        planner searches where the game's ``SearchHooks.remaining`` is at most this); ``game``: a
        registered game offering search hooks, or the spec of the variant played (a name reads the
        results of a core with the spec of its player count and default rules)."""
        self.hooks = search_hooks(game)
        if isinstance(playouts, bool) or not isinstance(playouts, (int, np.integer)) or playouts < 2:
            raise ValueError(f"playouts={playouts!r}; allowed: an integer >= 2")
        if isinstance(trophies_left, bool) or not isinstance(trophies_left, (int, np.integer)) or trophies_left < 0:
            raise ValueError(f"trophies_left={trophies_left!r}; allowed: a non-negative integer")
        if not isinstance(margin, (int, float, np.floating)) or isinstance(margin, bool) or not margin >= 0:
            raise ValueError(f"margin={margin!r}; allowed: a non-negative number (standard errors)")
        self.rollout_agent = rollout_agent
        self.playouts = int(playouts)
        self.margin = float(margin)
        self.trophies_left = int(trophies_left)
        self.rng = np.random.default_rng(seed)
        self.searches = 0
        self.changed = 0
        self.standard_errors: list[float] = []
        """Standard error of every paired difference (a move against the default) judged so far."""
        self.game = game
        self._specs: dict[int, GameSpec] = {}

    @property
    def game_name(self) -> str:
        """The registered name of the game the planner plays."""
        return self.game.name if isinstance(self.game, GameSpec) else self.game

    def spec_for(self, core) -> GameSpec:
        """The spec that reads the results of ``core``'s games (see ``game`` in ``__init__``)."""
        if isinstance(self.game, GameSpec):
            return self.game
        if core.num_players not in self._specs:
            self._specs[core.num_players] = registry.game_spec(self.game, core.num_players)
        return self._specs[core.num_players]

    def improve(self, core, games: Sequence[int], default: np.ndarray) -> np.ndarray:
        """The moves for ``games`` (whose seats to act the planner plays): ``default[i]`` (the roll-out
        agent's move in ``games[i]``) unless the search finds a better one."""
        hooks = self.hooks
        chosen = np.array(default, np.int64, copy=True)
        plans = []
        for i, g in enumerate(games):
            if hooks.remaining(core, int(g)) > self.trophies_left:
                continue
            moves, base = hooks.candidate_moves(core, int(g), int(default[i]))
            if len(moves) > 1:
                plans.append((i, int(g), moves, base))
        if not plans:
            return chosen
        M = self.playouts
        parts, seeds, first, seats = [], [], [], []
        for _, g, moves, _ in plans:
            state = hooks.determinize(core, g, M, self.rng)
            game_seeds = self.rng.integers(2**63, size=M)
            for move in moves:  # every move meets the same determinizations and reshuffle seeds
                parts.append(state)
                seeds.append(game_seeds)
                first.append(np.full(M, move))
                seats.append(np.full(M, int(core.current[g])))
        sim = hooks.branch(core, parts, np.concatenate(seeds))
        sim.step(np.concatenate(first))
        if hasattr(self.rollout_agent, "reseed"):  # roll-outs follow the planner's seed alone
            self.rollout_agent.reseed(int(self.rng.integers(2**63)))
        play_out(sim, self.rollout_agent)
        value = self.spec_for(core).seat_win_shares(sim, np.concatenate(seats))
        at = 0
        for i, _, moves, base in plans:
            v = value[at : at + len(moves) * M].reshape(len(moves), M)
            at += len(moves) * M
            diff = v - v[base]
            se = diff.std(1, ddof=1) / np.sqrt(M)
            gain = diff.mean(1) - self.margin * se
            gain[base] = 0.0
            self.standard_errors.extend(np.delete(se, base).tolist())
            best = int(np.argmax(gain))
            self.searches += 1
            if gain[best] > 0:
                chosen[i] = moves[best]
                self.changed += 1
        return chosen


def play_planner(planner: RolloutPlanner, opponent, num_players: int, games: int, seed: int = 0,
                 batch_size: int = 128, rules: dict | None = None, progress=None) -> np.ndarray:
    """Plays ``games`` games of the planner's game (``num_players`` seats, ``rules`` options), the
    planner in seat ``game % num_players`` and ``opponent`` elsewhere; returns the planner's win share
    per game (``[games]`` float). Games ``start ..`` of a batch are dealt from ``seed + start``."""
    spec = registry.game_spec(planner.game_name, num_players, **(rules or {}))
    shares = []
    for start in range(0, games, batch_size):
        n = min(batch_size, games - start)
        core = spec.make_core(n, seed + start)
        seat = (start + np.arange(n)) % num_players
        while not core.done.all():
            live = np.flatnonzero(~core.done)
            actions = np.zeros(n, np.int64)
            actions[live] = opponent.act(core.observe(core.current[live], games=live), core.legal_mask[live])
            mine = live[core.current[live] == seat[live]]
            if mine.size:
                actions[mine] = planner.improve(core, mine, actions[mine])
            core.step(actions, active=~core.done)
        shares.append(spec.seat_win_shares(core, seat))
        if progress is not None:
            progress(start + n, np.concatenate(shares))
    return np.concatenate(shares)


def main(argv: list[str] | None = None) -> dict:
    """Parses the arguments, plays, prints the planner's win share with its 95% interval. Bad arguments
    raise ValueError (a ``UsageError``), found before any game is played."""
    args = parse_dataclass(Args, argv, prog=PROG, examples=EXAMPLES)
    with user_errors():
        game = check_env(args.env)
        with user_errors("--env", args.env):
            search_hooks(args.env)  # refuses a game without search hooks, naming those with them
        players = check_players(game, args.players, zero_is_default=True)
        check_positive("--games", args.games)
        check_positive("--batch-size", args.batch_size)
        check_int("--playouts", args.playouts, 2)
        check_int("--trophies-left", args.trophies_left, 0)
        check_number("--margin", args.margin, 0.0, allowed="a non-negative number (standard errors)")
        check_seed(args.seed)
        check_json_path(args.json)
        spec, rules = check_variant(game, players, args.rules)
        args = dataclasses.replace(args, players=players, rollout_agent=args.rollout_agent or default_rollout(spec))
        opponent = make_agent("--rollout-agent", args.rollout_agent, game=args.env, seed=args.seed + 1,
                              num_players=args.players, rules=rules)
        rollout = make_agent("--rollout-agent", args.rollout_agent, game=args.env, seed=args.seed + 2,
                             num_players=args.players, rules=rules)
        planner = RolloutPlanner(rollout, playouts=args.playouts, margin=args.margin, trophies_left=args.trophies_left,
                                 seed=args.seed + 3, game=args.env)
    started = time.time()

    def report(done: int, shares: np.ndarray) -> None:
        if not args.progress:
            return
        print(f"{done} games: win share {100 * shares.mean():.1f}% ({time.time() - started:.0f} s)", file=sys.stderr,
              flush=True)

    shares = play_planner(planner, opponent, args.players, args.games, seed=args.seed, batch_size=args.batch_size,
                          rules=rules, progress=report)
    low, high = proportion_interval(float(shares.sum()), shares.size)
    summary = {"games": int(shares.size), "win_rate": float(shares.mean()), "win_interval": [low, high],
               "fair_share": 1.0 / args.players, "searches": planner.searches, "changed": planner.changed,
               "median_standard_error": float(np.median(planner.standard_errors)) if planner.standard_errors else None,
               "seconds": time.time() - started}
    print(f"planner ({args.rollout_agent} roll-outs, {args.playouts} playouts, remaining <= {args.trophies_left}) vs "
          f"{args.players - 1} x {args.rollout_agent}: {100 * summary['win_rate']:.1f}% "
          f"[{100 * low:.1f}, {100 * high:.1f}] of {shares.size} games (fair {100 / args.players:.0f}%); "
          f"{planner.changed} of {planner.searches} searched moves changed (median standard error of a move's "
          f"paired gain: {summary['median_standard_error'] or 0:.3f}); {summary['seconds']:.0f} s")
    if args.json:
        import json

        write_json_file(args.json, json.dumps({**summary, "args": dataclasses.asdict(args),
                                               "shares": shares.tolist()}, indent=1))
    return summary


if __name__ == "__main__":
    run_command(main)
