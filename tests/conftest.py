"""The order files are handed to `make test`'s workers (`-n 3 --dist loadfile`): the longest first.

xdist gives each worker the next file in collection order as it finishes one. Collected alphabetically, the
longest files (the wheel's venvs, the kill -9 rounds, Ray's clusters) came last, so one worker ran them alone for a
minute while the others had nothing left. Longest first, they finish together. Tests do not depend on the order.

Also the fixtures that more than one test file uses.
"""

from __future__ import annotations

import socket
from collections.abc import Iterator

import pytest

# the files that take longest, longest first (the `--durations` of a CI run); every other file keeps its place after
LONGEST = [
    "test_wheel.py",
    "test_ray_executor.py",
    "test_attacks_kill.py",
    "test_accessibility.py",
    "test_pytest_plugin.py",
    "test_attacks_redteam.py",
    "test_conventions.py",
    "test_notebooks.py",
    "test_highlight_speed_identity.py",
    "test_fastlex.py",
    "test_import_jekyll.py",
    "test_exec_template.py",
]


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    rank = {name: i for i, name in enumerate(LONGEST)}
    items.sort(key=lambda item: rank.get(item.path.name, len(LONGEST)))  # stable: the rest keep their order


@pytest.fixture
def listener() -> Iterator[int]:
    """A TCP listener on 127.0.0.1 (in this test's network namespace): its port. The attack tests' posts try to
    reach it."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        s.listen(8)
        yield s.getsockname()[1]
