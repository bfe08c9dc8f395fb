"""How `make test` hands tests to its workers (`-n 3 --dist loadfile --no-loadscope-reorder`), and the fixtures
that more than one test file uses.

Files go out longest first: collected alphabetically, the longest files (the wheel's venvs, the kill -9 rounds,
Ray's clusters) came last, and one worker ran them alone for a minute while the others had nothing left. (Without
`--no-loadscope-reorder`, xdist re-sorts the files by their number of tests.)

The bundled site is built once per run, by whichever worker asks first (`bundled_output`): its build runs the posts'
code, Ray's two posts among them, and leaves the results in the repository's `.cache/exec/`, which every other build
of the bundled site copies, and `pytest content/`'s items read, instead of running it all again. No two Ray clusters
start at once (`shared_lock(config, "ray")`): two on two busy cores made the raylet time out in its startup, in CI.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import socket
import subprocess
import sys
import warnings
from collections.abc import Iterator
from pathlib import Path

import pytest
from helpers import REPO

# pytest keeps the test modules it rewrote (for its assertion messages) in tests/__pycache__: with
# PYTHONDONTWRITEBYTECODE set, as on this machine, each of `make test`'s five pytest processes rewrote every test file
# again (~5 s of CPU each). The programs the tests start keep the environment's setting.
sys.dont_write_bytecode = False

# the files that take longest, longest first (the `--durations` of a CI run); every other file keeps its place after.
# Each worker is given two at the start: test_fidelity's bundled build is done before the others that read it begin.
LONGEST = [
    "test_fidelity.py",  # the bundled build (Ray's posts), which the next ones read
    "test_wheel.py",
    "test_attacks_kill.py",
    "test_accessibility.py",
    "test_ray_executor.py",  # its clusters, once the bundled build's are gone
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


def pytest_configure(config: pytest.Config) -> None:
    config.pluginmanager.register(BundledFirst(), "bundled-first")  # a plugin: content/ is not under this conftest


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    rank = {name: i for i, name in enumerate(LONGEST)}
    items.sort(key=lambda item: rank.get(item.path.name, len(LONGEST)))  # stable: the rest keep their order


def _shared(config: pytest.Config) -> Path:
    """The run's temporary folder, which every worker shares (above each worker's own)."""
    base: Path = config._tmp_path_factory.getbasetemp()  # type: ignore[attr-defined]
    return base.parent if os.environ.get("PYTEST_XDIST_WORKER") else base


@contextlib.contextmanager
def shared_lock(config: pytest.Config, name: str) -> Iterator[None]:
    """Held by one worker at a time."""
    with open(_shared(config) / f"{name}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        yield


def bundled_output(config: pytest.Config) -> Path:
    """The bundled site (the repository's content/ and site.yml) built once for the whole run: its output folder.

    The first caller builds it; the others wait for it. The build leaves the posts' results in the repository's
    `.cache/exec/`."""
    shared = _shared(config)
    with shared_lock(config, "bundled"):
        if not (shared / "bundled.done").exists():
            with shared_lock(config, "ray"):  # it runs Ray's two posts
                _build_bundled(shared / "bundled-output")
            (shared / "bundled.done").touch()
    return shared / "bundled-output"


RAY_STARTUP = "The current node timed out during startup"  # Ray's own 30 s wait for its raylet, in ray.init


def _build_bundled(output: Path) -> None:
    """Build the bundled site into `output`, ahead of the other workers' processes where the system lets it.

    The build starts while the other workers build wheels and an 800-post site: on two busy cores, Ray's raylet
    once missed `ray.init`'s fixed 30 s to register (a fresh-clone run, and CI two stops ago). So the build runs at
    a higher priority when allowed (root), and a build that failed only on that timeout runs once more (the posts
    that passed come from the run cache), with a warning in the summary; any other failure fails at once."""
    command = [sys.executable, "-m", "site_builder", "build", "--source", str(REPO), "--output", str(output)]
    for attempt in (1, 2):
        proc = subprocess.run(command, capture_output=True, text=True, timeout=900, preexec_fn=_ahead)
        if proc.returncode == 0:
            return
        if attempt == 2 or RAY_STARTUP not in proc.stderr:
            raise AssertionError(f"the bundled build failed ({proc.returncode}):\n{proc.stdout}\n{proc.stderr}")
        warnings.warn(f"the bundled build ran again: Ray's node did not start in time ({RAY_STARTUP})", stacklevel=1)


def _ahead() -> None:
    """In the build's process before it starts: a higher priority, which its posts' processes (Ray's) inherit."""
    with contextlib.suppress(OSError):
        os.nice(-5)


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
