"""The README is a front door that works: each of its Python snippets runs on its own, as written, in a
fresh interpreter, and prints something; it stays short and carries no history."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
README = ROOT / "README.md"


def python_snippets(path: Path) -> list[str]:
    """The ```python blocks of a Markdown file, in order."""
    return re.findall(r"^```python\n(.*?)^```", path.read_text(), flags=re.S | re.M)


def test_readme_has_three_snippets_and_two_set_up_commands():
    text = README.read_text()
    assert len(python_snippets(README)) == 3
    bash = re.findall(r"^```bash\n(.*?)^```", text, flags=re.S | re.M)
    set_up = [line for block in bash for line in block.splitlines() if line.startswith("python3 -m venv .venv")]
    assert len(set_up) == 2, set_up
    assert any("training.train" in line for line in set_up) and any("pytest" in line for line in set_up)


def test_readme_is_a_front_door():
    lines = README.read_text().splitlines()
    assert len(lines) <= 120, f"README.md has {len(lines)} lines; at most 120"
    history = [line for line in lines if re.search(r"\bwave\b|issue \d|20\d\d-\d\d-\d\d|decisions/s", line, re.I)]
    assert not history, history


@pytest.mark.parametrize("index", range(3))
def test_readme_snippet_runs_on_its_own_and_prints(index, tmp_path):
    snippets = python_snippets(README)
    done = subprocess.run([sys.executable, "-c", snippets[index]], cwd=tmp_path, capture_output=True, text=True,
                          timeout=900)
    assert done.returncode == 0, f"snippet {index + 1} failed:\n{snippets[index]}\n{done.stderr[-3000:]}"
    assert done.stdout.strip(), f"snippet {index + 1} printed nothing"
