"""Helpers for the research notebooks (kept here so the notebook cells stay short).

Everything is batched (the NumPy core, ``training.tournament.play_tournament``, the risk model) and
seeded, so a notebook run is reproducible from its seed and budget.

The budget comes from the environment variable ``KA_NOTEBOOK_BUDGET``: ``"full"`` (default, the
figures quoted in the notebooks) or ``"small"`` (a few dozen games; what the test suite runs).
"""

from __future__ import annotations

import itertools
import os
import tempfile

import numpy as np

import agents
from keine_ahnung_env.games.keine_ahnung import odds as risk
from keine_ahnung_env.games.keine_ahnung.actions import ACTION_CALL
from keine_ahnung_env.games.keine_ahnung.config import Rules
from keine_ahnung_env.games.keine_ahnung.core import KeineAhnungCore
from training.tournament import play_tournament

BUDGETS = ("small", "full")
Z95 = 1.959963984540054


def lab(name: str):
    """Module ``name`` of the repository's ``research/`` folder (the studies, not installed), loaded by its
    path: the notebooks import this file as ``research``, which hides the folder's package."""
    import importlib.util
    import sys
    from pathlib import Path

    key = f"_research_{name}"
    if key not in sys.modules:
        path = Path(agents.__file__).resolve().parents[1] / "research" / f"{name}.py"
        spec = importlib.util.spec_from_file_location(key, path)
        module = importlib.util.module_from_spec(spec)
        sys.modules[key] = module  # before running it: its dataclasses look their module up there
        spec.loader.exec_module(module)
    return sys.modules[key]


def budget() -> str:
    """The budget named by ``KA_NOTEBOOK_BUDGET`` (default ``"full"``)."""
    value = os.environ.get("KA_NOTEBOOK_BUDGET", "full").strip().lower() or "full"
    if value not in BUDGETS:
        raise ValueError(f"KA_NOTEBOOK_BUDGET={value!r}; allowed: {', '.join(BUDGETS)}")
    return value


def mean_interval(values: np.ndarray) -> tuple[float, float, float]:
    """Mean and its normal 95% interval ``(mean, low, high)``."""
    v = np.asarray(values, np.float64)
    if v.size == 0:
        return float("nan"), float("nan"), float("nan")
    m = float(v.mean())
    half = Z95 * float(v.std(ddof=1)) / np.sqrt(v.size) if v.size > 1 else float("nan")
    return m, m - half, m + half


# --------------------------------------------------------------------------------------------------
# The exact model as a formula: tables for the heatmaps
# --------------------------------------------------------------------------------------------------

def deck_tables():
    """The standard deck's card tables."""
    return Rules.make(2).tables()


def formula_table(max_piles: int = 8, samples: int = 4000, seed: int = 0, seen: int = 0):
    """Mean exact success probability of a call with ``u`` unknown face-down cards (rows u = 1..3)
    against ``k`` random discard-pile tops (columns k = 1..max_piles).

    The tops are ``k`` distinct-face number cards drawn from the deck; the pool is the rest of the
    deck with ``seen`` further random cards removed (cards whose place the seat knows). Returns
    ``(prob [3, max_piles], good_fraction [max_piles])``.
    """
    t = deck_tables()
    rng = np.random.default_rng(seed)
    number_cards = np.flatnonzero(~t.is_prize)
    N = t.num_cards
    prob = np.zeros((3, max_piles))
    good_frac = np.zeros(max_piles)
    for k in range(1, max_piles + 1):
        g_all, n_all = np.zeros(samples), np.zeros(samples)
        for s in range(samples):
            perm = rng.permutation(number_cards)
            tops, faces = [], set()
            for c in perm:
                if t.face[c] not in faces:
                    faces.add(int(t.face[c]))
                    tops.append(int(c))
                    if len(tops) == k:
                        break
            top_vec = np.zeros((1, 36))
            top_vec[0, list(faces)] = 1
            fits = risk.face_fit_counts(top_vec, t)[0][t.face] > 0  # per card
            good = ~fits & ~t.is_prize
            rest = np.setdiff1d(np.arange(N), tops)
            if seen:
                rest = rng.permutation(rest)[seen:]
            g_all[s], n_all[s] = good[rest].sum(), rest.size
        good_frac[k - 1] = (g_all / n_all).mean()
        for u in (1, 2, 3):
            prob[u - 1, k - 1] = risk.all_good_probability(g_all, n_all, np.full(samples, u)).mean()
    return prob, good_frac


