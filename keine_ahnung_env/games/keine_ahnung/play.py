"""Reading the play in Keine Ahnung: the :class:`~keine_ahnung_env.game_spec.PlayHooks` (``GameSpec.play``).

Nobody sees a face-down card, not even its owner, so every seat decides on the public history and its
own trophies. The belief (``belief.py``) already conditions on the whole public history; what an
opponent's move could add is a hint of its own secret trophy values, and the shipped heuristics read
their trophies only through expected values. So the moves say nothing the belief lacks: reading the
play gives the belief's own samples, unweighted (``reveals_nothing``), and a seat with
``memory="none"`` remembers no play to read. A learned opponent that plays by its own trophy values
would reveal something; that is outside the stated model.
"""

from __future__ import annotations

import numpy as np


class KeineAhnungPlay:
    """Keine Ahnung's play hooks (see the module docstring)."""

    reveals_nothing = True

    def round_index(self, core) -> np.ndarray:
        return np.zeros(core.num_envs, np.int64)

    def game_start(self, core) -> np.ndarray:
        return np.ones(core.num_envs, bool)

    def restarts(self, before: np.ndarray, after: np.ndarray) -> bool:
        return False  # no log is kept: the moves reveal nothing

    def public_action(self, action: int) -> int:
        return int(action)

    def rewind(self, states, log):
        raise ValueError("Keine Ahnung's moves reveal nothing the belief lacks: nothing to rewind")


PLAY = KeineAhnungPlay()
