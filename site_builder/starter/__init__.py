"""The starter site `site-builder init` writes: the files in this folder (package data), filled in."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timezone
from importlib import resources
from pathlib import Path

from site_builder import __version__
from site_builder.config import Language
from site_builder.errors import SiteError
from site_builder.starter.requirement import direct_url, requirement_for


@dataclass
class Starter:
    """One file of a new site: where it goes and which starter file it is made from."""

    target: str
    source: str
    only_with: str | None = None  # a language the site must have


STARTERS = (
    Starter("site.yml", "site.yml"),
    Starter(".gitignore", "gitignore"),
    Starter("content/posts/hello-world.md", "posts/hello-world.md"),
    Starter("content/posts/hello-world.zh.md", "posts/hello-world.zh.md", only_with="zh"),
    Starter("content/posts/checked-code.md", "posts/checked-code.md"),
    Starter(".github/workflows/site.yml", "github/site.yml"),
    Starter("requirements.txt", "requirements.txt"),
)


def parse_languages(text: str) -> list[str]:
    langs = [code.strip() for code in text.split(",") if code.strip()]
    if not langs:
        raise SiteError("--lang needs at least one language code, e.g. en or en,zh")
    for code in langs:
        if not code.replace("-", "").isalnum():
            raise SiteError(f"--lang: {code!r} is not a language code (e.g. en, zh, pt-BR)")
    return langs


def init_site(target: Path, langs: list[str], title: str | None = None) -> list[Path]:
    """Write a new site into `target` (missing or empty); returns the files written."""
    if target.exists() and (not target.is_dir() or any(target.iterdir())):
        raise SiteError(f"refusing to init {target}: it is not an empty directory (pick a new one)")
    values = {
        "title": (title or target.resolve().name.replace("-", " ").replace("_", " ").title() or "My Blog").replace(
            '"', "'"
        ),
        "lang": langs[0],
        "date": datetime.now(timezone.utc).replace(microsecond=0).isoformat(),
        "languages": _languages_block(langs),
        "version": __version__,
    }
    target.mkdir(parents=True, exist_ok=True)
    requirement = requirement_for(target, __version__, direct_url())
    values["requirement"] = requirement.line
    starter = resources.files("site_builder") / "starter"
    written = []
    for item in STARTERS:
        if item.only_with is not None and item.only_with not in langs[1:]:
            continue
        text = (starter / item.source).read_text(encoding="utf-8")
        for key, value in values.items():
            text = text.replace("{{" + key + "}}", value)
        path = target / item.target
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
        written.append(path)
    return written + requirement.written


def _languages_block(langs: list[str]) -> str:
    if len(langs) < 2:
        return "# A bilingual site lists its languages here (README, 'Languages'); `site-builder init --lang en,zh`."
    lines = ["# The site's languages: the default one at /, each other under /CODE/."]
    lines.append("languages:")
    for i, code in enumerate(langs):
        lang = Language.default_for(code, i == 0)
        lines += [f"  {code}:", f"    name: {lang.name}"]
    return "\n".join(lines)
