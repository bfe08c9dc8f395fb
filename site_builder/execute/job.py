"""One post's run, described completely: what the executors hand to a sandbox (and send to Ray workers as is)."""

from __future__ import annotations

from dataclasses import dataclass, field

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


def make_job(parsed: ParsedPost) -> Job:
    post = parsed.post
    settings = exec_settings(post)
    blocks = code_blocks(parsed)
    packages = package_versions(imported_modules(blocks, settings.requires))
    source_dir = post.source.parent
    return Job(
        post.rel,
        post.source.read_text(encoding="utf-8"),
        str(source_dir),
        blocks,
        settings,
        run_key(post.rel, blocks, settings, packages, source_dir),
        packages,
        post.lines,
    )
