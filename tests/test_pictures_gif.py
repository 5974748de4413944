"""The GIF shipped with the docs (docs/pictures/keine_ahnung_3p.gif) is what the commands docs/pictures.md
shows make: run as written (their /tmp paths moved into a test folder), they write nothing into the
repository and draw the shipped file byte for byte."""

from __future__ import annotations

import re
import shlex
import subprocess
import sys
from pathlib import Path

from PIL import Image

ROOT = Path(__file__).resolve().parents[1]
PAGE = ROOT / "docs" / "pictures.md"
SHIPPED = ROOT / "docs" / "pictures" / "keine_ahnung_3p.gif"


def gif_commands() -> list[list[str]]:
    """The page's bash block that makes the shipped GIF, one argument list per command."""
    blocks = re.findall(r"^```bash\n(.*?)^```", PAGE.read_text(), flags=re.S | re.M)
    block = next(text for text in blocks if "--gif" in text and SHIPPED.name in text)
    return [shlex.split(line) for line in block.splitlines() if line.strip()]


def test_the_gif_commands_write_outside_the_repository():
    commands = gif_commands()
    assert [words[:3] for words in commands] == [["python", "-m", "training.evaluate"],
                                                 ["python", "-m", "training.replay"]]
    written = [words[words.index(option) + 1] for words in commands for option in ("--record", "--gif")
               if option in words]
    assert len(written) == 2 and all(path.startswith("/tmp/") for path in written), written
    assert commands[1][3].startswith(commands[0][commands[0].index("--record") + 1] + "/"), \
        "the GIF is drawn from a replay the first command records"


def test_the_gif_commands_reproduce_the_shipped_gif(tmp_path):
    for words in gif_commands():
        # The page's /tmp/ becomes this test's folder; cwd is a folder the commands must not need.
        arguments = [str(tmp_path / word[len("/tmp/"):]) if word.startswith("/tmp/") else word for word in words[1:]]
        quiet = ["--no-progress"] if "training.evaluate" in words else []
        done = subprocess.run([sys.executable, *arguments, *quiet], cwd=tmp_path, capture_output=True, text=True,
                              timeout=900)
        assert done.returncode == 0, f"{' '.join(words)} failed:\n{done.stderr[-3000:]}"
    made = tmp_path / SHIPPED.name
    with Image.open(made) as new, Image.open(SHIPPED) as old:
        assert (new.size, new.n_frames) == (old.size, old.n_frames), \
            f"made {new.size} x {new.n_frames} frames, shipped {old.size} x {old.n_frames}"
    assert made.read_bytes() == SHIPPED.read_bytes(), (
        f"the commands of {PAGE.relative_to(ROOT)} no longer draw {SHIPPED.relative_to(ROOT)} (the agents' play "
        f"or the pictures changed): run them and copy /tmp/{SHIPPED.name} over the shipped file")