def pool_size_table(pool_sizes=(4, 6, 8, 12, 16, 24, 32, 48, 64), good_fraction: float = 0.3):
    """Exact probability C(g, u) / C(n, u) for u = 1..3 over pool sizes n at a fixed good fraction
    g = round(fraction * n): how much the pool's size (cards seen) matters beyond its composition."""
    n = np.asarray(pool_sizes, np.float64)
    g = np.round(good_fraction * n)
    return np.stack([risk.all_good_probability(g, n, np.full(n.shape, u)) for u in (1, 2, 3)])


# --------------------------------------------------------------------------------------------------
# States from real games: empirical heatmaps and the Monte Carlo check
# --------------------------------------------------------------------------------------------------

def call_state_table(num_players=(2, 3, 4, 5), memories=("perfect",), per_variant: int = 200, seed: int = 0,
                     policy: str | None = "greedy"):
    """Features of states where the acting seat may call, from games of ``policy`` (None: random).

    Returns a dict of arrays: p (exact probability), cards (layout cards 1-3), known (of which the
    seat knows), unknown, piles, pool (pool size), players, memory.
    """
    out = {k: [] for k in ("p", "cards", "known", "unknown", "piles", "pool", "players", "memory")}
    for i, (P, memory) in enumerate(itertools.product(num_players, memories)):
        agent = None if policy is None else agents.make(policy, seed=seed + i)
        gen = risk.collect_call_states(num_players=(P,), memories=(memory,), per_variant=per_variant,
                                       seed=seed * 1000 + i, policy=agent)
        for core, b in itertools.islice(gen, per_variant):
            obs = core.observe(core.current)[b][None]
            v = risk.decode(obs)
            state = v.slot_state[0, 0]
            out["p"].append(float(risk.batch_call_success_probability(obs, view=v)[0]))
            out["cards"].append(int((state != risk.SLOT_EMPTY).sum()))
            out["known"].append(int((state == risk.SLOT_KNOWN).sum()))
            out["unknown"].append(int((state == risk.SLOT_UNKNOWN).sum()))
            out["piles"].append(int(v.table_counts[0, 3]))
            out["pool"].append(int(v.pool[0].sum()))
            out["players"].append(P)
            out["memory"].append(memory)
    return {k: np.asarray(v) for k, v in out.items()}


def binned_mean(x: np.ndarray, y: np.ndarray, values: np.ndarray, x_bins, y_bins):
    """Mean of ``values`` and counts per (y, x) cell for integer-valued x and y (NaN where empty)."""
    mean = np.full((len(y_bins), len(x_bins)), np.nan)
    count = np.zeros((len(y_bins), len(x_bins)), np.int64)
    for i, yb in enumerate(y_bins):
        for j, xb in enumerate(x_bins):
            sel = (y == yb) & (x == xb) if not isinstance(xb, tuple) else (y == yb) & (x >= xb[0]) & (x <= xb[1])
            count[i, j] = sel.sum()
            if count[i, j]:
                mean[i, j] = values[sel].mean()
    return mean, count


def monte_carlo_check(states: int = 200, playouts: int = 2000, seed: int = 0):
    """The exact probability next to Monte Carlo play-outs of the real engine for ``states`` call
    states (2-5 players, both memory modes, random and greedy play). Returns a dict of arrays:
    exact, hits, playouts, label, and ``seconds``."""
    engine_check = lab("risk_engine_check").engine_check  # research/risk_engine_check.py

    check = engine_check(states, playouts, seed=seed, num_envs=32)
    labels = [f"{P}p/{memory}" for P, memory, _ in check["variants"]]
    return {"exact": check["exact"], "hits": check["hits"], "playouts": playouts, "label": np.array(labels),
            "seconds": check["seconds"]}


