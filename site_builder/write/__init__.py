"""Stage 6, write: what a build puts in the output folder.

theme (its folders) -> templates (Jinja environment, UI strings) -> pages (rendered, staged) and feeds, sitemap,
static files -> output (staging beside the output folder, then the move in or the swap).

Import from the modules themselves: this package loads none of them, so a build with nothing to do (which needs
only `theme` and `output`) does not load Jinja."""
