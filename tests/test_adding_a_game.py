"""``docs/adding_a_game.md`` and the game folders agree: the tiny test game (``tests/tiny_game/``) has
every file the checklist names for every game, and no game folder (the tiny game's or a built-in
game's) holds a file the page does not name (the same role has the same name in every game)."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PAGE = ROOT / "docs" / "adding_a_game.md"
TINY = ROOT / "tests" / "tiny_game"
GAME_FOLDERS = sorted(p for p in (ROOT / "keine_ahnung_env" / "games").iterdir() if (p / "__init__.py").exists())


def section(text: str, heading: str) -> str:
    """The text under ``heading`` up to the next heading of the same or a higher level."""
    level = len(heading) - len(heading.lstrip("#"))
    start = text.index(heading + "\n") + len(heading) + 1
    stop = re.compile(r"^#{1,%d} " % level, re.M).search(text, start)
    return text[start : stop.start() if stop else len(text)]


def listed_files(text: str) -> list[str]:
    """The file each list item of ``text`` names first (``- [ ] `name.py`: ...`` or ``- `name.py`: ...``)."""
    return re.findall(r"^- (?:\[ \] )?`([\w.]+\.(?:py|md|json))`", text, re.M)


def folder_files(folder: Path) -> set[str]:
    return {p.name for p in folder.iterdir() if p.is_file() and not p.name.startswith(".")}


@pytest.fixture(scope="module")
def checklist() -> tuple[list[str], list[str]]:
    text = PAGE.read_text()
    files = section(text, "## The files of a game folder")
    return listed_files(section(files, "### Every game")), listed_files(section(files, "### Where the game has that role"))


def test_the_checklist_is_read_from_the_page(checklist):
    required, optional = checklist
    assert {"__init__.py", "game.py", "config.py", "core.py", "spec.py", "agents.py", "RULES.md"} <= set(required)
    assert {"kernels.py", "belief.py"} <= set(optional)
    assert not set(required) & set(optional)
    assert listed_files("- [ ] `a.py`: x\n- `b.md`: y\n  - `not_an_item.py`\ntext `c.py`\n") == ["a.py", "b.md"]


def test_the_tiny_game_has_every_file_the_checklist_names(checklist):
    required, _ = checklist
    missing = sorted(set(required) - folder_files(TINY))
    assert not missing, f"docs/adding_a_game.md names {missing}, which tests/tiny_game/ lacks"


@pytest.mark.parametrize("folder", [TINY] + GAME_FOLDERS, ids=lambda p: p.name)
def test_every_file_of_a_game_folder_has_a_role_on_the_page(checklist, folder):
    required, optional = checklist
    unnamed = sorted(folder_files(folder) - set(required) - set(optional))
    assert not unnamed, f"{folder.relative_to(ROOT)} holds {unnamed}, which docs/adding_a_game.md names no role for"


@pytest.mark.parametrize("folder", GAME_FOLDERS, ids=lambda p: p.name)
def test_every_built_in_game_has_the_files_of_every_game(checklist, folder):
    required, _ = checklist
    assert not sorted(set(required) - folder_files(folder))


def test_the_declaration_is_the_one_place_of_the_name_and_the_player_range():
    """config.py, spec.py and the entry-point module read the declaration; the registry holds it."""
    import tiny_game
    from keine_ahnung_env import registry
    from keine_ahnung_env.games.dnp import config as dnp_config
    from keine_ahnung_env.games.dnp.game import GAME as DNP
    from keine_ahnung_env.games.gap import config as gap_config
    from keine_ahnung_env.games.gap.game import GAME as GAP
    from keine_ahnung_env.games.keine_ahnung import config as ka_config
    from keine_ahnung_env.games.keine_ahnung import spec as ka_spec
    from keine_ahnung_env.games.keine_ahnung.game import GAME as KA
    from keine_ahnung_env import dnp_v0, gap_v0, keine_ahnung_v0

    for game, config, module in ((KA, ka_config, keine_ahnung_v0), (GAP, gap_config, gap_v0), (DNP, dnp_config, dnp_v0)):
        assert registry.game(game.name) is game
        assert (config.MIN_PLAYERS, config.MAX_PLAYERS) == (game.min_players, game.max_players)
        assert config.Rules().num_players == game.default_players
        assert module.ENV_NAME == game.name and registry.game(game.name).module == module.__name__
        spec = registry.game_spec(game.name)
        assert (spec.name, spec.title, spec.version, spec.num_players) == (game.name, game.title, game.version,
                                                                           game.default_players)
        assert game.rules_class is config.Rules
    assert ka_spec.NAME == KA.name and registry.DEFAULT_GAME == KA.name
    assert tiny_game.ENTRY is tiny_game.GAME and tiny_game.NAME == tiny_game.GAME.name
    for folder in GAME_FOLDERS:  # no second copy of the name in the game's code (a string equal to it)
        declared = re.search(r'name="(\w+_v\d+)"', (folder / "game.py").read_text()).group(1)
        for path in sorted(folder.glob("*.py")):
            copies = [node.lineno for node in ast.walk(ast.parse(path.read_text()))
                      if isinstance(node, ast.Constant) and node.value == declared]
            assert len(copies) == (1 if path.name == "game.py" else 0), (path.name, copies)