# --------------------------------------------------------------------------------------------------
# The calling decision: threshold sweeps
# --------------------------------------------------------------------------------------------------

def seat_stats(result, agent_index: int = 0) -> dict:
    """One agent's figures from a tournament: win rate with its Wilson interval, mean score with a
    normal 95% interval, calls per game, call success rate with its Wilson interval."""
    a = result.agents[agent_index]
    seat_agent = np.asarray(result.lineups)[result.game_lineup]
    scores = result.game_scores[seat_agent == agent_index]
    m, lo, hi = mean_interval(scores)
    clo, chi = risk.wilson_interval(a.call_successes, a.calls)
    wlo, whi = a.win_interval
    return {"name": a.name, "games": a.games, "win_rate": a.win_rate, "win_low": wlo, "win_high": whi,
            "score": m, "score_low": lo, "score_high": hi, "calls_per_game": a.calls_per_game,
            "call_success": a.call_success_rate, "call_low": float(clo), "call_high": float(chi)}


def sweep(thresholds, num_players=(2, 3, 4, 5), games: int = 400, opponent: str = "greedy", seed: int = 0,
          extra=("never_call", "always_call"), **rules) -> list[dict]:
    """Each candidate (``risk_caller:t`` for every threshold, then the ``extra`` specs) in one seat
    against ``P - 1`` copies of ``opponent``, seat-rotated over ``games`` games with common deals
    (the same ``seed`` for every candidate, so they meet the same cards). Returns one row per
    (players, candidate) with the figures of :func:`seat_stats` plus players, threshold, spec."""
    rows = []
    specs = [(f"risk_caller:{t:g}", float(t)) for t in thresholds] + [(s, np.nan) for s in extra]
    for P in num_players:
        opp = agents.make(opponent, seed=seed + 100)
        for j, (spec, t) in enumerate(specs):
            cand = agents.make(spec, seed=seed + j)
            res = play_tournament([cand] + [opp] * (P - 1), num_players=P, games=games, seed=seed,
                                  names=[spec] + [f"{opponent}#{i}" for i in range(P - 1)], rating_passes=1, **rules)
            row = seat_stats(res, 0)
            row.update(players=P, threshold=t, spec=spec, memory=rules.get("memory", "perfect"))
            rows.append(row)
    return rows


def best_thresholds(rows, key: str = "win_rate") -> dict[int, dict]:
    """Per player count, the risk_caller row with the highest ``key``."""
    best = {}
    for r in rows:
        if not r["spec"].startswith("risk_caller"):
            continue
        if r["players"] not in best or r[key] > best[r["players"]][key]:
            best[r["players"]] = r
    return best


def text_table(columns: dict[str, list], formats: dict[str, str] | None = None) -> str:
    """A plain-text table from ``{header: values}`` (``formats``: header -> format spec)."""
    formats = formats or {}
    heads = list(columns)
    cells = [[format(v, formats.get(h, "")) if not isinstance(v, str) else v for v in columns[h]] for h in heads]
    widths = [max(len(h), *(len(c) for c in col)) if col else len(h) for h, col in zip(heads, cells)]
    lines = ["  ".join(h.rjust(w) for h, w in zip(heads, widths)), "  ".join("-" * w for w in widths)]
    for i in range(len(cells[0]) if cells else 0):
        lines.append("  ".join(col[i].rjust(w) for col, w in zip(cells, widths)))
    return "\n".join(lines)


