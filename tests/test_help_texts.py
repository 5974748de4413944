"""Every command's ``--help`` fits a screen (under 60 lines) and states what the command does now: no
dates, no round-of-work labels, no issue numbers."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

from training.console import COMMANDS

ROOT = Path(__file__).resolve().parents[1]
MODULES = sorted({module for module, _ in COMMANDS.values()} | {"training.skill_ceiling", "training.console"})
HISTORY = re.compile(r"\bwave\b|issue \d|20\d\d-\d\d-\d\d|\bsince (?:the|wave)|\bbefore (?:wave|issue)", re.I)


@pytest.mark.parametrize("module", MODULES)
def test_help_is_short_and_carries_no_history(module):
    done = subprocess.run([sys.executable, "-m", module, "--help"], cwd=ROOT, capture_output=True, text=True,
                          timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    lines = done.stdout.splitlines()
    assert 5 < len(lines) < 60, f"{module} --help has {len(lines)} lines"
    assert not [line for line in lines if HISTORY.search(line)]
