"""Stage 6, write: what a build puts in the output folder.

templates (theme, Jinja environment, UI strings) -> pages (rendered, staged) and feeds, sitemap, static files ->
output (staging beside the output folder, then the move in or the swap)."""

from site_builder.write.output import MARKER, OutputWriter, check_output_dir, write_late
from site_builder.write.pages import write_pages
from site_builder.write.static import write_static
from site_builder.write.templates import DEFAULT_THEME, Theme, find_theme, make_env, ui_strings

__all__ = [
    "DEFAULT_THEME",
    "MARKER",
    "OutputWriter",
    "Theme",
    "check_output_dir",
    "find_theme",
    "make_env",
    "ui_strings",
    "write_late",
    "write_pages",
    "write_static",
]
