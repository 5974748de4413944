"""Results of the gap game: the highest total after the last round wins; ties share the win.

Reward modes (``reward=`` option), paid by the step that ends the game:

| mode    | reward of seat p                                                         | sum  |
|---------|--------------------------------------------------------------------------|------|
| "win"   | winners share +1, the others share -1 (0 for all when everybody ties)    | 0    |
| "score" | p's final total (plus and minus points of every round)                   | any  |
| "rank"  | (players p beats - players beating p) / (players - 1), in [-1, 1]        | 0    |

With ``round_reward_scale`` > 0 every round's end also pays each seat that factor times its score
change in the round (shaping); a truncated game's last step pays 0.
"""

from __future__ import annotations

import numpy as np


def standings(core) -> np.ndarray:
    """[B, P] totals: higher is better, the top ones share the win (no tie-break: the rulebook has none)."""
    return np.asarray(core.score, np.int64)
