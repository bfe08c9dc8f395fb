"""How `make test` hands tests to its workers (`-n 3 --dist loadgroup --no-loadscope-reorder`), and the fixtures
that more than one test file uses.

Each file is one unit of work, as with `--dist loadfile`, except the files that start Ray clusters: they are one unit
(group "ray"), so no two clusters start at once on the two cores (two did in CI, and the raylet timed out in
startup). Units go out longest first: collected alphabetically, the longest files (the wheel's venvs, the kill -9
rounds, Ray's clusters) came last, and one worker ran them alone for a minute while the others had nothing left.

The bundled site is built once per run, whichever worker asks first (`bundled_output`): its build runs the posts'
code, Ray's two posts among them, and leaves the results in the repository's `.cache/exec/`, which every other build
of the bundled site copies, and `pytest content/`'s items read, instead of running it all again.
"""

from __future__ import annotations

import fcntl
import os
import socket
from collections.abc import Iterator
from pathlib import Path

import pytest
from helpers import REPO, run_cli

# the units that take longest, longest first (the `--durations` of a CI run); every other file keeps its place after
LONGEST = [
    "ray",
    "test_wheel.py",
    "test_attacks_kill.py",
    "test_accessibility.py",
    "test_attacks_redteam.py",
    "test_gallery_build.py",
    "test_pytest_plugin.py",
    "test_conventions.py",
    "test_notebooks.py",
    "test_highlight_speed_identity.py",
    "test_fastlex.py",
    "test_import_jekyll.py",
    "test_exec_template.py",
]
# the files whose tests start Ray clusters: the bundled site's build (its two Ray posts), first, then the executor's
RAY = {"test_fidelity.py": 0, "test_ray_executor.py": 1}


def _unit(item: pytest.Item) -> str:
    return "ray" if item.path.name in RAY else item.path.name


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    if not config.pluginmanager.has_plugin("bundled-first"):  # a plugin, not this conftest: content/ is not under it
        config.pluginmanager.register(BundledFirst(), "bundled-first")
    rank = {name: i for i, name in enumerate(LONGEST)}
    # stable: the rest keep their order
    items.sort(key=lambda item: (rank.get(_unit(item), len(LONGEST)), RAY.get(item.path.name, 0)))
    for item in items:
        item.add_marker(pytest.mark.xdist_group(_unit(item) if item.path.name in RAY else item.nodeid.split("::")[0]))


def bundled_output(config: pytest.Config) -> Path:
    """The bundled site (the repository's content/ and site.yml) built once for the whole run: its output folder.

    The first caller builds it, under a lock the workers share; the others wait for it. The build leaves the posts'
    results in the repository's `.cache/exec/`."""
    base = config._tmp_path_factory.getbasetemp()  # type: ignore[attr-defined]
    shared = base.parent if os.environ.get("PYTEST_XDIST_WORKER") else base  # the run's folder, above each worker's
    out = shared / "bundled-output"
    with open(shared / "bundled.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not (shared / "bundled.done").exists():
            run_cli("build", "--source", str(REPO), "--output", str(out), check=True)
            (shared / "bundled.done").touch()
    return out


@pytest.fixture(scope="session")
def bundled_build(request: pytest.FixtureRequest) -> Path:
    return bundled_output(request.config)


class BundledFirst:
    """`pytest content/`'s items run after the bundled build: they read what it ran."""

    def pytest_runtest_setup(self, item: pytest.Item) -> None:
        if item.path.is_relative_to(REPO / "content"):
            bundled_output(item.config)


@pytest.fixture
def listener() -> Iterator[int]:
    """A TCP listener on 127.0.0.1 (in this test's network namespace): its port. The attack tests' posts try to
    reach it."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        s.listen(8)
        yield s.getsockname()[1]
