"""Determinized roll-out search: how far can one better decision at a time get past a heuristic?

    python -m training.search --players 4 --games 2000 --playouts 48 --trophies-left 4 --seed 0

A :class:`RolloutPlanner` plays one seat (rotating between games) against ``players - 1`` copies of
the roll-out agent (default ``counter``). At each of its decisions while at most ``--trophies-left``
trophies are left it

1. lists the distinct moves (:func:`candidate_moves`): call, reveal an unknown card (they are alike),
   each known fitting card, one known misfit (a safe way to end the turn), a known prize, or each
   pile for a placement;
2. deals ``--playouts`` determinizations (:func:`determinize`): the cards the seat cannot see (the
   draw pile and the face-down cards nobody has seen since the last shuffle) dealt again at random,
   the trophy values it cannot see (the face-down pile and opponents' trophies) shuffled; every
   candidate meets the same determinizations (common random numbers);
3. plays each candidate, then the roll-out agent in every seat to the end of the game;
4. takes a candidate instead of the roll-out agent's own move only when its mean win share is higher
   by more than ``--margin`` standard errors of the paired difference.

Nobody at the table sees a face-down card (not even its owner), so a determinization is a fair draw
from what the deciding seat knows; the planner reads the engine only through such copies. It is a
research tool (one-step policy improvement, Bertsekas' "rollout"), not an ``act(observation, mask)``
agent: it needs the engine's state to branch. Its figure against ``counter`` is in the README.
"""

from __future__ import annotations

import dataclasses
import sys
import time
from pathlib import Path
from typing import Sequence

import numpy as np

from keine_ahnung_env.games.keine_ahnung import scoring

from .cli import parse_dataclass, parse_rules
from .tournament import wilson_interval


@dataclasses.dataclass
class Args:
    """Play a determinized roll-out planner against copies of a heuristic and print its win share."""

    players: int = 4
    """number of players, 2-5; the planner takes one seat, rotating between games"""
    games: int = 400
    """games to play"""
    rollout_agent: str = "counter"
    """agents.make spec of the opponents and of every seat in the roll-outs"""
    playouts: int = 48
    """determinizations per decision (each candidate move is played in all of them)"""
    trophies_left: int = 4
    """search only while at most this many trophies are left (the end game; 12 = the whole game)"""
    margin: float = 1.0
    """standard errors of the paired difference a move needs over the roll-out agent's own move"""
    batch_size: int = 128
    """games played together (their searches share one batch of roll-outs)"""
    rules: list[str] = dataclasses.field(default_factory=list)
    """rules options as key=value (e.g. memory=none)"""
    seed: int = 0
    """seeds the deals, the determinizations and the agents"""
    json: str = ""
    """also write the summary and every game's win share to this JSON file"""


def determinize(core, game: int, copies: int, rng: np.random.Generator) -> dict[str, np.ndarray]:
    """``copies`` versions of ``game``'s position (``core.state_arrays`` form) as the seat to act may
    imagine it: the draw pile and the face-down cards nobody has seen dealt again at random among
    their places, the trophy values that seat has not seen (face-down pile, opponents' trophies)
    shuffled, and the opponents' trophy points recomputed. What the seat sees is unchanged."""
    from keine_ahnung_env.games.keine_ahnung.core import LOC_DRAW, LOC_LAYOUT

    if core.rules.memory != "perfect":
        raise ValueError("determinize needs memory='perfect' (with memory='none' a seat forgets cards it saw, "
                         "which this re-deal does not model)")
    state = core.state_arrays(np.repeat(game, copies))
    rows = np.arange(copies)[:, None]
    draw_idx = np.arange(int(core.draw_pos[game]), int(core.draw_len[game]))
    layout, known = core.layout[game], core.card_known[game]
    seats, slots = np.nonzero((layout >= 0) & ~known[np.maximum(layout, 0)])
    # Sorted first, so that the copies depend on which cards are hidden, never on where they lie.
    hidden = np.sort(np.concatenate([core.draw_cards[game, draw_idx], layout[seats, slots]]).astype(np.intp))
    if hidden.size:
        dealt = hidden[np.argsort(rng.random((copies, hidden.size)), axis=1)]
        to_draw, to_layout = dealt[:, : draw_idx.size], dealt[:, draw_idx.size :]
        state["draw_cards"][:, draw_idx] = to_draw
        state["card_loc"][rows, to_draw] = LOC_DRAW
        state["card_where"][rows, to_draw] = 0
        state["layout"][:, seats, slots] = to_layout
        state["card_loc"][rows, to_layout] = LOC_LAYOUT
        state["card_where"][rows, to_layout] = seats[None, :]
    seat = int(core.current[game])
    owner = core.trophy_owner[game]
    unseen = np.flatnonzero(owner != seat)
    if unseen.size > 1:
        values = np.sort(state["trophy_order"][:, unseen], axis=1)
        state["trophy_order"][:, unseen] = np.take_along_axis(values, np.argsort(rng.random(values.shape), axis=1), 1)
        won = owner[None, :, None] == np.arange(core.num_players)[None, None, :]  # [1, T, P]
        state["trophy_points"][:] = (state["trophy_order"][:, :, None] * won).sum(axis=1)
    return state


