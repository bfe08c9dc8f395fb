"""One post's run, described completely: what the executors hand to a sandbox (and send to Ray workers as is)."""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path

from site_builder.config.siteexec import SiteExec
from site_builder.execute.blocks import CodeBlock, code_blocks
from site_builder.execute.fingerprint import imported_modules, package_versions, run_key
from site_builder.execute.settings import ExecSettings, exec_settings
from site_builder.models import ParsedPost


@dataclass
class Job:
    """Everything needed to run one post, picklable."""

    rel: str
    source_text: str
    source_dir: str
    blocks: list[CodeBlock]
    settings: ExecSettings
    key: str
    packages: dict[str, str] = field(default_factory=dict)
    lines: dict[str, int] = field(default_factory=dict)  # front matter key -> its line, for refusals
    env: dict[str, str] = field(default_factory=dict)  # site.yml's exec: env, with the builder's values
    site_root: str = ""  # kept out of the post's environment

    @property
    def first_line(self) -> int:
        """The line of the post's first block: where a problem of the whole run is reported."""
        return self.blocks[0].line if self.blocks else 1


def make_job(parsed: ParsedPost, site: SiteExec | None = None) -> Job:
    post = parsed.post
    site = site or SiteExec()
    settings = exec_settings(post)
    settings.network = settings.network and site.network  # site.yml's network: false holds for every post
    if site.isolation == "strict":  # and its strict isolation: a post cannot loosen it
        settings.isolation = "strict"
    blocks = code_blocks(parsed)
    packages = package_versions(imported_modules(blocks, settings.requires))
    env = {name: os.environ[name] for name in site.env if name in os.environ}
    source_dir = post.source.parent
    return Job(
        post.rel,
        post.source.read_text(encoding="utf-8"),
        str(source_dir),
        blocks,
        settings,
        run_key(post.rel, blocks, settings, packages, source_dir, env),
        packages,
        post.lines,
        env,
        _site_root(post.source, post.rel),
    )


def _site_root(source: Path, rel: str) -> str:
    """The site's folder: `source` without `rel` (the post's path from the site's folder)."""
    parts = Path(rel).parts
    if Path(rel).is_absolute() or source.parts[-len(parts) :] != parts:
        return str(source.parent)
    return str(source.parents[len(parts) - 1])
