"""How often does a learned agent play its teacher's move? Agreement along the teacher's own games.

The teacher (``counter_tuned`` by default) plays every seat of ``--games`` 4-player Keine Ahnung games
at once for ``--steps`` decisions (finished games are dealt anew); at every decision with more than one
legal move each learned agent is asked too, and its move counts as agreeing when the teacher's advice
feature set marks it (the teacher's move, or any of the alike unknown cards when it reveals one).

    .venv/bin/python research/ppo_agreement.py [--games 256] [--steps 400] [--seed 777]

Figures (docs/skill_ceiling.md, "A stronger teacher"): the wave-8 ``ppo_4p`` plays one of
``counter_tuned``'s moves at 0.9991 of 102,400 decisions; ``ppo_4p_v1`` one of ``counter``'s at 0.9560.
"""

from __future__ import annotations

import argparse

import numpy as np

import agents
from keine_ahnung_env import registry

PAIRS = (("ppo_4p", "advice_tuned"), ("ppo_4p", "advice"), ("ppo_4p_v1", "advice"))
"""(learned agent, advice feature set whose marks count as the teacher's moves)."""
TEACHER_OF = {"advice_tuned": "counter_tuned", "advice": "counter"}


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=256)
    parser.add_argument("--steps", type=int, default=400)
    parser.add_argument("--seed", type=int, default=777)
    parser.add_argument("--teacher", default="counter_tuned", help="the agent spec that plays the games")
    args = parser.parse_args(argv)
    spec = registry.game_spec("keine_ahnung_v0", 4)
    core = spec.make_core(args.games, args.seed)
    teacher = agents.make(args.teacher, game=spec.name, seed=args.seed)
    learned = {name: agents.make(name, seed=0) for name in {name for name, _ in PAIRS}}
    features = {kind: spec.features(kind) for kind in {kind for _, kind in PAIRS}}
    agreed = {pair: 0 for pair in PAIRS}
    decisions = 0
    for _ in range(args.steps):
        obs, mask = core.observe(core.current), core.legal_mask
        choice = mask.sum(1) > 1
        if choice.any():
            o, m = obs[choice], mask[choice]
            rows = np.arange(len(o))
            moves = {name: agent.act(o, m) for name, agent in learned.items()}
            marks = {kind: f(o, m)[:, -m.shape[1]:] > 0 for kind, f in features.items()}
            for name, kind in PAIRS:
                agreed[(name, kind)] += int(marks[kind][rows, moves[name]].sum())
            decisions += len(o)
        core.step(teacher.act(obs, mask))
        if core.done.any():
            core.reset_games(np.flatnonzero(core.done))
    print(f"{decisions:,} decisions with a choice, in {args.teacher}'s games (seed {args.seed})")
    for name, kind in PAIRS:
        print(f"  {name:10s} plays {TEACHER_OF[kind]}'s move at {agreed[(name, kind)] / decisions:.4f}")


if __name__ == "__main__":
    main()
