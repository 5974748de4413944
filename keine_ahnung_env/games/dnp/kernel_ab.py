"""A/B of two versions of the dnp step kernel in one process, on one thread.

    python -m keine_ahnung_env.games.dnp.kernel_ab --before /tmp/old/kernels.py
    python -m keine_ahnung_env.games.dnp.kernel_ab --before OLD --after NEW --batch 512 --rounds 16

``--before`` / ``--after``: another tree's ``games/dnp/kernels.py`` (``--after`` defaults to
this tree's). The recording, the alternating replays and what is printed are the shared A/B's
(``keine_ahnung_env.kernel_ab``): thread CPU time per decision of ``step_range`` + ``deal_range`` over
one recorded trajectory of random play (4 players), and whether every replay reproduced the recorded
final state exactly (the same rules and the same random draws).
"""

from __future__ import annotations

from ... import kernel_ab as _ab


def _make_core(batch: int, seed: int):
    from .config import Rules
    from .core import DnpCore
    return DnpCore(batch, Rules.make(4), seed=seed)


# 500 warm-up steps before the recording: a random game is 100-750 moves plus its selections.
run, main = _ab.game_entry_points(__package__, _make_core, __doc__.split("\n")[0])


if __name__ == "__main__":
    main()
