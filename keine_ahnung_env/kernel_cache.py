"""Keeping Numba's disk cache true when a kernel module calls kernels of another module.

Numba's ``cache=True`` keys a function's machine code on the source of the function's own file. A
kernel that calls (and so compiles in) a kernel of another module keeps the old machine code after
that other module changes: ``agent_kernels.play_range`` would go on stepping games with the rules of
an older ``kernels.py`` while ``core.step`` uses the new ones (it happened while the step kernel was
being rewritten). :func:`drop_stale_cache` closes the gap: each kernel module names the files it
depends on, and at import the cached machine code of the module is deleted when their contents
differ from what they were when it was cached (a digest kept beside the cache files). The next call
compiles afresh and caches again.

Compiling takes a while (10 to 20 s for what a game's first env step needs of its rules kernels on
an idle two-core machine), so a silent first call looks like a hang: :func:`announce_compiles` (on
from this module's import, which every kernel module does) tells stderr once per kernel module and
process when one of its cached kernels is being compiled, which Numba does only on a cache miss (its
``numba:compile`` event), and names each of the module's kernels when it is compiled. The environment
variable ``KEINE_AHNUNG_ENV_COMPILE_MESSAGE=0`` silences it (the test suite does, so that tests reading
stderr see the same text with a cold cache as with a warm one).
"""

from __future__ import annotations

import glob
import hashlib
import os
import sys
import time
from typing import Sequence

FIRST_USE = {
    "keine_ahnung_env.games.keine_ahnung.kernels": ("the Keine Ahnung rules kernels", "about 20 s"),
    "keine_ahnung_env.games.keine_ahnung.agent_kernels": ("the Keine Ahnung agents' kernels (counter, greedy)",
                                                          "about 15 s"),
    "keine_ahnung_env.games.gap.kernels": ("the gap game's rules kernels", "about 10 s"),
    "keine_ahnung_env.games.dnp.kernels": ("dnp's rules kernels", "about 15 s"),
    "keine_ahnung_env.games.gap.agent_kernels": ("the gap game's planner kernels", "about 5 s"),
    "keine_ahnung_env.games.dnp.agent_kernels": ("dnp's tactician kernels", "about 10 s"),
}
"""Kernel module -> (what it is, how long compiling what a first use needs of it takes on an idle
two-core machine) for the first-use message; other modules are named by :func:`_describe`. The times
are the compile section of ``python -m keine_ahnung_env.benchmark`` (CPU seconds of a first env step
and of a heuristic's first move with an empty cache, the rules kernels' share of them)."""

GAMES = {"keine_ahnung": "Keine Ahnung", "gap": "gap game", "dnp": "dnp"}


def _describe(module: str) -> tuple[str, str]:
    """(what, how long) of the first-use message for the kernels of ``module``."""
    if module in FIRST_USE:
        return FIRST_USE[module]
    parts = module.split(".")
    if len(parts) == 4 and parts[:2] == ["keine_ahnung_env", "games"]:
        return f"the {GAMES.get(parts[2], parts[2])} kernels of {parts[3]}.py", "up to a minute"
    return f"the kernels of {module}", "up to a minute"


QUIET = "KEINE_AHNUNG_ENV_COMPILE_MESSAGE"
"""Set to ``0``: no first-use message."""

PACKAGES = ("keine_ahnung_env", "agents", "training")
"""Modules whose kernels are announced (a kernel of another package compiles silently)."""


def _digest(paths: Sequence[str]) -> str:
    h = hashlib.sha256()
    for path in paths:
        with open(path, "rb") as f:
            h.update(f.read())
    return h.hexdigest()


def drop_stale_cache(module_file: str, dispatcher, depends_on: Sequence[str]) -> bool:
    """Deletes the cached machine code of the kernels of ``module_file`` (found through the cache of
    ``dispatcher``, one of its ``@njit(cache=True)`` functions) when the files ``depends_on`` changed
    since it was cached. Returns whether it deleted anything. Never raises: without a cache (or
    without write access to it) nothing is done and Numba compiles as usual."""
    try:
        cache_dir = dispatcher._cache._cache_path
        stem = os.path.splitext(os.path.basename(module_file))[0]
        digest = _digest(depends_on)
        stamp = os.path.join(cache_dir, f"{stem}.depends")
        try:
            with open(stamp) as f:
                if f.read().strip() == digest:
                    return False
        except FileNotFoundError:
            pass
        stale = glob.glob(os.path.join(cache_dir, f"{stem}.*.nbi")) + glob.glob(os.path.join(cache_dir, f"{stem}.*.nbc"))
        for path in stale:
            try:
                os.remove(path)
            except FileNotFoundError:  # another process removed it first
                pass
        os.makedirs(cache_dir, exist_ok=True)
        with open(stamp, "w") as f:
            f.write(digest + "\n")
        return bool(stale)
    except Exception:  # noqa: BLE001 - a cache we cannot read or write only costs a compile
        return False


class _CompileAnnouncer:
    """A ``numba:compile`` listener: at the start of an outermost compile of a cached kernel of
    :data:`PACKAGES`, says once per kernel module on stderr what is compiled and how long it takes;
    at the end of each outermost compile of an announced module's kernel, which kernel is done and how
    long it took (a first use compiles a few: a game's first env step its deal, observation and step
    kernels), so that no later kernel compiles silently. Numba raises the event only when it compiles
    (a cache miss), not when it loads machine code from its disk cache; kernels compiled inside another
    one count as part of it."""

    def __init__(self, stream=None):
        self.stream = stream
        self.depth = 0
        self.told: set[str] = set()
        self.started: float | None = None
        self.kernel = ""

    def on_start(self, event) -> None:
        self.depth += 1
        if self.depth != 1:
            return
        try:
            dispatcher = event.data["dispatcher"]
            module = dispatcher.py_func.__module__ or ""
            cached = type(dispatcher._cache).__name__ != "NullCache"
        except Exception:  # noqa: BLE001 - an event shaped otherwise is not ours to announce
            return
        if not cached or not module.startswith(PACKAGES):
            return
        if os.environ.get(QUIET, "1") == "0":
            return
        if module not in self.told:
            self.told.add(module)
            what, how_long = _describe(module)
            self._say(f"keine_ahnung_env: compiling {what} for first use ({how_long} on 2 cores; cached on disk "
                      "afterwards) ...")
        self.started = time.perf_counter()
        self.kernel = getattr(dispatcher.py_func, "__name__", "")

    def on_end(self, event) -> None:
        self.depth -= 1
        if self.depth == 0 and self.started is not None:
            self._say(f"keine_ahnung_env: compiled {self.kernel} in {time.perf_counter() - self.started:.0f} s.")
            self.started = None

    def _say(self, text: str) -> None:
        try:
            print(text, file=self.stream or sys.stderr, flush=True)
        except Exception:  # noqa: BLE001 - a closed stderr must not break a compile
            pass


_announcer: _CompileAnnouncer | None = None


def announce_compiles() -> None:
    """Registers the first-use message (:class:`_CompileAnnouncer`) with Numba once per process."""
    global _announcer
    if _announcer is not None:
        return
    try:
        from numba.core import event

        listener = type("CompileAnnouncer", (_CompileAnnouncer, event.Listener), {})()
        event.register("numba:compile", listener)
        _announcer = listener
    except Exception:  # noqa: BLE001 - without the event API compiles are only silent
        _announcer = _CompileAnnouncer()


announce_compiles()
