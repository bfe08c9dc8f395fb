"""Attacks through a site's own input: post files, front matter, site.yml and images.

Nothing is written outside the output directory, YAML is read safely and within limits (no code run, no alias bomb,
no nesting deeper than a value may be), a post file is text of a bounded size, and an image is never published or
decoded when it is too large, a link leaving content/, or an SVG. Every test runs the real CLI on a small site and
checks what a user sees: `file:line` messages, exit codes, the files in output/ and around it.
"""

from __future__ import annotations

import base64
import os
import re
import resource
import struct
import subprocess
import sys
import time
import zlib
from pathlib import Path

import pytest
from helpers import assert_one_line_error, make_site, run_cli, write_post
from PIL import Image

DATED = "title: Evil\ndate: 2024-01-01"


def build(root: Path, *extra: str) -> subprocess.CompletedProcess:
    return run_cli("build", "--source", str(root), *extra)


def guarded_build(root: Path, timeout: float = 30) -> tuple[subprocess.CompletedProcess, float]:
    """The real CLI under a 2 GiB address-space cap and a timeout: an attack that would exhaust the machine (an
    alias bomb, a FIFO named like a post) fails the test instead of the machine. Returns the result and the time."""

    def limit() -> None:
        resource.setrlimit(resource.RLIMIT_AS, (2 << 30, 2 << 30))

    start = time.monotonic()
    try:
        proc = subprocess.run(
            [sys.executable, "-m", "site_builder", "build", "--source", str(root)],
            capture_output=True,
            text=True,
            timeout=timeout,
            preexec_fn=limit,
        )
    except subprocess.TimeoutExpired:
        pytest.fail(f"the build did not finish within {timeout} s")
    return proc, time.monotonic() - start


def tree(folder: Path, skip: tuple[str, ...] = ()) -> set[str]:
    """Every file and link under `folder` (relative paths), leaving out those under the `skip` prefixes."""
    found = set()
    for dirpath, dirnames, filenames in os.walk(folder):
        for name in filenames + [d for d in dirnames if os.path.islink(os.path.join(dirpath, d))]:
            rel = Path(dirpath, name).relative_to(folder).as_posix()
            if not rel.startswith(skip):
                found.add(rel)
    return found


def assert_clean(proc: subprocess.CompletedProcess) -> None:
    assert "Traceback" not in proc.stderr and "internal error" not in proc.stderr, proc.stderr
    assert "Warning:" not in proc.stderr, f"a Python warning leaked to stderr:\n{proc.stderr}"


def warnings_of(proc: subprocess.CompletedProcess) -> list[str]:
    return [line for line in proc.stderr.splitlines() if line.startswith("warning:")]


@pytest.fixture()
def site(tmp_path: Path) -> Path:
    root = make_site(tmp_path / "site")
    write_post(root, "good.md", "title: Good\ndate: 2024-01-02")
    return root


@pytest.fixture()
def outside(tmp_path: Path) -> Path:
    """A folder beside the site with a secret image, a secret post and a folder of posts."""
    folder = tmp_path / "outside"
    (folder / "dir").mkdir(parents=True)
    Image.new("RGB", (50, 40), (200, 10, 10)).save(folder / "secret.png")
    (folder / "secret.md").write_text("---\ntitle: Secret\ndate: 2024-01-01\n---\n\nSECRET-POST\n", encoding="utf-8")
    (folder / "dir" / "s2.md").write_text("---\ntitle: S2\ndate: 2024-01-01\n---\n\nSECRET-DIR\n", encoding="utf-8")
    return folder


# --- 1. nothing is written outside the output directory ----------------------------------------------------------
# (`..` in permalinks and slugs: tests/test_output_safety.py)


@pytest.mark.parametrize("permalink", ["https://evil/x/", "javascript:alert(1)", "file:///etc/x/"])
def test_a_permalink_with_a_scheme_is_an_error_at_its_line(tmp_path, site, permalink):
    write_post(site, "evil.md", f'{DATED}\npermalink: "{permalink}"')
    before = tree(tmp_path)
    assert_one_line_error(build(site), r"^error: content/posts/evil\.md:4: bad permalink .*not an address")
    assert tree(tmp_path) == before