def sweep_table(rows) -> str:
    """The sweep rows as a text table (win rate and call success with 95% intervals)."""
    pct = lambda x: "-" if x != x else f"{max(0.0, 100 * x):.1f}"  # noqa: E731
    return text_table({
        "players": [str(r["players"]) for r in rows], "memory": [r["memory"] for r in rows],
        "agent": [r["spec"] for r in rows], "games": [str(r["games"]) for r in rows],
        "win %": [pct(r["win_rate"]) for r in rows],
        "95% CI": [f"[{pct(r['win_low'])}, {pct(r['win_high'])}]" for r in rows],
        "score": [f"{r['score']:.2f}" for r in rows],
        "95% CI ": [f"[{r['score_low']:.2f}, {r['score_high']:.2f}]" for r in rows],
        "calls/game": [f"{r['calls_per_game']:.2f}" for r in rows],
        "call ok %": [pct(r["call_success"]) for r in rows],
        "95% CI  ": [f"[{pct(r['call_low'])}, {pct(r['call_high'])}]" if r["call_success"] == r["call_success"] else "-"
                     for r in rows]})


def calibration_table(cal: dict) -> str:
    """A calibration summary (see :func:`calibration`) as a text table."""
    pct = lambda x: "-" if x != x else f"{max(0.0, 100 * x):.1f}"  # noqa: E731
    K = len(cal["labels"])
    return text_table({
        "exact p bin": list(cal["labels"]), "decisions": [str(int(x)) for x in cal["opportunities"]],
        "calls": [str(int(x)) for x in cal["calls"]], "call %": [pct(x) for x in cal["call_rate"]],
        "95% CI": [f"[{pct(cal['call_low'][k])}, {pct(cal['call_high'][k])}]" for k in range(K)],
        "won": [str(int(x)) for x in cal["successes"]], "success %": [pct(x) for x in cal["success_rate"]],
        "95% CI ": [f"[{pct(cal['success_low'][k])}, {pct(cal['success_high'][k])}]" for k in range(K)],
        "mean p of calls": [("-" if x != x else f"{x:.3f}") for x in cal["mean_p"]]})


def plot_sweep(rows, axes=None, title_suffix: str = ""):
    """Win rate (top) and mean score (bottom) against the threshold per player count, with 95%
    bands; never/always calling as dashed horizontal lines with shaded intervals."""
    import matplotlib.pyplot as plt

    players = sorted({r["players"] for r in rows})
    if axes is None:
        fig, axes = plt.subplots(2, len(players), figsize=(4.2 * len(players), 7.5), squeeze=False)
    else:
        fig = axes[0, 0].figure
    for j, P in enumerate(players):
        mine = [r for r in rows if r["players"] == P]
        sweep_rows = [r for r in mine if r["spec"].startswith("risk_caller")]
        t = np.array([r["threshold"] for r in sweep_rows])
        for i, (key, label) in enumerate((("win", "win rate"), ("score", "mean score"))):
            ax = axes[i, j]
            main = "win_rate" if key == "win" else "score"
            y = np.array([r[main] for r in sweep_rows])
            lo = np.array([r[f"{key}_low"] for r in sweep_rows])
            hi = np.array([r[f"{key}_high"] for r in sweep_rows])
            ax.plot(t, y, "o-", color="C0", label="risk_caller(threshold)")
            ax.fill_between(t, lo, hi, color="C0", alpha=0.2)
            for r, colour in zip([r for r in mine if not r["spec"].startswith("risk_caller")], ("C3", "C2", "C4")):
                ax.axhline(r[main], color=colour, ls="--", label=r["spec"])
                ax.axhspan(r[f"{key}_low"], r[f"{key}_high"], color=colour, alpha=0.08)
            if key == "win":
                ax.axhline(1 / P, color="grey", ls=":", lw=1, label=f"1/{P} (equal share)")
            ax.set_xlabel("call threshold (exact success probability)")
            ax.set_ylabel(label)
            ax.set_title(f"{P} players: {label}{title_suffix}")
            ax.grid(alpha=0.3)
            if i == 0 and j == 0:
                ax.legend(fontsize=8, loc="best")
    fig.tight_layout()
    return fig


# --------------------------------------------------------------------------------------------------
# PPO: a tiny training run and the calibration of its calls
# --------------------------------------------------------------------------------------------------

