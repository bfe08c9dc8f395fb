"""Import posts from an Atom/RSS feed or WordPress export into Markdown files with front matter."""

from site_builder.importer.write import ImportReport, import_feed

__all__ = ["ImportReport", "import_feed"]
