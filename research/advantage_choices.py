"""Where does an advantage model depart from its heuristic, and what do the roll-outs say there?

Reads the labelled decisions ``training.advantage --data`` wrote and a model, takes the held-out batches
(the last ``--validation`` share, as the command held them out) and prints, per bin of the recipe's gate
(the call's success chance; for a recipe without a gate, the chance that an unknown card fits), how often
the heuristic and the network take the recipe's move and the mean label, then the gain of the network's
departures in each direction (a label is the paired roll-out difference: the recipe's move minus the
heuristic's other move, so its mean over departures is an unbiased estimate of what they add).

    .venv/bin/python research/advantage_choices.py --data runs/advantage_4p/data.npz --model runs/advantage_4p/model.npz
    .venv/bin/python research/advantage_choices.py --data runs/advantage_4p_reserve/data.npz --model runs/advantage_4p_reserve/model.npz
"""

from __future__ import annotations

import argparse

import numpy as np

from agents.advantage import load_model
from agents.base import mlp_forward, mlp_layers, relu
from training.advantage import choice_gain

BINS = (0.2, 0.3, 0.4, 0.5, 0.55, 0.6, 0.7, 0.8, 0.99)
"""Bins of a gate column (the call's success chance)."""
FIT_BINS = (0.0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 1.01)
"""Bins of the chance that an unknown card fits (recipes without a gate)."""


def main(argv=None) -> dict:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", required=True, help="the labelled decisions (training.advantage --data)")
    parser.add_argument("--model", required=True, help="the model (OUT.npz)")
    parser.add_argument("--validation", type=float, default=0.1, help="the held-out share of the batches")
    args = parser.parse_args(argv)
    arrays, info = load_model(args.model)
    from agents.advantage import model_recipe

    spec, decision, recipe = model_recipe(info, args.model)
    columns = recipe.input_columns()
    if recipe.gate_column is not None:
        binned, bins, title = recipe.gate_column, BINS, "gate (success chance)"
    else:
        binned, bins, title = spec.observation_size + 1, FIT_BINS, "chance an unknown card fits"
    gate = int(np.flatnonzero(columns == binned)[0])  # the binned column's place among the stored inputs
    move = recipe.action if recipe.take_width() == 1 else f"the {decision} move"
    with np.load(args.data, allow_pickle=False) as data:
        inputs, labels, takes, batch = data["inputs"], data["labels"], data["takes"], data["batch"]
    batches = int(batch.max()) + 1
    held = np.flatnonzero(batch >= batches - int(round(args.validation * batches)))
    x = (inputs[held] - arrays["input_mean"]) / arrays["input_scale"]
    x = mlp_forward(x, mlp_layers(arrays, "layer", len(info.net_arch) + 1), relu)
    predicted, y, t, chance = x[:, 0], labels[held], takes[held], inputs[held, gate]
    changed, gain = choice_gain(predicted, y, t)
    wants = np.where(changed, ~t, t)
    print(f"{held.size} held-out decisions of {labels.size}; the network departs at {changed.mean():.1%}, "
          f"gain {gain.mean():+.5f} +- {gain.std(ddof=1) / np.sqrt(gain.size):.5f} win share per decision")
    print(f"| {title} | decisions | {recipe.base} takes {move} | the network takes it | mean label (95% CI) |")
    print("|---|---:|---:|---:|---:|")
    rows = []
    for low, high in zip(bins[:-1], bins[1:]):
        s = (chance >= low) & (chance < high)
        if s.any():
            half = 1.96 * y[s].std(ddof=1) / np.sqrt(s.sum()) if s.sum() > 1 else float("nan")
            print(f"| {low:.2f}-{high:.2f} | {s.sum():,} | {t[s].mean():.0%} | {wants[s].mean():.0%} | "
                  f"{y[s].mean():+.4f} +- {half:.4f} |")
            rows.append((low, high, int(s.sum()), float(t[s].mean()), float(wants[s].mean()), float(y[s].mean())))
    more, fewer = changed & ~t, changed & t
    print(f"takes {move} where {recipe.base} does not: {more.mean():.1%} of decisions, gain "
          f"{np.where(more, y, 0).mean():+.5f} per decision; gives it up: {fewer.mean():.1%}, gain "
          f"{np.where(fewer, -y, 0).mean():+.5f}")
    return {"held_out": int(held.size), "changed": float(changed.mean()), "gain": float(gain.mean()), "bins": rows}


if __name__ == "__main__":
    main()
