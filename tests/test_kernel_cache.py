"""``kernel_cache.drop_stale_cache``: a cached kernel that compiles in another module's kernel follows
that module's changes (Numba's own cache would keep the old machine code: it keys on the function's
own file only). Two throw-away modules in a temporary package, each run in a fresh interpreter."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap

RULES = """
from numba import njit


@njit(cache=True)
def score(x):
    return x + {bonus}
"""

PLAYER = """
from numba import njit

from keine_ahnung_env.kernel_cache import drop_stale_cache

from . import rules as _rules
from .rules import score


@njit(cache=True)
def play(x):
    return score(x) * 10


drop_stale_cache(__file__, play, [_rules.__file__])
"""


def _run(root: str) -> int:
    code = "from pkg.player import play; print(play(1))"
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([root, os.getcwd()]))
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True)
    return int(out.stdout.strip())


def _write(root: str, bonus: int) -> None:
    pkg = os.path.join(root, "pkg")
    os.makedirs(pkg, exist_ok=True)
    open(os.path.join(pkg, "__init__.py"), "w").close()
    with open(os.path.join(pkg, "rules.py"), "w") as f:
        f.write(textwrap.dedent(RULES.format(bonus=bonus)))
    with open(os.path.join(pkg, "player.py"), "w") as f:
        f.write(textwrap.dedent(PLAYER))


def test_a_changed_dependency_reaches_the_cached_caller(tmp_path):
    root = str(tmp_path)
    _write(root, bonus=1)
    assert _run(root) == 20  # compiled and cached: (1 + 1) * 10
    assert _run(root) == 20  # from the cache
    _write(root, bonus=2)  # only rules.py changes (player.py is written the same)
    # The stale machine code was dropped: (1 + 2) * 10. Without the guard line Numba 0.68 printed 20
    # here (checked when this test was written): the cached ``play`` kept the old ``score``.
    assert _run(root) == 30