@pytest.mark.parametrize("permalink", ["//evil/x/", "\\\\\\\\evil\\\\x"])
def test_a_protocol_relative_permalink_is_an_error_at_its_line(tmp_path, site, permalink):
    """`//evil/x/` in a link is another host's address: refused, not built at /evil/x/."""
    write_post(site, "evil.md", f"{DATED}\npermalink: '{permalink}'")
    before = tree(tmp_path)
    assert_one_line_error(build(site), r"^error: content/posts/evil\.md:4: bad permalink .*not an address")
    assert tree(tmp_path) == before


@pytest.mark.parametrize("tag", ["../../etc", "..", "/", "/etc", "a/../b", "..\\\\x"])
def test_a_tag_that_is_a_path_is_an_error_at_its_line(tmp_path, site, tag):
    write_post(site, "evil.md", f"{DATED}\ntags: [ok, {tag!r}]")
    before = tree(tmp_path)
    assert_one_line_error(build(site), r"^error: content/posts/evil\.md:4: tag .* is a path, not a name")
    assert tree(tmp_path) == before


def test_tags_with_a_slash_inside_a_word_have_their_pages_inside_output(tmp_path, site):
    write_post(site, "evil.md", f'{DATED}\ntags: ["CI/CD", "a/b", "TCP/IP"]')
    proc = build(site)
    assert proc.returncode == 0 and "Traceback" not in proc.stderr, proc.stderr
    out = site / "output"
    tag_pages = {rel for rel in tree(out) if rel.startswith("blog/tag/") and rel.endswith("/index.html")}
    assert {"blog/tag/cicd/index.html", "blog/tag/ab/index.html", "blog/tag/tcpip/index.html"} <= tag_pages
    assert "#CI/CD" in (out / "blog/tag/cicd/index.html").read_text(encoding="utf-8")
    for rel in tag_pages:
        assert (out / rel).resolve().is_relative_to(out.resolve()) and ".." not in rel


# --- 4. YAML --------------------------------------------------------------------------------------------------

PYTHON_TAGS = ["!!python/object/apply:os.system", "!!python/object/new:os.system", "!python/object/apply:os.system"]


@pytest.mark.parametrize("tag", PYTHON_TAGS)
def test_python_tags_in_front_matter_are_refused_and_run_nothing(tmp_path, site, tag):
    marker = tmp_path / "pwned"
    write_post(site, "evil.md", f'{DATED}\nsummary: {tag} ["touch {marker}"]')
    assert_one_line_error(build(site), r"^error: content/posts/evil\.md:4: invalid YAML front matter: .*tag")
    assert not marker.exists()


def test_python_tags_in_site_yml_are_refused_and_run_nothing(tmp_path, site):
    marker = tmp_path / "pwned"
    (site / "site.yml").write_text(f'title: T\nauthor: !!python/object/apply:os.system ["touch {marker}"]\n')
    assert_one_line_error(build(site), r"^error: site\.yml:2: invalid YAML: .*tag")
    assert not marker.exists()


def _bomb(levels: int = 9) -> str:
    """Billion laughs: each anchor a list of 9 aliases of the one before (9**9 strings once expanded)."""
    lines = ["a0: &a0 [lol, lol, lol, lol, lol, lol, lol, lol, lol]"]
    lines += [f"a{n}: &a{n} [{', '.join([f'*a{n - 1}'] * 9)}]" for n in range(1, levels)]
    return "\n".join(lines)


BOMBS = {
    "summary": ("post", f"{DATED}\n{_bomb()}\nsummary: *a8", r"content/posts/evil\.md:\d+"),
    "tags": ("post", f"{DATED}\n{_bomb()}\ntags: *a8", r"content/posts/evil\.md:\d+"),
    "unused": ("post", f"{DATED}\n{_bomb()}", r"content/posts/evil\.md:\d+"),
    "site-title": ("site", f"{_bomb()}\ntitle: *a8\n", r"site\.yml:\d+"),
}


