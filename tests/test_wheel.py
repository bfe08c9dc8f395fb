"""The package as a user gets it: the wheel, installed into a fresh virtualenv outside the repository.

From an empty directory, `init`, `build`, `check` and `serve` must work with nothing pointing into this checkout:
the theme, the UI strings, the starter site and the reload script are package data.
"""

from __future__ import annotations

import os
import re
import shutil
import signal
import subprocess
import sys
import tarfile
import urllib.request
import venv
import zipfile
from pathlib import Path

import pytest
import yaml
from helpers import REPO, wait_for


def _run(*args: str | Path, cwd: Path | None = None, env: dict[str, str] | None = None, timeout: int = 600) -> str:
    proc = subprocess.run([str(a) for a in args], cwd=cwd, env=env, capture_output=True, text=True, timeout=timeout)
    assert proc.returncode == 0, f"{' '.join(map(str, args))} failed ({proc.returncode}):\n{proc.stdout}\n{proc.stderr}"
    return proc.stdout + proc.stderr


def _clean_env() -> dict[str, str]:
    """The environment without anything that could lead Python back to this checkout."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTHON", "VIRTUAL_ENV"))}
    env["PATH"] = os.pathsep.join(p for p in env.get("PATH", "").split(os.pathsep) if not p.startswith(str(REPO)))
    return env


@pytest.fixture(scope="module")
def dist(tmp_path_factory) -> Path:
    """The sdist and the wheel as `python -m build` makes them for a release: the wheel is built from the sdist,
    so a file the sdist lacks is missing from the wheel too."""
    work = tmp_path_factory.mktemp("dist")
    source = work / "source"  # a copy of what the release is made of: setuptools builds in the tree it is given (a
    # build/ folder there, whose stale modules a later wheel would carry, and which ruff takes for a package)
    shutil.copytree(REPO / "site_builder", source / "site_builder", ignore=shutil.ignore_patterns("__pycache__"))
    for name in ("pyproject.toml", "README.md", "LICENSE", "CHANGELOG.md", "MANIFEST.in"):
        shutil.copy(REPO / name, source / name)
    _run(sys.executable, "-m", "build", "--outdir", work / "dist", source, cwd=work)
    return work / "dist"


@pytest.fixture(scope="module")
def installed(dist: Path, tmp_path_factory) -> Path:
    """The bin/ folder of a new virtualenv with the release's wheel (and its dependencies) installed."""
    wheels = list(dist.glob("site_builder-*.whl"))
    assert len(wheels) == 1, wheels
    work = tmp_path_factory.mktemp("wheel")
    bin_dir = _fresh_venv(work / "venv")
    _run(*_pip(bin_dir), "install", "-q", wheels[0], cwd=work, env=_clean_env())
    return bin_dir


def _fresh_venv(where: Path) -> Path:
    """A new virtualenv (its bin/ folder), without a pip of its own: `_pip` installs into it (ensurepip took 5 s of
    CPU a venv)."""
    venv.EnvBuilder(with_pip=False).create(where)
    return where / "bin"


def _pip(bin_dir: Path) -> list[str | Path]:
    """pip, installing into the virtualenv of `bin_dir` (`pip --python`, as a user's `pip install` there does)."""
    return [sys.executable, "-m", "pip", "--python", bin_dir / "python"]


