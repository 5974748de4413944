"""The product and its reference pages carry no session history: no round-of-work labels ("wave 8") and
no issue numbers in the installed packages (code, comments, help texts, data files) or in docs/. History
goes to CHANGELOG.md."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
HISTORY = re.compile(r"wave|issue [0-9]", re.I)


def history_lines(root: Path = ROOT, folders=("keine_ahnung_env", "agents", "training", "docs")) -> list[str]:
    found = []
    for folder in folders:
        for path in sorted((root / folder).rglob("*")):
            if not path.is_file() or "__pycache__" in path.parts or path.suffix in (".zip", ".npz", ".gif", ".png"):
                continue
            try:
                text = path.read_text()
            except UnicodeDecodeError:
                continue
            found += [f"{path.relative_to(root)}:{n}: {line.strip()[:100]}"
                      for n, line in enumerate(text.splitlines(), 1) if HISTORY.search(line)]
    return found


def test_no_history_in_the_product_or_the_docs():
    found = history_lines()
    assert not found, "\n".join(found)


def test_the_check_finds_a_label(tmp_path):
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "page.md").write_text("fine\nmeasured in Wave 3\nsee issue 17\n")
    assert [line.split(":")[1] for line in history_lines(tmp_path, ("docs",))] == ["2", "3"]
