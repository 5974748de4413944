"""The oracle critic's inputs during training (``--critic oracle``): what the game hides, for the value
network only.

A game offers its hidden state as ``GameSpec.privileged(core, seats)`` (Keine Ahnung:
``keine_ahnung_env/games/keine_ahnung/privileged.py``, which documents the columns). The actor
(:class:`agents.policies.OracleCriticPolicy`) never reads these columns, and a trained agent plays
without them (``agents/ppo.py`` passes zeros).
"""

from __future__ import annotations

import numpy as np


def learner_privileged(venv) -> np.ndarray:
    """The hidden state of every game of an ``sb3_vec_env`` seen from its learner seats (current state)."""
    games = venv.games
    return games.spec.privileged_features(games.core, games.learner_seat)
