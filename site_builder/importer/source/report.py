"""What `site-builder import OLD NEW` tells at the end: what was carried over, and every construct it could not
convert at `file:line`, sorted, then one summary line."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from site_builder.importer.source.model import ImportProblem

GENERATOR_NAMES = {"jekyll": "Jekyll", "hugo": "Hugo", "pelican": "Pelican"}


@dataclass
class SourceReport:
    """Counts of what the writer wrote, the problems of every doc (sorted) and the reader's notes."""

    generator: str
    new_site: Path
    posts: int = 0
    drafts: int = 0
    pages: int = 0
    images: int = 0
    files: int = 0
    problems: list[ImportProblem] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    missing: str = ""  # the line on images the posts show that OLD_SITE lacks (assets.missing_line), "" for none

    def problem_lines(self) -> list[str]:
        return [f"warning: {p}" for p in sorted(self.problems, key=ImportProblem.sort_key)]

    def closing_lines(self) -> list[str]:
        """What is printed last: the reader's notes, the images to copy from the old site, the summary."""
        return [*self.notes, *([self.missing] if self.missing else []), self.summary()]

    def summary(self) -> str:
        name = GENERATOR_NAMES.get(self.generator, self.generator)
        drafts = f" ({self.drafts} drafts)" if self.drafts else ""
        left = f"; {len(self.problems)} constructs not converted or converted with a loss (listed above)"
        return (
            f"imported {self.posts} posts{drafts}, {self.pages} pages, {self.images} images and {self.files} other"
            f" files from {name} into {self.new_site}" + (left if self.problems else "; everything converted")
        )
