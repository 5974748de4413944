"""The documentation's Python snippets work as written: every ```python block of every Markdown page
(the root README.md aside: tests/test_readme_snippets.py runs its snippets) runs on its own, in a fresh
interpreter, in an empty folder (the paths of the pages are relative, so a block run from the repository's
root as a page says works there the same and writes nothing into the repository), exits with status 0 and
prints a line that shows it worked.

A block that is not a whole program (a piece of code shown for reading) is fenced ```python-fragment;
none is today. The few blocks that run otherwise than one by one are listed below with the reason."""

from __future__ import annotations

import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

# Folders that hold no documentation of the project (environments, caches, build outputs).
SKIPPED_FOLDERS = {".git", ".venv", ".venv-rllib", "node_modules", "build", "dist", "runs", "replays",
                   "checkpoints", "__pycache__", ".pytest_cache", ".hypothesis", ".ipynb_checkpoints"}

# Fence languages of the pages; a Python block under another name (py, python3, pycon) would escape this
# test, so only these are allowed.
KNOWN_FENCES = {"", "bash", "text", "python", "python-fragment", "json", "toml", "console"}

# Pages whose blocks make one program (a later block loads what an earlier one saved): their blocks run in
# order in one folder, in a test of their own, marked slow where the quick suite checks the same thing
# elsewhere. docs/sb3.md trains for 10,000 decisions (about 35 s with warm caches); tests/test_sb3_models.py
# checks its loop (train, save, evaluate) at a smaller size.
IN_ORDER = {"docs/sb3.md"}

# Blocks the page presents as a module to import rather than a script: the block is saved under this name
# and run as it stands (it must import cleanly and print nothing), then used the way its page uses it.
MODULES = {("docs/training.md", 0): "my_agent.py"}

# Blocks that read what a command of their page writes first: the page's bash line that starts so is run,
# in the same folder, before the block.
COMMAND_FIRST = {("docs/pictures.md", 1): "python -m training.evaluate --env gap_v0"}


def markdown_pages() -> list[Path]:
    """Every Markdown page of the project but the root README, in a stable order."""
    pages = []
    for folder, subfolders, files in os.walk(ROOT):
        subfolders[:] = sorted(d for d in subfolders if d not in SKIPPED_FOLDERS and not d.endswith(".egg-info"))
        pages += [Path(folder) / name for name in sorted(files) if name.endswith(".md")]
    return [page for page in pages if page != ROOT / "README.md"]


def fenced_blocks(path: Path) -> list[tuple[str, str]]:
    """(language, text) of every fenced block of a Markdown page, in order."""
    return re.findall(r"^```([^\n`]*)\n(.*?)^```", path.read_text(), flags=re.S | re.M)


def python_blocks() -> list[tuple[str, int, str]]:
    """(page relative to the root, index among the page's python blocks, text) of every python block."""
    found = []
    for page in markdown_pages():
        blocks = [text for language, text in fenced_blocks(page) if language.strip() == "python"]
        found += [(page.relative_to(ROOT).as_posix(), index, text) for index, text in enumerate(blocks)]
    return found


BLOCKS = python_blocks()


def run_python(code: str, cwd: Path, env: dict[str, str] | None = None) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-c", code], cwd=cwd, capture_output=True, text=True, timeout=900,
                          env=env)


def page_command(page: str, start: str) -> list[str]:
    """The page's bash line that starts with ``start``, as an argument list for this interpreter."""
    lines = [line.strip() for language, text in fenced_blocks(ROOT / page) if language.strip() == "bash"
             for line in text.splitlines() if line.strip().startswith(start)]
    assert lines, f"{page} has no bash line starting with {start!r}"
    words = shlex.split(lines[0].split("  #")[0])
    assert words[:2] == ["python", "-m"], words
    return [sys.executable, *words[1:]]


