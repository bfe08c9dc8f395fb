"""One module per command: its arguments (`add_parser`) and what it does (`run`), as MkDocs' `commands/`."""

from site_builder.commands import build, check, import_feed, init, new, serve

COMMANDS = (build, check, serve, import_feed, new, init)