@pytest.mark.parametrize("where,text,file", BOMBS.values(), ids=BOMBS.keys())
def test_an_alias_bomb_is_an_error_found_fast(site, where, text, file):
    if where == "post":
        write_post(site, "evil.md", text)
    else:
        (site / "site.yml").write_text(text, encoding="utf-8")
    proc, seconds = guarded_build(site)
    assert_one_line_error(proc, rf"^error: {file}: .*aliases")
    assert seconds < 10


def test_a_value_that_contains_itself_is_an_error(site):
    write_post(site, "evil.md", f"{DATED}\nsummary: &a [x, *a]")
    proc, _ = guarded_build(site)
    assert_one_line_error(proc, r"^error: content/posts/evil\.md:4: .*contains itself")


@pytest.mark.parametrize("depth", [500, 10_000])
def test_deep_nesting_in_front_matter_is_an_error_at_its_line(site, depth):
    write_post(site, "evil.md", f"{DATED}\nextra: {'[' * depth}{']' * depth}")
    proc, _ = guarded_build(site)
    assert_one_line_error(proc, r"^error: content/posts/evil\.md:4: invalid YAML front matter: .*nest")


@pytest.mark.parametrize("depth", [500, 10_000])
def test_deep_nesting_in_site_yml_is_an_error_at_its_line(site, depth):
    (site / "site.yml").write_text(f"title: T\nauthor: {'{a: ' * depth}1{'}' * depth}\n", encoding="utf-8")
    proc, _ = guarded_build(site)
    assert_one_line_error(proc, r"^error: site\.yml:2: invalid YAML: .*nest")


def test_front_matter_that_is_a_scalar_is_an_error(site):
    (site / "content/posts/evil.md").write_text("---\njust some words\n---\n\nbody\n", encoding="utf-8")
    assert_one_line_error(build(site), r"^error: content/posts/evil\.md:2: front matter must be a mapping")


@pytest.mark.parametrize("where,line", [("body", 8), ("front", 4)])
def test_a_nul_byte_in_a_post_is_an_error_at_its_line(site, where, line):
    front, body = (f"{DATED}\nsummary: a\x00b", "Fine.\n") if where == "front" else (DATED, "Fine.\n\nA\x00B\n")
    write_post(site, "evil.md", front, body)
    assert_one_line_error(build(site), rf"^error: content/posts/evil\.md:{line}: .*NUL byte")
    assert not (site / "output").exists()


def test_a_50_mb_post_is_refused_at_once(site):
    path = write_post(site, "big.md", DATED)
    with open(path, "r+b") as fh:  # sparse: 50 MB that take no disk
        fh.truncate(50 * 2**20)
    proc, seconds = guarded_build(site)
    assert_one_line_error(
        proc, r"^error: content/posts/big\.md:1: post is 50\.0 MB, more than the 10 MB a post may be$"
    )
    assert seconds < 10 and not (site / "output").exists()


# --- 5. images -------------------------------------------------------------------------------------------------


