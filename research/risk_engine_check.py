"""The call-risk model of Keine Ahnung (``keine_ahnung_env/games/keine_ahnung/risk.py``) next to the real
engine: exact probabilities beside Monte Carlo play-outs for many call states (``validate_risk.py``
and the research notebook run it)."""

from __future__ import annotations

import numpy as np

from keine_ahnung_env.games.keine_ahnung.actions import ACTION_CALL
from keine_ahnung_env.games.keine_ahnung.odds import (call_success_probability, collect_call_states,
                                                      monte_carlo_call_success)


def engine_check(states: int, playouts: int, seed: int = 0, num_envs: int = 64, sampler: bool = False) -> dict:
    """The exact probability next to Monte Carlo play-outs of the real engine for about ``states``
    call states, spread over 2-5 players, both memory modes and random or greedy play.

    Returns ``exact`` [S] and ``hits`` [S] (successful play-outs of ``playouts``) arrays, the
    ``variants`` list of ``(players, memory, policy)`` per state, ``playouts`` and ``seconds``; with
    ``sampler=True`` also ``sampled`` [S]: successful CALLs in ``playouts`` games drawn by the belief's
    sampler (``belief.sample_states``) from the caller's observation alone.
    """
    import itertools
    import time

    from keine_ahnung_env.games.keine_ahnung.agents import GreedyAgent
    from keine_ahnung_env.games.keine_ahnung.belief import belief_for
    from keine_ahnung_env.games.keine_ahnung.core import KeineAhnungCore

    rng = np.random.default_rng(seed)
    variants = [(P, memory, policy) for P in (2, 3, 4, 5) for memory in ("perfect", "none")
                for policy in ("random", "greedy")]
    per_variant = max(1, -(-states // len(variants)))
    exact, hits, labels, sampled = [], [], [], []
    scratch: dict = {}
    start = time.time()
    for i, (P, memory, policy) in enumerate(variants):
        agent = None if policy == "random" else GreedyAgent(seed=seed + i)
        found = collect_call_states(num_players=(P,), memories=(memory,), per_variant=per_variant,
                                    seed=seed * 1000 + i, policy=agent, num_envs=num_envs)
        for core, b in itertools.islice(found, per_variant):
            exact.append(call_success_probability(core.observe(core.current)[b]))
            if core.rules not in scratch:
                scratch[core.rules] = KeineAhnungCore(playouts, core.rules, seed=seed)
            k, _ = monte_carlo_call_success(core, b, playouts, rng, scratch=scratch[core.rules])
            hits.append(k)
            labels.append((P, memory, policy))
            if sampler:
                obs = core.observe(core.current)[b]
                games = belief_for(core.rules).sample_states(obs, playouts, rng)
                before = games.trophy_count[:, 0].copy()
                games.step(np.full(playouts, ACTION_CALL))
                sampled.append(int((games.trophy_count[:, 0] > before).sum()))
    out = {"exact": np.array(exact), "hits": np.array(hits), "variants": labels, "playouts": playouts,
           "seconds": time.time() - start}
    if sampler:
        out["sampled"] = np.array(sampled)
    return out
