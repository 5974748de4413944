"""Keeping Numba's disk cache true when a kernel module calls kernels of another module.

Numba's ``cache=True`` keys a function's machine code on the source of the function's own file. A
kernel that calls (and so compiles in) a kernel of another module keeps the old machine code after
that other module changes: ``counter_kernel.play_range`` would go on stepping games with the rules of
an older ``kernels.py`` while ``core.step`` uses the new ones (it happened while the step kernel was
being rewritten). :func:`drop_stale_cache` closes the gap: each kernel module names the files it
depends on, and at import the cached machine code of the module is deleted when their contents
differ from what they were when it was cached (a digest kept beside the cache files). The next call
compiles afresh and caches again.
"""

from __future__ import annotations

import glob
import hashlib
import os
from typing import Sequence


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
