"""Wall-clock A/B of two source trees on a shared machine: the workloads of ``instructions.py`` run
alternately in each tree (a fresh interpreter per run), best of ``--repeats`` runs each, so that load
from other jobs hits both sides alike.

    git archive OLD_COMMIT | tar -x -C /tmp/before && mkdir -p /tmp/before/research && cp research/instructions.py /tmp/before/research/
    .venv/bin/python research/ab_trees.py --before /tmp/before --after .          # optionally: workload names
"""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys

WORKLOADS = [
    ("engine", "--batch 4096 --steps 60"),
    ("sampler", "--batch 4096 --steps 60"),
    ("observe", "--batch 4096 --steps 30"),
    ("batch1", "--steps 20000"),
    ("reference", "--steps 20000"),
    ("engine", "--game gap_v0 --batch 4096 --steps 60"),
    ("engine", "--game dnp_v0 --batch 4096 --steps 30"),
    ("batch1", "--game gap_v0 --steps 20000"),
    ("batch1", "--game dnp_v0 --steps 20000"),
]


def rate(tree: str, workload: str, args: str) -> int:
    cmd = [sys.executable, "research/instructions.py", workload, *args.split(), "--warmup", "20"]
    out = subprocess.run(cmd, cwd=tree, env=dict(os.environ, PYTHONPATH=os.path.abspath(tree)),
                         capture_output=True, text=True).stdout
    m = re.search(r"([\d,]+) decisions/s", out)
    return int(m.group(1).replace(",", "")) if m else 0


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--before", required=True)
    parser.add_argument("--after", required=True)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("only", nargs="*", help="workload names to run (default: all)")
    args = parser.parse_args()
    for workload, extra in WORKLOADS:
        if args.only and workload not in args.only:
            continue
        best = {"before": 0, "after": 0}
        for _ in range(args.repeats):
            for side in ("before", "after"):
                best[side] = max(best[side], rate(getattr(args, side), workload, extra))
        ratio = best["after"] / best["before"] if best["before"] else float("nan")
        print(f"{workload:9s} {extra:40s} before {best['before']:>12,}  after {best['after']:>12,}  x{ratio:.2f}",
              flush=True)


if __name__ == "__main__":
    main()