def test_the_release_passes_twine_and_its_sdist_installs_with_the_theme(dist: Path, tmp_path: Path) -> None:
    """What an index shows and what `pip install` of the sdist gets: metadata that renders, and the package data."""
    files = sorted(dist.iterdir())
    assert {f.name for f in files} == {
        f"site_builder-{_version()}-py3-none-any.whl",
        f"site_builder-{_version()}.tar.gz",
    }
    _run(sys.executable, "-m", "twine", "check", "--strict", *files, cwd=tmp_path)
    sdist = next(f for f in files if f.suffix == ".gz")
    with tarfile.open(sdist) as tar:
        names = tar.getnames()
    for needed in ("themes/default/templates/base.html", "starter/github/site.yml", "server/livereload.js"):
        assert any(n.endswith("site_builder/" + needed) for n in names), f"{needed} is not in the sdist"
    assert any(n.endswith("/CHANGELOG.md") for n in names)
    # the wheel is what `pip install` of the sdist builds (`python -m build` made it from the sdist): the package data
    # reached it, and test_the_wheel_carries_the_theme_and_scripts_and_a_license installs it in a fresh venv
    wheel = next(f for f in files if f.suffix == ".whl")
    with zipfile.ZipFile(wheel) as whl:
        wheel_names = whl.namelist()
    assert "site_builder/themes/default/static/css/site.css" in wheel_names, "the theme is not in the wheel"
    # Mermaid's ESM build, in a folder of the theme the static files are not copied from (write/static.py)
    mermaid = "site_builder/themes/default/vendor/mermaid/"
    assert {mermaid + "mermaid.esm.min.mjs", mermaid + "LICENSE"} <= set(wheel_names), "Mermaid is not in the wheel"
    assert sum(n.startswith(mermaid) and n.endswith(".mjs") for n in wheel_names) > 100, "Mermaid's chunks are not"
    assert f"site_builder-{_version()}.dist-info/METADATA" in wheel_names


_LIST_FILES = (
    "import importlib.metadata as m; print(m.version('site-builder')); "
    "print('\\n'.join(str(f) for f in m.files('site-builder')))"
)


def _version() -> str:
    text = (REPO / "site_builder" / "__init__.py").read_text(encoding="utf-8")
    found = re.search(r'^__version__ = "([^"]+)"$', text, re.M)
    assert found, "site_builder/__init__.py defines __version__, the one place the version is"
    return found.group(1)


def test_the_wheel_carries_the_theme_and_scripts_and_a_license(installed: Path) -> None:
    out = _run(
        installed / "python",
        "-c",
        "import importlib.metadata as m, site_builder; print(site_builder.__file__); "
        "meta = m.metadata('site-builder'); print(meta['Metadata-Version'], meta['License-Expression'], "
        "meta.get_all('License-File'), meta['License']); "
        "print('\\n'.join(str(f) for f in m.files('site-builder')))",
        cwd=installed,
        env=_clean_env(),
    )
    where, license_, *files = out.splitlines()
    assert not where.startswith(str(REPO)), where
    # an SPDX expression and the license's file (core metadata 2.4), not the deprecated free-text License field
    assert license_ == "2.4 MIT ['LICENSE'] None"
    assert any(f.endswith(".dist-info/licenses/LICENSE") for f in files), "the LICENSE file is not in the wheel"
    for needed in ("themes/default/templates/base.html", "themes/default/i18n/zh.yml", "server/livereload.js",
                   "themes/default/static/css/site.css", "starter/site.yml", "starter/github/site.yml", "starter/requirements.txt"):  # fmt: skip
        assert any(f.endswith(needed) for f in files), f"{needed} is not in the wheel"
    assert _run(installed / "site-builder", "--version", env=_clean_env()).startswith("site-builder ")


def test_init_build_check_and_serve_from_an_empty_directory(installed: Path, tmp_path: Path) -> None:
    env = _clean_env()
    site = tmp_path / "blog"
    _run(installed / "site-builder", "init", site, "--lang", "en,zh", cwd=tmp_path, env=env)
    assert (site / ".github" / "workflows" / "site.yml").is_file()
    workflow = (site / ".github" / "workflows" / "site.yml").read_text(encoding="utf-8")
    assert "site-builder check --strict" in workflow and "site-builder build --strict" in workflow
    triggers = yaml.safe_load(workflow)[True]  # YAML 1.1 reads the key `on` as true
    assert set(triggers) == {"push", "pull_request", "workflow_dispatch", "schedule"}, "code rots between pushes"
    assert "schedule' && '--rerun'" in workflow, "the weekly run runs every post again"
    # setup-python's `cache: pip` fails a run without a dependency file: the workflow installs from one, pinned
    version = _run(installed / "site-builder", "--version", env=env).split()[-1]
    wheel = f"site_builder-{version}-py3-none-any.whl"  # installed from a wheel, which no index holds: kept in vendor/
    assert _requirements(site) == [f"./vendor/{wheel}"]
    assert (site / "vendor" / wheel).is_file()
    assert _installs_from_requirements(site, tmp_path / "ci") == version  # as the workflow's `pip install -r`
    assert "pip install -r requirements.txt" in workflow and "cache-dependency-path: requirements.txt" in workflow
    _run(installed / "site-builder", "build", "--strict", cwd=site, env=env)  # as the starter workflow runs them
    page = (site / "output" / "blog").rglob("index.html")
    assert any("Hello, world" in p.read_text(encoding="utf-8") for p in page)
    assert (site / "output" / "css" / "site.css").is_file(), "the theme's static files come from the package"
    assert (site / "output" / "zh" / "index.html").is_file()
    checked = _run(installed / "site-builder", "check", "--strict", cwd=site, env=env)
    assert checked.strip().splitlines()[-1] == "2 passed, 0 failed"
    _serve_and_fetch(installed, site, env)


