"""Copy a shared source and give it a small stand-in for each image its posts show that the snapshot lacks.

The corpus snapshots left out files over 400 KB (markusthill's whole Seychelles gallery, 14 of its PNG figures), so
no importer can resolve those images from the snapshot. With a stand-in at each missing path (al-folio's
`x-480.webp` sizes stand for their original `x.JPG`, which jekyll-imagemagick made them from), source_check then
measures what the importer does with a complete source. Used by `bench/import_sources.py --stub-missing`.
"""

from __future__ import annotations

import re
import shutil
from pathlib import Path

from PIL import Image

REF = re.compile(
    r"""(?:\]\(\s*<?|src=["']|path=["']?|\{\{\s*['"]?)/?((?:assets|images|img|static)/[^\s"'()<>{}|]+?\.(?:png|jpe?g|gif|webp))""",
    re.I,
)
SIZES = re.compile(r"-(?:480|800|1400)\.webp$", re.I)
FORMATS = {".png": "PNG", ".webp": "WEBP", ".gif": "GIF"}


def stub_missing(src: Path, dest: Path) -> int:
    """Copy `src` to `dest`, then write a 64x48 image at each missing path its Markdown names; how many were made."""
    shutil.copytree(src, dest)
    made = 0
    for md in dest.rglob("*.md"):
        for ref in REF.findall(md.read_text(encoding="utf-8", errors="replace")):
            original = SIZES.sub("", ref)
            if original != ref:  # a size al-folio's build made: its original is what the source would hold
                if any((dest / (original + ext)).exists() for ext in (".JPG", ".jpg", ".jpeg", ".png")):
                    continue
                target = dest / (original + (".png" if original.endswith("-ed") else ".JPG"))
            else:
                target = dest / ref
            if target.exists():
                continue
            target.parent.mkdir(parents=True, exist_ok=True)
            Image.new("RGB", (64, 48), (200, 100, 50)).save(target, FORMATS.get(target.suffix.lower(), "JPEG"))
            made += 1
    return made
