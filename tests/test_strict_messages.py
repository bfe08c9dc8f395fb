"""One vocabulary for problems (issue 32, item 4): under --strict a warning is printed as `error:` in words that fit
an error (the problem, without what the build did about it: "unknown key 'x'", not "..., ignored"), no `warning:`
line is left, and the last line says that --strict failed the run. As the terminal prints them: the real CLI."""

from __future__ import annotations

import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest
from helpers import make_site, run_cli, write_post

# what a build that goes on does about a warning: none of these may end an error under --strict
CONSEQUENCES = re.compile(
    r", (ignored|shown as [^(]+?|broken in the page|not marked|not read|not published|not shown|listed as '[^']+'|'[\w-]+' used)( \(.*\))?$"
)


def lines(text: str) -> list[str]:
    return [line for line in text.splitlines() if line.strip()]


def problems(text: str) -> list[str]:
    """The warning and error lines (not the failures' detail, not the progress lines)."""
    return [line for line in lines(text) if line.startswith(("warning: ", "error: "))]


def warned_site(root: Path) -> Path:
    """A site with a warning of every kind that says what the build did about it."""
    make_site(root, "title: T\nurl: https://example.org\ntitel: oops\nhighlight:\n  dark: monokia\n")
    body = (
        "![gone](gone.jpg)\n\n"
        '```python {skpi hl_lines="9"}\nprint(1)\n```\n\n'
        "::: gallery mosaic\n![a](gone.png)\n:::\n\n"
        "::: notte\nA note.\n:::\n"
    )
    write_post(root, "a.md", "title: A\ndate: 2024-01-01\ntgas: [x]\ntags: [homeBrew]", body)
    write_post(root, "b.md", "title: B\ndate: 2024-01-02\ntags: [homebrew]")
    write_post(root, "c.md", "title: C\ndate: 2024-01-03\ntags: [homebrew]")
    (root / "content/posts/nothing.md").symlink_to(root / "missing.md")
    raw = (  # raw HTML naming files: one there, others not (a comment and code are not looked into)
        '<p>Here <img src="/img/here.png" alt="h"> and gone <img src="/local/missing.png" alt="m"></p>\n\n'
        '<picture><source srcset="/img/gone-480.webp 480w, /img/here.png 800w"><img src="pic.png" alt="p"></picture>'
        '\n\n<a href="/files/paper.pdf">paper</a>, <a href="/about/">a page</a>, <a href="https://e.org/x.png">x</a>'
        '\n\n<!-- <img src="/commented.png"> -->\n\n`<img src="/in-code.png">`\n'
        "\n[b](/blog/2024/b/), [c](/blog/2024/cc/#x), [pdf](/files/slides.pdf), [home](/), [top](#top)\n"
    )
    write_post(root, "d.md", "title: D\ndate: 2024-01-04", raw)
    (root / "static/img").mkdir(parents=True)
    (root / "static/img/here.png").write_bytes(b"PNG")
    return root


def test_under_strict_every_warning_is_an_error_without_what_the_build_did_about_it(tmp_path):
    root = warned_site(tmp_path / "site")
    plain = run_cli("build", "--source", str(root))
    assert plain.returncode == 0, plain.stderr
    warned = problems(plain.stderr)
    assert all(line.startswith("warning: ") for line in warned), warned
    with_consequence = [line for line in warned if CONSEQUENCES.search(line)]
    assert len(with_consequence) == len(warned) == 17, warned  # each kind below says what the build did
    assert "warning: site.yml:3: unknown key 'titel', ignored (did you mean 'title'?)" in warned
    assert (
        "warning: content/posts/a.md:8: image 'gone.jpg': file not found (content/posts/gone.jpg), shown as its alt text"
        in warned
    )
    assert "warning: content/posts/nothing.md: a link to nothing, not read" in warned
    # raw HTML's images, sources and links to files: at their lines, as a Markdown image's (they were silent)
    fix = "put the file in static/, which is published at the site's root, or fix the path"
    assert [line for line in warned if "raw HTML" in line] == [
        "warning: content/posts/d.md:6: raw HTML names a file the site does not have: <img src> '/local/missing.png'"
        f", broken in the page ({fix})",
        "warning: content/posts/d.md:8: raw HTML names a file the site does not have: <source srcset>"
        f" '/img/gone-480.webp', <img src> 'pic.png' (/blog/2024/d/pic.png), broken in the page ({fix})",
        "warning: content/posts/d.md:10: raw HTML names a file the site does not have: <a href> '/files/paper.pdf'"
        f", broken in the page ({fix})",
    ]
    # links to pages and Markdown links to files the site does not have, with the page most like it (Zola's check)
    assert [line for line in warned if " links to " in line] == [
        "warning: content/posts/d.md:10: links to a page the site does not have: <a href> '/about/', broken in the"
        " page (fix the link)",
        f"warning: content/posts/d.md:16: links to a file the site does not have: link '/files/slides.pdf', broken"
        f" in the page ({fix})",
        "warning: content/posts/d.md:16: links to a page the site does not have: link '/blog/2024/cc/#x', broken in"
        " the page (fix the link (did you mean /blog/2024/c/?))",
    ]
    assert (
        "warning: content/posts/a.md:5: tag 'homeBrew' is written 'homebrew' in content/posts/b.md and "
        "content/posts/c.md, listed as 'homebrew'" in warned
    )

    (root / "output/index.html").write_text("before")
    strict = run_cli("build", "--strict", "--source", str(root))
    assert strict.returncode == 1 and "Traceback" not in strict.stderr
    got = lines(strict.stderr)
    assert not [line for line in got if line.startswith("warning")], got
    assert not [line for line in got if CONSEQUENCES.search(line)], got
    # the same problems, each as an error in the words of the problem alone
    assert got[:-1] == [re.sub(r"^warning: ", "error: ", CONSEQUENCES.sub(r"\2", line)) for line in warned]
    assert "error: site.yml:3: unknown key 'titel' (did you mean 'title'?)" in got
    assert "error: content/posts/a.md:8: image 'gone.jpg': file not found (content/posts/gone.jpg)" in got
    assert "error: site.yml:5: highlight: dark: no Pygments style 'monokia' (did you mean 'monokai'?)" in got
    assert got[-1] == f"error: {len(warned)} warnings are errors under --strict"
    assert (root / "output/index.html").read_text() == "before"  # the output was left as it was