def _serve_and_fetch(installed: Path, site: Path, env: dict[str, str]) -> None:
    proc = subprocess.Popen(
        [str(installed / "site-builder"), "serve", "--port", "0"],
        cwd=site, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
    )  # fmt: skip
    try:
        lines: list[str] = []

        def url() -> str | None:
            line = proc.stdout.readline() if proc.stdout else ""
            lines.append(line)
            found = re.search(r"serving (http://127\.0\.0\.1:\d+/)", line)
            return found.group(1) if found else None

        base = wait_for(url, timeout=60)
        home = urllib.request.urlopen(base, timeout=10).read().decode()
        assert "Hello, world" in home and "__livereload.js" in home
        script = urllib.request.urlopen(base + "__livereload.js", timeout=10).read().decode()
        assert "EventSource" in script
    finally:
        proc.send_signal(signal.SIGINT)
        proc.wait(timeout=20)


def _requirements(site: Path) -> list[str]:
    return [line for line in (site / "requirements.txt").read_text(encoding="utf-8").splitlines() if line[:1] != "#"]


def _installs_from_requirements(site: Path, where: Path) -> str:
    """`pip install -r requirements.txt` in the site's folder, into a fresh venv (site-builder alone: its
    dependencies come from an index as usual); the version of site-builder it installed."""
    bin_dir = _fresh_venv(where)
    _run(*_pip(bin_dir), "install", "-q", "--no-deps", "-r", "requirements.txt", cwd=site, env=_clean_env())
    return _run(bin_dir / "python", "-c", _LIST_FILES, cwd=site, env=_clean_env()).splitlines()[0]


def test_init_from_a_repository_pins_its_commit(installed: Path, tmp_path: Path) -> None:
    """site-builder installed from a git repository: the new site's requirements name that repository at that
    commit, and they install."""
    repo = tmp_path / "repo"
    shutil.copytree(REPO / "site_builder", repo / "site_builder", ignore=shutil.ignore_patterns("__pycache__"))
    for name in ("pyproject.toml", "README.md", "LICENSE"):
        shutil.copy(REPO / name, repo / name)
    git = ["git", "-C", repo, "-c", "user.name=t", "-c", "user.email=t@example.org"]
    _run("git", "init", "-q", repo)
    _run(*git, "add", ".")
    _run(*git, "commit", "-q", "-m", "release")
    commit = _run(*git, "rev-parse", "HEAD").strip()
    bin_dir = _fresh_venv(tmp_path / "venv")
    _run(*_pip(bin_dir), "install", "-q", "--no-deps", f"git+file://{repo}@{commit}", env=_clean_env())
    # its dependencies from the wheel's venv (already installed there), after its own site-packages
    packages = next((installed.parent / "lib").glob("python3*/site-packages"))
    own = next((tmp_path / "venv" / "lib").glob("python3*/site-packages"))
    (own / "deps.pth").write_text(str(packages) + "\n", encoding="utf-8")
    site = tmp_path / "blog"
    _run(bin_dir / "site-builder", "init", site, cwd=tmp_path, env=_clean_env())
    # written with a host, which every pip reads (pip before 23.3 refuses file:/// in a requirement)
    assert _requirements(site) == [f"site-builder @ git+file://localhost{repo}@{commit}"]
    assert not (site / "vendor").exists()
    assert _installs_from_requirements(site, tmp_path / "ci") == _version()
