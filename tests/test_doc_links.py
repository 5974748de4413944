"""Every relative link of the README and the Markdown pages points to a file that exists and, for a
``#anchor`` into a Markdown page, to a heading of that page (GitHub's heading slugs)."""

from __future__ import annotations

import os
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PAGES = sorted({ROOT / "README.md", ROOT / "CHANGELOG.md", *ROOT.glob("docs/*.md"), *ROOT.glob("research/*.md"),
                *ROOT.glob("benchmarks/*.md"), *ROOT.glob("notebooks/*.md"),
                *ROOT.glob("keine_ahnung_env/games/*/RULES.md")})


def slug(heading: str) -> str:
    """GitHub's anchor of a heading: lower case, punctuation other than '-' and '_' dropped, spaces to '-'."""
    return re.sub(r"[^\w\- ]", "", heading.strip().lower()).replace(" ", "-")


def anchors(path: Path) -> set[str]:
    seen: dict[str, int] = {}
    out = set()
    fenced = False
    for line in path.read_text().splitlines():
        if line.startswith("```"):
            fenced = not fenced
            continue
        match = None if fenced else re.match(r"^(#{1,6})\s+(.*?)\s*#*$", line)
        if match:
            s = slug(match.group(2))
            n = seen.get(s, 0)
            out.add(s if n == 0 else f"{s}-{n}")
            seen[s] = n + 1
    return out


def broken_links(page: Path) -> list[str]:
    text = re.sub(r"```.*?```", "", page.read_text(), flags=re.S)
    bad = []
    for match in re.finditer(r"\[[^\]]*\]\(([^)\s]+)\)", text):
        target = match.group(1)
        if re.match(r"^[a-z]+://", target) or target.startswith("mailto:"):
            continue
        file, _, anchor = target.partition("#")
        dest = Path(os.path.normpath(page.parent / file)) if file else page
        if not dest.exists():
            bad.append(f"missing file {target}")
        elif anchor and dest.suffix == ".md" and anchor not in anchors(dest):
            bad.append(f"missing anchor {target}")
    return bad


def test_every_relative_link_resolves():
    assert len(PAGES) > 15
    bad = {str(page.relative_to(ROOT)): found for page in PAGES if (found := broken_links(page))}
    assert not bad, bad


def test_the_checker_sees_a_broken_link(tmp_path):
    page = tmp_path / "page.md"
    page.write_text("# A heading\n\n[ok](#a-heading) [gone](#no-such) [file](missing.md)\n")
    assert broken_links(page) == ["missing anchor #no-such", "missing file missing.md"]