def failing_site(root: Path) -> Path:
    make_site(root, "title: T\nurl: https://example.org\ntitel: oops\n")
    write_post(root, "a.md", "title: A\ndate: 2024-01-01\ntgas: [x]", "![gone](gone.jpg)\n")
    code = "```python\nprint(2)\n```\n\n```output\n3\n```\n"
    write_post(root, "x.md", "title: X\ndate: 2024-01-02\nexecute: true", code)
    return root


def test_strict_with_failing_code_prints_the_failure_then_errors_only(tmp_path):
    root = failing_site(tmp_path / "site")
    proc = run_cli("build", "--strict", "--source", str(root))
    assert proc.returncode == 1 and "Traceback" not in proc.stderr
    assert "content/posts/x.md:12: OutputMismatch" in proc.stderr
    assert problems(proc.stderr) == [
        "error: content/posts/a.md:4: unknown key 'tgas' (did you mean 'tags'?)",
        "error: content/posts/a.md:7: image 'gone.jpg': file not found (content/posts/gone.jpg)",
        "error: site.yml:3: unknown key 'titel' (did you mean 'title'?)",
        "error: code in posts failed, 1 error (fix it, or build with --keep-going to show it in the pages); "
        "3 warnings are errors under --strict",
    ]
    # --keep-going would show the failure in the pages, but --strict stops the build: the failure is still printed
    going = run_cli("build", "--strict", "--keep-going", "--source", str(root))
    assert going.returncode == 1 and "content/posts/x.md:12: OutputMismatch" in going.stderr, going.stderr
    assert not [line for line in lines(going.stderr) if line.startswith("warning")], going.stderr
    assert lines(going.stderr)[-1] == "error: code in posts failed, 1 error; 3 warnings are errors under --strict"
    assert not (root / "output").exists()
    # without --strict: warnings, and the count of both
    plain = run_cli("build", "--source", str(root))
    assert "warning: site.yml:3: unknown key 'titel', ignored (did you mean 'title'?)" in plain.stderr
    assert lines(plain.stderr)[-1] == (
        "error: code in posts failed, 1 error, 3 warnings (fix it, or build with --keep-going to show it in the pages)"
    )


def test_check_strict_says_last_that_strict_failed_it(tmp_path):
    root = make_site(tmp_path / "site")
    write_post(root, "x.md", "title: X\ndate: 2024-01-01\nexecute: true\ntgas: [x]", "```python\nprint(1)\n```\n")
    plain = run_cli("check", "--source", str(root))
    assert plain.returncode == 0, plain.stderr
    assert "warning: content/posts/x.md:5: unknown key 'tgas', ignored (did you mean 'tags'?)" in plain.stderr
    assert lines(plain.stdout)[-1] == "1 passed, 0 failed, 1 warning"
    strict = run_cli("check", "--strict", "--source", str(root))
    assert strict.returncode == 1
    assert lines(strict.stdout)[-1] == "1 passed, 0 failed"
    assert problems(strict.stderr) == [
        "error: content/posts/x.md:5: unknown key 'tgas' (did you mean 'tags'?)",
        "error: 1 warning is an error under --strict",
    ]
    assert lines(strict.stderr)[-1] == "error: 1 warning is an error under --strict"