def candidate_moves(core, game: int, default: int) -> tuple[list[int], int]:
    """The distinct moves of the seat to act in ``game`` (one representative per class of moves with
    the same effect) and the index of ``default``'s class among them (``default`` itself is the
    representative of its class)."""
    from keine_ahnung_env.games.keine_ahnung.actions import ACTION_CALL, Phase
    from keine_ahnung_env.games.keine_ahnung.config import SLOTS

    legal = np.flatnonzero(core.legal_mask[game]).tolist()
    if int(core.phase[game]) != Phase.MAIN:
        return legal, legal.index(default)
    seat = int(core.current[game])
    tops = core.top_count[game] > 0
    classes: dict[object, list[int]] = {}
    for action in legal:
        if action == ACTION_CALL:
            key: object = "call"
        else:
            card = int(core.layout[game, seat, action])
            if not core.card_known[game, card]:
                key = "unknown"
            elif core._is_prize[card]:
                key = "prize"
            elif (core._fits[core._face_of[card]] & tops).any():
                key = ("fit", action)
            else:
                key = "misfit"
        classes.setdefault(key, []).append(action)
    moves, default_index = [], -1
    for members in classes.values():
        if default in members:
            default_index = len(moves)
            moves.append(default)
        else:
            moves.append(members[0])
    assert default_index >= 0 and all(m < SLOTS or m == ACTION_CALL for m in moves)
    return moves, default_index


def win_shares(scores: np.ndarray, holdings: np.ndarray, seats: np.ndarray, truncated: np.ndarray) -> np.ndarray:
    """[B] the given seats' shares of the win (ties split; a truncated game counts 1/P)."""
    share = scoring.win_shares(scores, holdings)[np.arange(len(seats)), seats]
    return np.where(truncated, 1.0 / scores.shape[1], share)


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

    def __init__(self, rollout_agent, playouts: int = 48, margin: float = 1.0, trophies_left: int = 4, seed: int = 0):
        """``rollout_agent``: a batched agent playing every seat of the roll-outs; ``playouts``: at
        least 2; ``margin``: a non-negative number; ``trophies_left``: a non-negative integer."""
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

    def improve(self, core, games: Sequence[int], default: np.ndarray) -> np.ndarray:
        """The moves for ``games`` (whose seats to act the planner plays): ``default[i]`` (the roll-out
        agent's move in ``games[i]``) unless the search finds a better one."""
        from keine_ahnung_env.games.keine_ahnung.core import KeineAhnungCore

        chosen = np.array(default, np.int64, copy=True)
        total = core.tables.num_trophies
        plans = []
        for i, g in enumerate(games):
            if total - int(core.trophy_pos[g]) > self.trophies_left:
                continue
            moves, base = candidate_moves(core, int(g), int(default[i]))
            if len(moves) > 1:
                plans.append((i, int(g), moves, base))
        if not plans:
            return chosen
        M = self.playouts
        parts, seeds, first, seats = [], [], [], []
        for _, g, moves, _ in plans:
            state = determinize(core, g, M, self.rng)
            game_seeds = self.rng.integers(2**63, size=M)
            for move in moves:  # every move meets the same determinizations and reshuffle seeds
                parts.append(state)
                seeds.append(game_seeds)
                first.append(np.full(M, move))
                seats.append(np.full(M, int(core.current[g])))
        arrays = {name: np.concatenate([p[name] for p in parts]) for name in parts[0]}
        sim = KeineAhnungCore.from_state_arrays(core.rules, arrays, np.concatenate(seeds))
        sim.step(np.concatenate(first))
        if hasattr(self.rollout_agent, "reseed"):  # roll-outs follow the planner's seed alone
            self.rollout_agent.reseed(int(self.rng.integers(2**63)))
        play_out(sim, self.rollout_agent)
        value = win_shares(sim.scores, sim.holdings, np.concatenate(seats), sim.truncated)
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
    """Plays ``games`` games, the planner in seat ``game % num_players`` and ``opponent`` elsewhere;
    returns the planner's win share per game (``[games]`` float)."""
    from keine_ahnung_env.games.keine_ahnung.config import Rules
    from keine_ahnung_env.games.keine_ahnung.core import KeineAhnungCore

    shares = []
    for start in range(0, games, batch_size):
        n = min(batch_size, games - start)
        core = KeineAhnungCore(n, Rules.make(num_players, **(rules or {})), seed=seed + start)
        seat = (start + np.arange(n)) % num_players
        while not core.done.all():
            live = np.flatnonzero(~core.done)
            actions = np.zeros(n, np.int64)
            actions[live] = opponent.act(core.observe(core.current[live], games=live), core.legal_mask[live])
            mine = live[core.current[live] == seat[live]]
            if mine.size:
                actions[mine] = planner.improve(core, mine, actions[mine])
            core.step(actions, active=~core.done)
        shares.append(win_shares(core.scores, core.holdings, seat, core.truncated))
        if progress is not None:
            progress(start + n, np.concatenate(shares))
    return np.concatenate(shares)


