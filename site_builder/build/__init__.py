"""The build: the pipeline's stages run in order (`pipeline`), the state one build leaves the next (`state`), and
the dev server's incremental rebuild (`incremental`)."""

from site_builder.build.pipeline import BuildResult, build_site
from site_builder.build.state import BuildState

__all__ = ["BuildResult", "BuildState", "build_site"]
