"""A prototype tried for issue 18 and not shipped: ``counter_tuned`` whose call threshold depends on
the standings (one threshold while an opponent seems ahead, another otherwise).

The standing is estimated from what the seat sees: its own trophy and prize points against each
opponent's prize points plus 4 per trophy won (opponents' trophy values are secret; 4 is the mean
value). It runs counter's NumPy reference (``compiled=False``: about 3,000 four-player games a minute
on the shared machine), each group of rows with its own threshold. Seat it by its import path:

    PYTHONPATH=research .venv/bin/python -m training.evaluate --env keine_ahnung_v0 --players 4 \\
        --agents py:counter_standings:StandingsCounter:behind=0.45:ahead=0.6,counter,counter,counter \\
        --games 20000 --seed 50013

Results: docs/skill_ceiling.md ("Tuning counter's parameters").
"""

from __future__ import annotations

import numpy as np

from keine_ahnung_env.games.keine_ahnung.agents import TunedCounterAgent, _rows

MEAN_TROPHY_VALUE = 4.0
"""An opponent's trophy counts this many points in the standing (the mean of the 12 trophies: 48/12)."""


class StandingsCounter(TunedCounterAgent):
    """``counter_tuned`` with call threshold ``behind`` while some opponent's estimated score is above
    the seat's own, ``ahead`` otherwise (both for 1-3 unknown cards; the endgame threshold is
    counter's)."""

    def __init__(self, seed: int | None = None, behind: float = 0.45, ahead: float = 0.6, num_players=None,
                 rules=None):
        super().__init__(seed=seed, num_players=num_players, rules=rules, compiled=False)
        self.thresholds = {True: float(behind), False: float(ahead)}
        self.name = f"standings:behind={behind:g}:ahead={ahead:g}"

    def _main(self, view, mask):
        seats = view.players  # [B, P, 3]: trophies won, prize points, prizes won
        own = view.own_trophy_points + seats[:, 0, 1]
        opponents = MEAN_TROPHY_VALUE * seats[:, 1:, 0] + seats[:, 1:, 1]
        behind = opponents.max(1) > own
        out = np.zeros(mask.shape[0], np.int64)
        default = self.call_threshold
        try:
            for group in (True, False):
                rows = np.flatnonzero(behind == group)
                if rows.size:
                    self.call_threshold = np.full(3, self.thresholds[group])
                    out[rows] = super()._main(_rows(view, rows), mask[rows])
        finally:
            self.call_threshold = default
        return out