def train_tiny_ppo(players: int = 4, timesteps: int = 1024, out_dir: str | None = None, imitate: str = "",
                   imitation_games: int = 20, imitation_epochs: int = 2, seed: int = 0, num_envs: int = 16,
                   n_steps: int = 64, env_var: str = "KA_PPO_CHECKPOINT") -> str:
    """A short MaskablePPO run (``training.train``; with ``imitate``, warm-started by imitating that
    agent first); returns the checkpoint path. Uses the checkpoint named by the environment variable
    ``env_var`` instead when it is set."""
    given = os.environ.get(env_var, "").strip()
    if given:
        return given
    from training import train

    out_dir = out_dir or tempfile.mkdtemp(prefix="ka_notebook_ppo_")
    argv = ["--players", str(players), "--total-timesteps", str(timesteps), "--num-envs", str(num_envs),
            "--n-steps", str(n_steps), "--batch-size", str(min(2048, num_envs * n_steps)), "--n-epochs", "2",
            "--eval-every", "0", "--final-games", "2", "--opponents", "random,greedy,risk_caller:0.5,counter",
            "--net-arch", "64,64", "--seed", str(seed), "--out-dir", out_dir, "--no-progress",
            "--recipe", "plain"]
    if imitate:
        argv += ["--imitate", imitate, "--imitation-games", str(imitation_games), "--imitation-epochs",
                 str(imitation_epochs)]
    import matplotlib

    backend = matplotlib.get_backend()  # training saves its learning curve with Agg; keep inline plots
    try:
        summary = train.main(argv)
    finally:
        import matplotlib.pyplot as plt

        _restore_backend(backend)
    return summary["checkpoint"]


def _restore_backend(backend: str) -> None:
    """Puts matplotlib back on ``backend`` (re-activating Jupyter's inline figures when in a kernel)."""
    import matplotlib
    import matplotlib.pyplot as plt

    if matplotlib.get_backend() == backend and "inline" not in backend:
        return
    try:
        from IPython import get_ipython

        shell = get_ipython()
    except ImportError:  # pragma: no cover
        shell = None
    if shell is not None and "inline" in backend:
        shell.run_line_magic("matplotlib", "inline")
    else:
        plt.switch_backend(backend)


def call_decisions(agent, num_players: int = 4, games: int = 64, opponent: str = "greedy", seed: int = 0,
                   max_steps: int = 20000, **rule_options) -> dict:
    """Plays ``games`` games with ``agent`` in seat 0 (opponent agents elsewhere) and records, at every
    decision of seat 0 where CALL is legal, the exact success probability, whether it called, and
    (for calls) whether the call won a trophy. Returns a dict of arrays p, called, success (NaN when
    it did not call) and the number of finished games."""
    rules = Rules.make(num_players, **rule_options)
    core = KeineAhnungCore(games, rules, seed=seed)
    opp = agents.make(opponent, seed=seed + 1)
    p_all, called_all, success_all = [], [], []
    finished = np.zeros(games, bool)
    for _ in range(max_steps):
        live = ~core.done
        if not live.any():
            break
        obs = core.observe(core.current)
        mask = core.legal_mask
        seat0 = core.current == 0
        actions = np.zeros(games, np.int64)
        if (live & seat0).any():
            idx = np.flatnonzero(live & seat0)
            actions[idx] = agent.act(obs[idx], mask[idx])
        if (live & ~seat0).any():
            idx = np.flatnonzero(live & ~seat0)
            actions[idx] = opp.act(obs[idx], mask[idx])
        chance = np.flatnonzero(live & seat0 & mask[:, ACTION_CALL].astype(bool))
        before = core.trophy_count[:, 0].copy()
        p = risk.batch_call_success_probability(obs[chance]) if chance.size else np.zeros(0)
        core.step(actions, active=live)
        if chance.size:
            did = actions[chance] == ACTION_CALL
            won = core.trophy_count[chance, 0] > before[chance]
            p_all.append(p)
            called_all.append(did)
            success_all.append(np.where(did, won.astype(np.float64), np.nan))
    cat = (lambda xs, dt: np.concatenate(xs).astype(dt) if xs else np.zeros(0, dt))
    return {"p": cat(p_all, np.float64), "called": cat(called_all, bool), "success": cat(success_all, np.float64),
            "games": int(core.done.sum())}