def test_strict_beside_errors_counts_the_warnings_as_errors(tmp_path):
    root = make_site(tmp_path / "site")
    write_post(root, "a.md", "title: A\ndate: someday")
    write_post(root, "b.md", "title: B\ndate: 2024-01-01\nexecte: true")
    proc = run_cli("build", "--strict", "--source", str(root))
    assert proc.returncode == 1
    assert lines(proc.stderr)[1:] == [
        "error: content/posts/b.md:4: unknown key 'execte' (did you mean 'execute'?)",
        "error: stopped with 1 error; 1 warning is an error under --strict",
    ]


CLI = (sys.executable, "-m", "site_builder")
NO_NETNS = (
    "echo 0 > /proc/sys/user/max_user_namespaces && "
    'capsh --drop=cap_sys_admin -- -c \'cd "$0" && exec "$@"\' {cwd} {argv}'
)


def without_network_namespaces(cwd: Path, *args: str, program: tuple[str, ...] = CLI) -> subprocess.CompletedProcess:
    """The CLI where network namespaces cannot be made (a user namespace of its own that may make no other, without
    CAP_SYS_ADMIN): `exec: network: false` cannot be applied, as on a machine without unprivileged namespaces."""
    argv = " ".join(shlex.quote(a) for a in (*program, *args))
    script = NO_NETNS.format(cwd=shlex.quote(str(cwd)), argv=argv)
    env = {**os.environ, "HOME": str(cwd / "home")}  # the cache key is made there: root's is not this user's
    return subprocess.run(
        ["unshare", "--user", "--map-root-user", "sh", "-c", script], capture_output=True, text=True, env=env,
        timeout=300,
    )  # fmt: skip


def test_warnings_outside_posts_are_in_the_one_list_and_errors_under_strict(tmp_path):
    """What a run could not do as asked (network access not blocked) and Pagefind's warning are counted with the
    others: under --strict each is an `error:` line, the last line says why the run failed, and it fails (the output
    untouched). Ray's "ran the post again" takes the same way (tests/test_ray_executor.py)."""
    root = make_site(tmp_path / "site", "title: T\nurl: https://example.org\nsearch: false\n")
    write_post(
        root, "a.md", "title: A\ndate: 2024-01-01\nexecute: true\nexec:\n  network: false", "```python\nprint(1)\n```\n"
    )
    probe = without_network_namespaces(tmp_path, program=(sys.executable, "-c", "print('here')"))
    if probe.stdout != "here\n":
        pytest.skip(f"no user namespace of its own here (unshare, capsh): {probe.stderr[-300:]}")
    check = without_network_namespaces(tmp_path, "check", "--source", "site", "--strict")
    unblocked = "content/posts/a.md:6: exec: network: false could not be applied: network access cannot be blocked here"
    assert [line for line in problems(check.stderr)] == [
        f"error: {unblocked} (it needs Linux network namespaces: root, or unprivileged user namespaces), and the post "
        "ran with the network",
        "error: 1 warning is an error under --strict",
    ], check.stderr
    assert check.returncode == 1 and lines(check.stdout)[-1] == "1 passed, 0 failed", check.stdout

    built = without_network_namespaces(tmp_path, "build", "--source", "site")
    assert built.returncode == 0 and [p for p in problems(built.stderr) if unblocked in p] == [
        f"warning: {unblocked} (it needs Linux network namespaces: root, or unprivileged user namespaces), and the "
        "post ran with the network"
    ], built.stderr  # once: not also as the run's own line
    assert lines(built.stdout)[-1].endswith(", 1 warning"), built.stdout
    strict = without_network_namespaces(tmp_path, "build", "--source", "site", "--strict")
    assert strict.returncode == 1 and problems(strict.stderr)[-1] == "error: 1 warning is an error under --strict"
    assert [p for p in problems(strict.stderr) if unblocked in p and p.startswith("error: ")], strict.stderr

    other = make_site(tmp_path / "other", "title: T\nurl: https://example.org\nsearch: false\n")
    write_post(other, "b.md", "title: B\ndate: 2024-01-01", "Words.\n")
    run_cli("build", "--source", str(other), check=True)
    (other / "site.yml").write_text("title: T\nurl: https://example.org\nsearch: true\n")  # Pagefind is broken
    before = (other / "output" / "blog/2024/b/index.html").read_text()
    env = {**os.environ, "PAGEFIND_BINARY_PATH": str(tmp_path / "no-pagefind")}
    proc = subprocess.run(
        [sys.executable, "-m", "site_builder", "build", "--source", str(other), "--strict"], capture_output=True,
        text=True, env=env, timeout=300,
    )  # fmt: skip
    assert problems(proc.stderr) == [
        f"error: search index not updated: Pagefind did not finish ([Errno 2] No such file or directory: "
        f"'{tmp_path / 'no-pagefind'}')",
        "error: 1 warning is an error under --strict",
    ], proc.stderr
    assert proc.returncode == 1
    assert (other / "output" / "blog/2024/b/index.html").read_text() == before  # the output as it was (no search box)