def test_the_pages_have_snippets_and_every_exception_names_one():
    keys = {(page, index) for page, index, _ in BLOCKS}
    assert len(keys) >= 10, sorted(keys)
    for listed in (MODULES, COMMAND_FIRST):
        assert set(listed) <= keys, f"listed blocks that no page has: {set(listed) - keys}"
    assert IN_ORDER <= {page for page, _ in keys}, IN_ORDER


def test_no_python_block_hides_under_another_fence():
    unknown = {(page.relative_to(ROOT).as_posix(), language) for page in markdown_pages()
               for language, _ in fenced_blocks(page) if language.strip() not in KNOWN_FENCES}
    assert not unknown, f"fences this test does not know (name Python blocks ```python): {sorted(unknown)}"


def test_every_snippet_compiles():
    for page, index, code in BLOCKS:
        compile(code, f"{page} python block {index + 1}", "exec")


ONE_BY_ONE = [block for block in BLOCKS if block[0] not in IN_ORDER]


@pytest.mark.parametrize("page,index,code", ONE_BY_ONE, ids=[f"{page}:{index + 1}" for page, index, _ in ONE_BY_ONE])
def test_snippet_runs_as_written(page, index, code, tmp_path):
    label = f"{page}, python block {index + 1}"

    if (page, index) in COMMAND_FIRST:
        command = page_command(page, COMMAND_FIRST[(page, index)])
        done = subprocess.run(command + ["--no-progress"], cwd=tmp_path, capture_output=True, text=True, timeout=900)
        assert done.returncode == 0, f"{label}: the page's command {command[1:]} failed:\n{done.stderr[-3000:]}"

    if (page, index) in MODULES:
        (tmp_path / MODULES[(page, index)]).write_text(code)
        done = subprocess.run([sys.executable, MODULES[(page, index)]], cwd=tmp_path, capture_output=True,
                              text=True, timeout=900)
        assert done.returncode == 0, f"{label} failed:\n{code}\n{done.stderr[-3000:]}"
        assert not done.stdout.strip(), f"{label}: a module printed on import:\n{done.stdout}"
        return

    done = run_python(code, tmp_path)
    assert done.returncode == 0, f"{label} failed:\n{code}\n{done.stderr[-3000:]}"
    assert done.stdout.strip(), f"{label} printed nothing"


def test_the_agent_module_of_training_md_plays_by_its_spec(tmp_path):
    """docs/training.md's my_agent.py, on PYTHONPATH, is the agent ``py:my_agent:agent`` of every command."""
    page, index = next(key for key, name in MODULES.items() if name == "my_agent.py")
    code = next(text for p, i, text in BLOCKS if (p, i) == (page, index))
    spec = re.search(r"--agents (py:my_agent:\w+)", code).group(1)
    (tmp_path / "my_agent.py").write_text(code)
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(filter(None, [str(tmp_path), os.environ.get("PYTHONPATH")])))
    done = subprocess.run([sys.executable, "-m", "training.evaluate", "--env", "keine_ahnung_v0", "--players", "2",
                           "--agents", f"{spec},random", "--games", "4", "--no-progress"],
                          cwd=tmp_path, capture_output=True, text=True, timeout=900, env=env)
    assert done.returncode == 0, done.stderr[-3000:]
    assert spec in done.stdout, done.stdout


@pytest.mark.slow
def test_the_sb3_page_runs_in_order(tmp_path):
    """docs/sb3.md's blocks in order in one folder (paths relative to it, as from the root): the first trains
    and saves runs/sb3/m.zip, the next evaluates it."""
    blocks = [(index, code) for page, index, code in BLOCKS if page == "docs/sb3.md"]
    assert len(blocks) >= 2
    for index, code in blocks:
        done = run_python(code, tmp_path)
        assert done.returncode == 0, f"docs/sb3.md, python block {index + 1} failed:\n{code}\n{done.stderr[-3000:]}"
        assert done.stdout.strip(), f"docs/sb3.md, python block {index + 1} printed nothing"
