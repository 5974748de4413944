"""How much better than ``counter``'s move is the best move at a call decision? A high-budget look.

Plays ``--games`` 4-player games with ``counter`` in every seat for ``--steps`` decisions, takes every
game whose seat to act may call "Nothing fits anymore!", and values each distinct move there
(``GameSpec.search.candidate_moves``) the way the search agent ``ismcts`` does, with ``--playouts``
states drawn from the seat's belief per move (common states across moves; ``counter`` roll-outs to
the end of the game). Prints, per decision, every move's win-share gain over ``counter``'s own move
with its standard error, and a summary: how often another move's gain exceeds 2 standard errors,
and the mean gain a perfect chooser among the measured moves would collect (an upper bound on what
one-step search with these roll-outs can add per decision, inflated by the noise it picks).

    .venv/bin/python research/ismcts_headroom.py --games 96 --steps 60 --playouts 256 --seed 41
"""

from __future__ import annotations

import argparse
import time

import numpy as np

import agents
from agents.ismcts import play_out
from keine_ahnung_env import registry


def main(argv=None) -> dict:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--players", type=int, default=4)
    parser.add_argument("--games", type=int, default=96)
    parser.add_argument("--steps", type=int, default=60, help="decisions of counter self-play before the look")
    parser.add_argument("--playouts", type=int, default=256, help="belief states per move")
    parser.add_argument("--seed", type=int, default=41)
    args = parser.parse_args(argv)
    spec = registry.game_spec("keine_ahnung_v0", args.players)
    call = spec.action_names.index("CALL")
    core = spec.make_core(args.games, args.seed)
    counter = agents.make("counter", seed=args.seed)
    for _ in range(args.steps):
        live = np.flatnonzero(~core.done)
        actions = np.zeros(args.games, np.int64)
        actions[live] = counter.act(core.observe(core.current[live], games=live), core.legal_mask[live])
        core.step(actions, active=~core.done)
    games = np.flatnonzero(~core.done & core.legal_mask[:, call])
    obs, mask = core.observe(core.current[games], games=games), core.legal_mask[games]
    default = counter.act(obs, mask)
    rng = np.random.default_rng(args.seed + 1)
    start = time.time()
    K = args.playouts
    rows, parts, first = [], [], []
    for o, d in zip(obs, default):
        sampled = spec.belief.sample_states(o, K, rng)
        moves, base = spec.search.candidate_moves(sampled, 0, int(d))
        rows.append((moves, base))
        for move in moves:
            parts.append((sampled, np.arange(K)))
            first.append(np.full(K, move, np.int64))
    sim = type(parts[0][0]).gather(parts)
    sim.step(np.concatenate(first))
    play_out(sim, counter)
    value = np.asarray(spec.win_shares(sim))[:, 0]  # the sampled states seat the observer at 0
    at, clear, best_gain, searched = 0, 0, [], 0
    for (moves, base), d in zip(rows, default):
        v = value[at: at + len(moves) * K].reshape(len(moves), K)
        at += len(moves) * K
        diff = v - v[base]
        gain, se = diff.mean(1), diff.std(1, ddof=1) / np.sqrt(K)
        text = ", ".join(f"{spec.action_name(m)} {g:+.3f}±{s:.3f}" for m, g, s in zip(moves, gain, se))
        print(f"counter plays {spec.action_name(int(d))}: {text}")
        if len(moves) > 1:
            searched += 1
            clear += int(((gain > 2 * se) & (np.arange(len(moves)) != base)).any())
            best_gain.append(max(0.0, float(np.delete(gain, base).max())))
    result = {"decisions": len(rows), "with_choices": searched, "clear_gains": clear,
              "mean_best_gain": float(np.mean(best_gain)) if best_gain else 0.0, "seconds": time.time() - start}
    print(f"{searched} call decisions with a choice ({len(rows)} in all), {K} states per move: another move beat "
          f"counter's by more than 2 standard errors at {clear}; a perfect chooser among the measured moves would gain "
          f"{result['mean_best_gain']:.3f} win share per decision (noise included); {result['seconds']:.0f} s")
    return result


if __name__ == "__main__":
    main()
