"""Executes a notebook in place (outputs saved into it) with the research budget set.

    .venv/bin/python notebooks/run.py notebooks/02_nothing_fits_risk.ipynb            # full budget
    .venv/bin/python notebooks/run.py --budget small notebooks/01_quickstart.ipynb
    .venv/bin/python notebooks/run.py --out /tmp/executed.ipynb notebooks/03_agents.ipynb

The kernel runs with the working directory ``notebooks/`` and ``KA_NOTEBOOK_BUDGET`` set (default
``full``); ``--out`` writes the executed copy elsewhere instead of in place.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path


def execute(path: str | Path, budget: str = "full", out: str | Path | None = None, timeout: int = 1800,
            kernel_name: str = "python3"):
    """Runs the notebook at ``path`` top to bottom and writes it to ``out`` (default: in place).
    Returns the executed notebook; raises nbclient's CellExecutionError on the first failing cell."""
    import nbformat
    from nbclient import NotebookClient

    path = Path(path)
    nb = nbformat.read(path, as_version=4)
    previous = os.environ.get("KA_NOTEBOOK_BUDGET")
    os.environ["KA_NOTEBOOK_BUDGET"] = budget  # the kernel inherits the environment
    try:
        client = NotebookClient(nb, timeout=timeout, kernel_name=kernel_name,
                                resources={"metadata": {"path": str(path.parent.resolve())}})
        client.execute()
    finally:
        if previous is None:
            os.environ.pop("KA_NOTEBOOK_BUDGET", None)
        else:
            os.environ["KA_NOTEBOOK_BUDGET"] = previous
    nbformat.write(nb, Path(out) if out else path)
    return nb


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("notebooks", nargs="+", help="notebook files to execute")
    parser.add_argument("--budget", default="full", choices=("small", "full"), help="KA_NOTEBOOK_BUDGET")
    parser.add_argument("--out", default=None, help="write the executed copy here (one notebook only)")
    parser.add_argument("--timeout", type=int, default=1800, help="seconds per cell")
    args = parser.parse_args(argv)
    if args.out and len(args.notebooks) != 1:
        parser.error("--out takes one notebook")
    for name in args.notebooks:
        start = time.time()
        execute(name, args.budget, args.out, args.timeout)
        print(f"{name}: executed ({args.budget}) in {time.time() - start:.0f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