def blank_png(path: Path, width: int, height: int) -> Path:
    """A valid 1-bit PNG of any declared size, a few kB on disk: what a decompression bomb looks like."""

    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))

    row = b"\0" * (1 + (width + 7) // 8)
    packer = zlib.compressobj(9)
    pixels = b"".join(packer.compress(row) for _ in range(height)) + packer.flush()
    header = struct.pack(">IIBBBBB", width, height, 1, 0, 0, 0, 0)
    path.write_bytes(b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", pixels) + chunk(b"IEND", b""))
    return path


def _image_post(root: Path, src: str) -> Path:
    return write_post(root, "pics.md", "title: Pics\ndate: 2024-01-01", f"Before.\n\n![the alt]({src})\n")


def assert_image_warning(proc, pattern: str, line: int = 8) -> None:
    assert proc.returncode == 0, proc.stderr
    assert_clean(proc)
    found = warnings_of(proc)
    assert len(found) == 1 and re.match(rf"warning: content/posts/pics\.md:{line}: .*{pattern}", found[0]), found


@pytest.mark.parametrize("size", [(30_000, 30_000), (9_500, 9_500)], ids=["over-2x-limit", "over-limit"])
def test_a_decompression_bomb_is_refused_at_the_posts_line(site, size):
    blank_png(site / "content/posts/bomb.png", *size)
    _image_post(site, "bomb.png")
    proc, seconds = guarded_build(site)
    assert_image_warning(proc, r"image 'bomb\.png': too large: .*pixels.*shown as its alt text")
    assert seconds < 10
    page = (site / "output/blog/2024/pics/index.html").read_text(encoding="utf-8")
    assert "image-missing" in page and "the alt" in page
    assert sorted(p.name for p in (site / "output/blog/2024/pics").iterdir()) == ["index.html"]
    assert build(site, "--strict").returncode == 1


def test_an_image_just_under_the_limit_is_still_published(site):
    blank_png(site / "content/posts/wide.png", 9_000, 9_000)
    _image_post(site, "wide.png")
    proc, _ = guarded_build(site, timeout=60)
    assert proc.returncode == 0 and not warnings_of(proc), proc.stderr
    assert (site / "output/blog/2024/pics/wide.png").is_file()


def test_text_named_jpg_is_a_warning_and_shown_as_alt_text(site):
    (site / "content/posts/notes.jpg").write_text("these are notes, not a photo\n")
    _image_post(site, "notes.jpg")
    assert_image_warning(build(site), r"image 'notes\.jpg': not an image .*shown as its alt text")
    assert "image-missing" in (site / "output/blog/2024/pics/index.html").read_text(encoding="utf-8")


def test_a_truncated_jpeg_is_a_warning_and_not_published(site):
    whole = site / "content/posts/whole.jpg"
    Image.radial_gradient("L").resize((800, 600)).convert("RGB").save(whole, quality=90)
    (site / "content/posts/cut.jpg").write_bytes(whole.read_bytes()[:3000])
    whole.unlink()
    _image_post(site, "cut.jpg")
    assert_image_warning(build(site), r"image cut\.jpg: truncated or corrupt image.*not published")
    assert not (site / "output/blog/2024/pics/cut.jpg").exists()


@pytest.mark.parametrize("target", ["secret.png", "/etc/passwd", "dir"])
def test_an_image_linked_to_a_file_outside_the_site_is_never_published(site, outside, target):
    link = site / "content/posts/leak.png"
    link.symlink_to(target if target.startswith("/") else outside / target)
    _image_post(site, "leak.png")
    proc = build(site)
    if target == "dir":  # a folder linked from the posts folder is named too
        folder = "warning: content/posts/leak.png: a link to a folder outside the site, not read"
        assert warnings_of(proc)[0].startswith(folder), proc.stderr
        proc.stderr = proc.stderr.replace(warnings_of(proc)[0] + "\n", "")
    assert_image_warning(proc, r"image 'leak\.png'.*shown as its alt text")
    secret = (outside / "secret.png").read_bytes()
    for rel in tree(site / "output"):
        data = (site / "output" / rel).read_bytes()
        assert data != secret and b"root:x:0:0" not in data and not rel.startswith("blog/2024/pics/leak"), rel


def test_an_image_in_a_folder_linked_outside_the_site_is_never_published(site, outside):
    (site / "content/images").mkdir()
    (site / "content/images/shared").symlink_to(outside, target_is_directory=True)
    _image_post(site, "/images/shared/secret.png")
    assert_image_warning(build(site), r"outside content/.*shown as its alt text")
    assert not any(rel.startswith("images/") for rel in tree(site / "output"))


def test_posts_linked_from_outside_the_site_are_not_read(site, outside):
    posts = site / "content/posts"
    (posts / "linked.md").symlink_to(outside / "secret.md")
    (posts / "linked-dir").symlink_to(outside / "dir", target_is_directory=True)
    (posts / "gone.md").symlink_to(site / "no-such-file.md")
    proc, _ = guarded_build(site)
    assert proc.returncode == 0 and "Traceback" not in proc.stderr, proc.stderr
    found = warnings_of(proc)
    assert len(found) == 3, proc.stderr
    assert re.match(r"warning: content/posts/gone\.md: .*link to nothing, not read", found[0])
    assert re.match(r"warning: content/posts/linked-dir: .*link to a folder outside the site, not read", found[1])
    assert re.match(r"warning: content/posts/linked\.md: .*link to a file outside the site, not read", found[2])
    for rel in tree(site / "output"):
        assert b"SECRET" not in (site / "output" / rel).read_bytes(), rel
    assert build(site, "--strict").returncode == 1


def test_a_post_linked_to_a_file_inside_the_site_is_read(site):
    (site / "drafts").mkdir()
    (site / "drafts/kept.md").write_text("---\ntitle: Kept\ndate: 2024-01-01\n---\n\nKEPT\n", encoding="utf-8")
    (site / "content/posts/kept.md").symlink_to(site / "drafts/kept.md")
    proc = build(site)
    assert proc.returncode == 0 and not warnings_of(proc), proc.stderr
    assert "KEPT" in (site / "output/blog/2024/kept/index.html").read_text(encoding="utf-8")


def test_a_fifo_named_like_a_post_is_not_read_and_does_not_hang(site):
    os.mkfifo(site / "content/posts/pipe.md")
    proc, _ = guarded_build(site, timeout=20)
    assert proc.returncode == 0, proc.stderr
    assert [w for w in warnings_of(proc)] == ["warning: content/posts/pipe.md: not a regular file, not read"]


SVG = (
    '<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10" onload="alert(1)">'
    "<script>alert(2)</script><rect width='10' height='10'/></svg>"
)


def test_an_svg_with_script_is_never_inlined_in_a_page(site):
    """The author's own SVG is published as the file it is and shown as an `<img>`: a browser runs no script of
    an image, and no page holds any of its text."""
    (site / "content/posts/evil.svg").write_text(SVG, encoding="utf-8")
    _image_post(site, "evil.svg")
    proc = build(site)
    assert proc.returncode == 0 and "warning" not in proc.stdout + proc.stderr, proc.stdout + proc.stderr
    page = (site / "output/blog/2024/pics/index.html").read_text(encoding="utf-8")
    assert '<img src="/blog/2024/pics/evil.svg" alt="the alt" width="10" height="10"' in page
    assert (site / "output/blog/2024/pics/evil.svg").read_text(encoding="utf-8") == SVG
    for rel in tree(site / "output"):
        if not rel.endswith(".svg"):
            assert b"alert(" not in (site / "output" / rel).read_bytes(), rel


def test_a_figure_of_executed_code_keeps_no_script_links(site):
    code = (
        "```python\nimport matplotlib\nmatplotlib.use('agg')\nimport matplotlib.pyplot as plt\n"
        "fig = plt.figure(figsize=(1, 1))\n"
        "fig.text(0.5, 0.5, 'label').set_url('javascript:alert(1)')\n"
        "fig.text(0.2, 0.2, 'ok').set_url('https://example.org/')\n```\n"
    )
    write_post(site, "fig.md", "title: Fig\ndate: 2024-01-01\nexecute: true", code)
    proc = build(site)
    assert proc.returncode == 0, proc.stderr
    page = (site / "output/blog/2024/fig/index.html").read_text(encoding="utf-8")
    figures = re.findall(r'<figure class="exec-figure">(.*?)</figure>', page, re.S)
    image = (
        re.fullmatch(r'<img src="data:image/svg\+xml;base64,([A-Za-z0-9+/=]+)" alt="">', figures[0])
        if figures
        else None
    )
    assert len(figures) == 1 and image is not None, figures  # an image: its links and scripts are inert
    assert "https://example.org/" in base64.b64decode(image[1]).decode()  # the drawing whole
    assert "<svg" not in page and '="javascript:' not in page
