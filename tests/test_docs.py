"""The docs site (docs/, mkdocs.yml) says what the code does: its reference pages are made from the code and fail
here when stale, every option `--help` prints and every key is in it, and the README stays a short way in."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

from site_builder.commands.reference import markdown
from site_builder.config.schema import FRONT_MATTER_KEYS, HIGHLIGHT_KEYS, LANGUAGE_KEYS, SITE_KEYS, readme_tables

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"


def _between(path: Path, marker: str) -> str:
    text = path.read_text(encoding="utf-8")
    start, end = f"<!-- {marker}: start -->\n", f"<!-- {marker}: end -->"
    assert start in text and end in text, f"{path.name} lost its {marker} markers"
    return text[text.index(start) + len(start) : text.index(end)].strip()


def _fix(what: str) -> str:
    return f"{what} is stale: run `python -m {what}` and paste its output between the markers"


def test_the_configuration_reference_is_the_declaration() -> None:
    shown = _between(DOCS / "reference" / "configuration.md", "keys")
    assert shown == readme_tables().strip(), _fix("site_builder.config.schema")
    printed = subprocess.run(
        [sys.executable, "-m", "site_builder.config.schema"], capture_output=True, text=True, check=True
    ).stdout
    assert printed.strip() == shown


def test_the_command_reference_is_the_parsers() -> None:
    shown = _between(DOCS / "reference" / "commands.md", "commands")
    assert shown == markdown().strip(), _fix("site_builder.commands.reference")


def _help_options() -> set[str]:
    """Every option string that `site-builder COMMAND --help` prints, for every command."""
    top = subprocess.run([sys.executable, "-m", "site_builder", "--help"], capture_output=True, text=True, check=True)
    commands = re.findall(r"^    ([a-z]+)  ", top.stdout, re.M)  # under COMMAND: `    build     build the site...`
    assert "build" in commands and "init" in commands, top.stdout
    found = set(re.findall(r"^\s+(--?[a-zA-Z][\w-]*)", top.stdout.split("options:", 1)[-1], re.M))
    for name in commands:
        proc = subprocess.run(
            [sys.executable, "-m", "site_builder", name, "--help"], capture_output=True, text=True, check=True
        )
        options = proc.stdout.split("options:", 1)[-1]
        found |= {opt for opt in re.findall(r"^\s+(-[^\s,]+)(?:[ ,]|$)", options, re.M)}
        found |= {opt for opt in re.findall(r",\s+(--[\w-]+)", options)}
    return found - {"-h", "--help"}


def test_every_option_and_key_is_in_the_docs() -> None:
    docs = "\n".join(p.read_text(encoding="utf-8") for p in DOCS.rglob("*.md"))
    options = _help_options()
    assert {"--strict", "--keep-going", "--base-url", "--update", "--into", "--lang"} <= options
    assert sorted(o for o in options if not re.search(rf"(?<![\w-]){re.escape(o)}(?![\w-])", docs)) == []
    keys = [k.name for group in (SITE_KEYS, LANGUAGE_KEYS, HIGHLIGHT_KEYS, FRONT_MATTER_KEYS) for k in group]
    assert sorted(k for k in keys if f"`{k}`" not in docs) == []


def test_the_readme_is_short_and_keeps_the_set_up() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert len(readme.splitlines()) <= 300
    assert "make build" in readme and "make test" in readme
    for link in re.findall(r"\]\((docs/[^)#]+)", readme):
        assert (ROOT / link).is_file(), f"README links to {link}, which is not there"


@pytest.mark.parametrize("page", ["getting-started.md", "writing.md", "executable.md"])
def test_a_newcomer_finds_the_three_first_questions(page: str) -> None:
    """A gallery, a checked post and a site under a path, each on the page the home page points to for it."""
    text = (DOCS / page).read_text(encoding="utf-8")
    wanted = {"getting-started.md": "## A site under a path", "writing.md": "galler", "executable.md": "execute: true"}
    assert wanted[page] in text
    assert f"]({page})" in (DOCS / "index.md").read_text(encoding="utf-8")