CAL_BINS = np.array([0.0, 1e-9, 0.2, 0.4, 0.6, 0.8, 1.0 - 1e-9, 1.0 + 1e-9])
CAL_LABELS = ["0", "(0,.2]", "(.2,.4]", "(.4,.6]", "(.6,.8]", "(.8,1)", "1"]


def calibration(dec: dict, bins=CAL_BINS) -> dict:
    """Per probability bin: opportunities, calls, call rate (Wilson), successes among calls, success
    rate (Wilson) and the mean exact probability of the calls made."""
    b = np.clip(np.digitize(dec["p"], bins[1:-1], right=True), 0, len(bins) - 2)
    K = len(bins) - 1
    opp = np.bincount(b, minlength=K)
    calls = np.bincount(b, weights=dec["called"].astype(float), minlength=K)
    succ = np.bincount(b[dec["called"]], weights=dec["success"][dec["called"]], minlength=K)
    mean_p = np.array([dec["p"][(b == k) & dec["called"]].mean() if ((b == k) & dec["called"]).any() else np.nan
                       for k in range(K)])
    rl, rh = risk.wilson_interval(calls, opp)
    sl, sh = risk.wilson_interval(succ, calls)
    with np.errstate(divide="ignore", invalid="ignore"):
        return {"labels": CAL_LABELS[:K], "opportunities": opp, "calls": calls.astype(int),
                "call_rate": calls / opp, "call_low": rl, "call_high": rh, "successes": succ.astype(int),
                "success_rate": succ / calls, "success_low": sl, "success_high": sh, "mean_p": mean_p}


def plot_calibration(cals: dict[str, dict]):
    """Two panels: call rate per probability bin, and success rate of the calls made against the
    mean exact probability (the diagonal is perfect calibration of the model)."""
    import matplotlib.pyplot as plt

    fig, (a1, a2) = plt.subplots(1, 2, figsize=(13, 4.8))
    names = list(cals)
    width = 0.8 / max(1, len(names))
    for i, name in enumerate(names):
        c = cals[name]
        x = np.arange(len(c["labels"])) + (i - (len(names) - 1) / 2) * width
        err = np.clip(np.array([c["call_rate"] - c["call_low"], c["call_high"] - c["call_rate"]]), 0, None)
        a1.bar(x, np.nan_to_num(c["call_rate"]), width, yerr=np.nan_to_num(err), capsize=3, label=name, alpha=0.8)
        ok = c["calls"] > 0
        err2 = np.clip(np.array([c["success_rate"] - c["success_low"],
                                 c["success_high"] - c["success_rate"]])[:, ok], 0, None)
        a2.errorbar(c["mean_p"][ok], c["success_rate"][ok], yerr=err2, fmt="o", capsize=3, label=name)
    c = cals[names[0]]
    a1.set_xticks(np.arange(len(c["labels"])))
    a1.set_xticklabels(c["labels"])
    a1.set_xlabel("exact success probability at the decision (bin)")
    a1.set_ylabel("share of legal-call decisions that called")
    a1.set_title("When does the agent call? (95% Wilson bars)")
    a1.legend(fontsize=9)
    a1.grid(alpha=0.3, axis="y")
    a2.plot([0, 1], [0, 1], "k--", lw=1, label="exact model")
    a2.set_xlabel("mean exact success probability of the calls in the bin")
    a2.set_ylabel("observed success rate of those calls")
    a2.set_title("Calibration of the calls made")
    a2.set_xlim(-0.03, 1.03)
    a2.set_ylim(-0.03, 1.03)
    a2.legend(fontsize=9)
    a2.grid(alpha=0.3)
    fig.tight_layout()
    return fig