def main(argv: list[str] | None = None) -> dict:
    """Parses the arguments, plays, prints the planner's win share with its 95% interval."""
    import agents

    args = parse_dataclass(Args, argv)
    if not 2 <= args.players <= 5:
        raise ValueError(f"--players {args.players}; allowed: 2-5")
    if args.games < 1 or args.batch_size < 1:
        raise ValueError("--games and --batch-size must be positive integers")
    rules = parse_rules(args.rules)
    opponent = agents.make(args.rollout_agent, seed=args.seed + 1, num_players=args.players, rules=rules)
    rollout = agents.make(args.rollout_agent, seed=args.seed + 2, num_players=args.players, rules=rules)
    planner = RolloutPlanner(rollout, playouts=args.playouts, margin=args.margin, trophies_left=args.trophies_left,
                             seed=args.seed + 3)
    started = time.time()

    def report(done: int, shares: np.ndarray) -> None:
        print(f"{done} games: win share {100 * shares.mean():.1f}% ({time.time() - started:.0f} s)", file=sys.stderr,
              flush=True)

    shares = play_planner(planner, opponent, args.players, args.games, seed=args.seed, batch_size=args.batch_size,
                          rules=rules, progress=report)
    low, high = wilson_interval(float(shares.sum()), shares.size)
    summary = {"games": int(shares.size), "win_rate": float(shares.mean()), "win_interval": [low, high],
               "fair_share": 1.0 / args.players, "searches": planner.searches, "changed": planner.changed,
               "median_standard_error": float(np.median(planner.standard_errors)) if planner.standard_errors else None,
               "seconds": time.time() - started}
    print(f"planner ({args.rollout_agent} roll-outs, {args.playouts} playouts, last {args.trophies_left} trophies) vs "
          f"{args.players - 1} x {args.rollout_agent}: {100 * summary['win_rate']:.1f}% "
          f"[{100 * low:.1f}, {100 * high:.1f}] of {shares.size} games (fair {100 / args.players:.0f}%); "
          f"{planner.changed} of {planner.searches} searched moves changed (median standard error of a move's "
          f"paired gain: {summary['median_standard_error'] or 0:.3f}); {summary['seconds']:.0f} s")
    if args.json:
        import json

        Path(args.json).write_text(json.dumps({**summary, "args": dataclasses.asdict(args),
                                               "shares": shares.tolist()}, indent=1))
    return summary


if __name__ == "__main__":
    main()
