"""What a post's run depends on, as one cache key: its blocks, settings, Python, packages and declared files."""

from __future__ import annotations

import ast
import doctest
import functools
import importlib.metadata
import importlib.util
import json
import os
import sys
from dataclasses import asdict
from pathlib import Path

from site_builder.execute.blocks import RUN_OPTIONS, CodeBlock
from site_builder.execute.settings import ExecSettings
from site_builder.util.hashing import bytes_digest, content_key

RUNNER_VERSION = "7"  # with the runner's own bytes: results made by another runner are not reused
RUNNER_FILES = tuple(Path(__file__).with_name(name) for name in ("runner.py", "runvalues.py"))  # the child's code


@functools.cache
def runner_digest() -> str:
    return content_key(*(bytes_digest(path.read_bytes()) for path in RUNNER_FILES))


def blocks_json(blocks: list[CodeBlock]) -> str:
    """The blocks without their line numbers (prose edited above a block moves it but does not change its run) and
    without the options that only change how the code is shown (a new `title=` or `hl_lines` runs nothing again)."""
    kept = []
    for b in blocks:
        fields = {k: v for k, v in asdict(b).items() if k not in ("line", "expected_line")}
        for name in ("xfail", "uncounted"):  # newer fields, left out while unset: the keys of runs from before stay
            if not fields[name]:
                del fields[name]
        fields["options"] = {k: v for k, v in b.options.items() if k in RUN_OPTIONS}
        kept.append(fields)
    return json.dumps(kept, sort_keys=True)


def imported_modules(blocks: list[CodeBlock], requires: list[str]) -> list[str]:
    """Top-level modules the blocks import (`import numpy as np`, `from ray.util import x`) and those `requires`
    names; blocks that do not parse are left to fail when they run."""
    names = {r.split(".")[0] for r in requires}
    for block in blocks:
        code = block.code
        if block.kind == "doctest":
            code = "".join(ex.source for ex in doctest.DocTestParser().get_examples(code))
        try:
            tree = ast.parse(code)
        except (SyntaxError, ValueError):
            continue
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                names.update(alias.name.split(".")[0] for alias in node.names)
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                names.add(node.module.split(".")[0])
    return sorted(names)


@functools.cache
def _stdlib_dirs() -> tuple[str, ...]:
    """Where the standard library is (looked up only when a post executes: sysconfig costs ~4 ms to import)."""
    import sysconfig

    return tuple({os.path.realpath(sysconfig.get_paths()[k]) + os.sep for k in ("stdlib", "platstdlib")})


def _module_file(name: str) -> str | None:
    """Where an installed module's files are, without importing it; None outside site-packages; "" if missing."""
    try:
        spec = importlib.util.find_spec(name)
    except (ImportError, ValueError):
        spec = None
    if spec is None:
        return ""
    where = (
        spec.origin
        if spec.origin not in (None, "built-in", "frozen")
        else next(iter(spec.submodule_search_locations or ()), None)
    )
    if where is None or (os.path.realpath(where).startswith(_stdlib_dirs()) and "-packages" not in where):
        return None
    return where


def package_versions(modules: list[str]) -> dict[str, str]:
    """What is installed for each module, outside the standard library (covered by Python's version): its
    distribution's version and when its files were written (an upgrade, or a reinstall of the same version, changes
    it). Found without importing the modules; a module that is not installed is "missing"."""
    out = {}
    for name in modules:
        if name in sys.builtin_module_names:
            continue
        where = _module_file(name)
        if where is None:
            continue
        if where == "":
            out[name] = "missing"
            continue
        try:
            version = importlib.metadata.version(name)
        except importlib.metadata.PackageNotFoundError:
            version = "?"
        try:
            stamp = os.stat(where).st_mtime_ns
        except OSError:
            stamp = 0
        out[name] = f"{version} {stamp}"
    return out


def files_key(source_dir: Path, files: list[str]) -> str:
    """The declared files' contents (a missing one counts as missing, not as empty)."""
    parts: list[str | bytes] = []
    for name in files:
        path = source_dir / name
        parts += [name, path.read_bytes() if path.is_file() else b"\0<missing>"]
    return content_key(*parts)


def code_key(blocks: list[CodeBlock]) -> str:
    return content_key(blocks_json(blocks))


def run_key(
    rel: str,
    blocks: list[CodeBlock],
    settings: ExecSettings,
    packages: dict[str, str],
    source_dir: Path,
    env: dict[str, str] | None = None,
) -> str:
    """What a run depends on: the post's path, the blocks, their options, the settings (network and the process
    cap included), Python, the packages the blocks import (version and install time), the declared files, the
    variables site.yml passes to posts (names and values, hashed with the rest).

    Not the blocks' line numbers: a cached run is moved to the blocks' new lines when loaded (store.move_lines)."""
    return content_key(
        RUNNER_VERSION,
        runner_digest(),
        sys.version,
        json.dumps(packages, sort_keys=True),
        rel,  # results name the post (tracebacks, failure lines)
        blocks_json(blocks),
        json.dumps(_settings_key(settings), sort_keys=True),
        files_key(source_dir, settings.files),
        json.dumps(env or {}, sort_keys=True),
    )


def _settings_key(settings: ExecSettings) -> dict[str, object]:
    """The settings as the key holds them: isolation only when strict (a run's key from before it existed stays)."""
    fields = asdict(settings)
    if fields["isolation"] == "default":
        del fields["isolation"]
    return fields
