"""No silent wait: a kernel compiled on first use (a Numba disk-cache miss) says so once on stderr,
and says nothing once the cache is warm."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

# The random stream's kernels: a small module that compiles in about a second. Three calls of two
# kernels of the module: the announcement comes once for the module, then one line per kernel compiled
# (not per call).
SCRIPT = """
import keine_ahnung_env.kernel_cache
from keine_ahnung_env import rng
states = rng.game_rng_states(1, [0, 1])
print(rng.next64(states, 0), rng.bounded(states, 1, 10), rng.next64(states, 1))
"""


def _run(cache_dir: Path) -> subprocess.CompletedProcess:
    env = dict(os.environ, NUMBA_CACHE_DIR=str(cache_dir), KEINE_AHNUNG_ENV_COMPILE_MESSAGE="1")
    return subprocess.run([sys.executable, "-c", SCRIPT], cwd=ROOT, env=env, capture_output=True, text=True,
                          timeout=300)


def test_a_cache_miss_is_announced_once_and_a_warm_cache_is_silent(tmp_path):
    cold = _run(tmp_path / "numba")
    assert cold.returncode == 0, cold.stderr
    announced = [line for line in cold.stderr.splitlines() if "compiling" in line]
    assert announced == ["keine_ahnung_env: compiling the kernels of keine_ahnung_env.rng for first use "
                         "(up to a minute on 2 cores; cached on disk afterwards) ..."]
    # Then each kernel as it is done (a first use compiles a few: none of them silently), once.
    done = [re.sub(r" in \d+ s\.$", " in N s.", line) for line in cold.stderr.splitlines() if "compiled" in line]
    assert done == ["keine_ahnung_env: compiled next64 in N s.", "keine_ahnung_env: compiled bounded in N s."]
    warm = _run(tmp_path / "numba")
    assert warm.returncode == 0 and warm.stdout == cold.stdout
    assert "compil" not in warm.stderr, warm.stderr


def test_the_game_kernels_name_what_they_compile():
    from keine_ahnung_env import kernel_cache

    rules = [f"keine_ahnung_env.games.{game}.kernels" for game in ("keine_ahnung", "gap", "dnp")]
    assert all(module in kernel_cache.FIRST_USE for module in rules)
    # The game modules' estimates are the compile section's figures (benchmark.py): seconds, within
    # the 30 s a first use may take.
    for module, (_, how_long) in kernel_cache.FIRST_USE.items():
        seconds = re.fullmatch(r"about (\d+) s", how_long)
        assert seconds and 0 < int(seconds.group(1)) <= 30, (module, how_long)
    assert kernel_cache._describe("keine_ahnung_env.games.gap.odds") == ("the gap game kernels of odds.py",
                                                                         "up to a minute")
    for module in kernel_cache.FIRST_USE:  # each names a module of cached kernels
        __import__(module)
        kernels = vars(sys.modules[module]).values()
        assert any(type(getattr(f, "_cache", None)).__name__ == "FunctionCache" for f in kernels), module


def test_the_message_can_be_silenced(tmp_path):
    env = dict(os.environ, NUMBA_CACHE_DIR=str(tmp_path / "numba"), KEINE_AHNUNG_ENV_COMPILE_MESSAGE="0")
    done = subprocess.run([sys.executable, "-c", SCRIPT], cwd=ROOT, env=env, capture_output=True, text=True,
                          timeout=300)
    assert done.returncode == 0 and "compil" not in done.stderr, done.stderr
