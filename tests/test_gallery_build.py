"""Local images and `::: gallery` blocks through real builds: markup, published files, cache, errors.

Every test builds a small site in tmp_path with real JPEG/PNG files made by Pillow, then looks at what a reader
gets (the pages, parsed with BeautifulSoup, and the image files, opened with Pillow) or what a user sees (the CLI).
"""

from __future__ import annotations

import hashlib
import os
import re
from pathlib import Path

import pytest
from bs4 import BeautifulSoup
from helpers import make_site, run_cli, write_post
from PIL import Image

from site_builder.build import build_site
from site_builder.build.state import IMAGE_CACHE

MAKE, ORIENTATION, GPS = 0x010F, 0x0112, 0x8825
BERLIN = {1: "N", 2: (52.0, 31.0, 12.0), 3: "E", 4: (13.0, 24.0, 18.0)}
POSTS = Path("content") / "posts"
IMAGE_SUFFIXES = (".jpg", ".png", ".webp")


# --- helpers ------------------------------------------------------------------------------------------------


def photo(size: tuple[int, int]) -> Image.Image:
    """An RGB picture with structure (gradients), quick to make at any size."""
    return Image.merge(
        "RGB",
        [
            Image.linear_gradient("L").resize(size),
            Image.linear_gradient("L").rotate(90).resize(size),
            Image.radial_gradient("L").resize(size),
        ],
    )


def save_jpeg(path: Path, size=(400, 300), exif: dict | None = None, image: Image.Image | None = None) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    params = {}
    if exif is not None:
        e = Image.Exif()
        for tag, value in exif.items():
            e[tag] = value
        params["exif"] = e
    (image or photo(size)).save(path, "JPEG", quality=90, **params)
    return path


def save_png(path: Path, size=(400, 300)) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    photo(size).save(path, "PNG")
    return path


def bump_mtime(path: Path, seconds: int = 10) -> None:
    """Change a file's mtime for sure (coarse file system clocks would not notice a quick rewrite)."""
    st = path.stat()
    os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns + seconds * 1_000_000_000))


def build(root: Path):
    return build_site(root, Path("output"))


def cli_build(root: Path, *extra: str):
    return run_cli("build", "--source", str(root), *extra)


def page(root: Path, url: str) -> BeautifulSoup:
    return BeautifulSoup((root / "output" / url.strip("/") / "index.html").read_text(encoding="utf-8"), "html.parser")


def body(root: Path, url: str):
    return page(root, url).select_one("div.post-body")


def line_of(path: Path, needle: str) -> int:
    """1-based line of the first line of `path` that contains `needle`."""
    for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if needle in line:
            return n
    raise AssertionError(f"{needle!r} not in {path}")


def image_files(folder: Path) -> dict[str, Path]:
    return {
        p.relative_to(folder).as_posix(): p
        for p in sorted(folder.rglob("*"))
        if p.is_file() and p.suffix in IMAGE_SUFFIXES
    }


def stats(folder: Path) -> dict[str, tuple[int, int]]:
    """(mtime_ns, inode) of every image file below `folder`: a rewrite or a replacement changes one of them."""
    return {rel: (p.stat().st_mtime_ns, p.stat().st_ino) for rel, p in image_files(folder).items()}


def snapshot(root: Path) -> dict:
    """Everything in the output (files by content hash, folders) and the build's siblings of the output."""
    out = root / "output"
    files = (
        {
            p.relative_to(out).as_posix(): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(out.rglob("*"))
            if p.is_file()
        }
        if out.exists()
        else None
    )
    dirs = sorted(p.relative_to(out).as_posix() for p in out.rglob("*") if p.is_dir()) if out.exists() else None
    siblings = sorted(p.name for p in root.iterdir() if p.name.startswith(".output"))
    return {"files": files, "dirs": dirs, "siblings": siblings}


def srcset_widths(srcset: str) -> list[int]:
    return [int(part.split()[1].rstrip("w")) for part in srcset.split(",")]


# --- gallery markup -----------------------------------------------------------------------------------------

TRIP = "title: Trip\ndate: 2025-03-04"
TRIP_URL = "/blog/2025/trip/"


@pytest.fixture()
def trip(tmp_path: Path) -> Path:
    """A post with a lone photo, then a grid gallery of four local images and a caption, then a remote image."""
    root = make_site(tmp_path / "site")
    posts = root / POSTS
    save_jpeg(posts / "lead.jpg", (1000, 750))
    save_jpeg(posts / "a.jpg", (2000, 1500))
    save_png(posts / "b.png", (600, 400))
    save_jpeg(posts / "c.jpg", (300, 200))
    save_jpeg(root / "content" / "images" / "shared.jpg", (1000, 800))
    write_post(
        root,
        "trip.md",
        TRIP,
        "Intro.\n\n"
        "![The harbour](lead.jpg)\n\n"
        "::: gallery grid\n"
        "![First light](a.jpg)\n"
        "![Second](b.png)\n"
        "![Third](c.jpg)\n"
        "![Shared one](/images/shared.jpg)\n"
        ":::\n"
        ": Three days on the coast\n\n"
        "More text.\n\n"
        "![A remote one](https://example.com/pics/remote.jpg)\n",
    )
    build(root)
    return root


GALLERY = [  # href, alt, displayed size, variant widths
    ("/blog/2025/trip/a.jpg", "First light", (2000, 1500), [480, 800, 1400]),
    ("/blog/2025/trip/b.png", "Second", (600, 400), [480]),
    ("/blog/2025/trip/c.jpg", "Third", (300, 200), [300]),
    ("/images/shared.jpg", "Shared one", (1000, 800), [480, 800]),
]


def test_a_gallery_is_one_figure_with_its_layout_class_and_an_item_per_image_in_source_order(trip):
    post = body(trip, TRIP_URL)
    galleries = post.select("figure.gallery")
    assert len(galleries) == 1
    gallery = galleries[0]
    assert gallery["class"] == ["gallery", "gallery-grid"]
    items = gallery.select("figure.gallery-item")
    assert [item.select_one("a.gallery-link")["href"] for item in items] == [href for href, *_ in GALLERY]
    assert [item.figcaption.get_text() for item in items] == [alt for _, alt, *_ in GALLERY]
    assert [item.img["alt"] for item in items] == [alt for _, alt, *_ in GALLERY]
    caption = gallery.find("figcaption", class_="gallery-caption", recursive=False)
    assert caption is not None and caption.get_text(strip=True) == "Three days on the coast"
    assert ": Three" not in post.get_text()
    assert post.find(string=re.compile("More text")).find_parent("figure") is None  # the gallery is closed


def test_each_gallery_image_is_a_picture_with_webp_srcset_and_its_displayed_size(trip):
    items = body(trip, TRIP_URL).select("figure.gallery-item")
    for item, (href, _alt, (width, height), widths) in zip(items, GALLERY, strict=True):
        link = item.select_one("a.gallery-link")
        source = link.select_one("picture > source")
        img = link.select_one("picture > img")
        stem = href.rsplit(".", 1)[0]
        expected = ", ".join(f"{stem}.{w}w.webp {w}w" for w in widths)
        assert source["type"] == "image/webp"
        assert source["srcset"] == expected
        assert link["data-srcset"] == expected
        assert source.get("sizes")
        assert img["src"] == href
        assert (int(img["width"]), int(img["height"])) == (width, height)
        assert img["decoding"] == "async"


def test_the_first_two_images_of_a_post_load_eagerly_and_the_rest_lazily(trip):
    post = body(trip, TRIP_URL)
    local = [img for img in post.select("img") if not img["src"].startswith("https:")]
    assert [img["src"] for img in local] == ["/blog/2025/trip/lead.jpg"] + [href for href, *_ in GALLERY]
    assert [img["loading"] for img in local] == ["eager", "eager", "lazy", "lazy", "lazy"]
    lead = post.find("img", src="/blog/2025/trip/lead.jpg")
    assert (lead["width"], lead["height"]) == ("1000", "750")
    assert lead.find_parent("picture").source["srcset"].endswith("/blog/2025/trip/lead.800w.webp 800w")
    assert lead.find_parent("figure", class_="gallery-item") is None


def test_a_remote_image_passes_through_untouched(trip):
    post = body(trip, TRIP_URL)
    img = post.find("img", src="https://example.com/pics/remote.jpg")
    assert img is not None and img["alt"] == "A remote one"
    assert img.find_parent("picture") is None and not img.has_attr("srcset") and not img.has_attr("width")
    assert img["loading"] == "lazy"
    assert not [p for p in (trip / "output").rglob("remote*")]


def test_a_remote_image_in_a_gallery_links_to_itself_without_variants(tmp_path):
    root = make_site(tmp_path / "site")
    save_jpeg(root / POSTS / "here.jpg", (900, 600))
    write_post(
        root,
        "mixed.md",
        "title: Mixed\ndate: 2025-01-01",
        "::: gallery\n![Here](here.jpg)\n![There](https://example.com/there.jpg)\n:::\n",
    )
    result = build(root)
    items = body(root, "/blog/2025/mixed/").select("figure.gallery-item")
    assert len(items) == 2
    remote = items[1].select_one("a.gallery-link")
    assert remote["href"] == "https://example.com/there.jpg" and not remote.has_attr("data-srcset")
    assert remote.img["src"] == "https://example.com/there.jpg" and remote.picture is None
    assert result.images == 1


@pytest.mark.parametrize(
    "opening, layout",
    [
        ("::: gallery", "masonry"),
        ("::: gallery masonry", "masonry"),
        ("::: gallery grid", "grid"),
        ("::: gallery row", "row"),
    ],
)
def test_the_layout_class_follows_the_opening_line_and_masonry_is_the_default(tmp_path, opening, layout):
    root = make_site(tmp_path / "site")
    save_jpeg(root / POSTS / "one.jpg", (500, 400))
    save_jpeg(root / POSTS / "two.jpg", (400, 500))
    write_post(
        root, "g.md", "title: G\ndate: 2025-01-01", f"{opening}\n![one](one.jpg)\n![two](two.jpg)\n:::\n\nAfter.\n"
    )
    build(root)
    post = body(root, "/blog/2025/g/")
    gallery = post.select_one("figure.gallery")
    assert gallery["class"] == ["gallery", f"gallery-{layout}"]
    assert len(gallery.select("figure.gallery-item")) == 2
    assert gallery.find("figcaption", class_="gallery-caption") is None  # no `: caption` line, no caption
    assert post.find(string=re.compile("After")).find_parent("figure") is None
    html = page(root, "/blog/2025/g/")
    assert html.find("link", href="/css/gallery.css") and html.find("script", attrs={"data-src": "/js/gallery.js"})


def test_two_galleries_in_one_post_each_keep_their_own_images_and_caption(tmp_path):
    root = make_site(tmp_path / "site")
    for name in ("p1", "p2", "p3"):
        save_jpeg(root / POSTS / f"{name}.jpg", (640, 480))
    write_post(
        root,
        "two.md",
        "title: Two\ndate: 2025-01-01",
        "::: gallery row\n![p1](p1.jpg)\n![p2](p2.jpg)\n:::\n: Day one\n\n::: gallery\n![p3](p3.jpg)\n:::\n",
    )
    build(root)
    first, second = body(root, "/blog/2025/two/").select("figure.gallery")
    assert [i.img["alt"] for i in first.select("figure.gallery-item")] == ["p1", "p2"]
    assert first.find("figcaption", class_="gallery-caption").get_text(strip=True) == "Day one"
    assert [i.img["alt"] for i in second.select("figure.gallery-item")] == ["p3"]
    assert second.find("figcaption", class_="gallery-caption") is None


# --- published files ----------------------------------------------------------------------------------------


def test_variants_are_published_beside_the_original_at_their_pixel_widths_and_never_upscaled(trip):
    out = trip / "output"
    expected = {
        "blog/2025/trip/a.jpg": None,
        "blog/2025/trip/a.480w.webp": (480, 360),
        "blog/2025/trip/a.800w.webp": (800, 600),
        "blog/2025/trip/a.1400w.webp": (1400, 1050),
        "blog/2025/trip/b.png": None,
        "blog/2025/trip/b.480w.webp": (480, 320),  # 600 px: only 480
        "blog/2025/trip/c.jpg": None,
        "blog/2025/trip/c.300w.webp": (300, 200),  # 300 px: only itself
        "blog/2025/trip/lead.jpg": None,
        "blog/2025/trip/lead.480w.webp": (480, 360),
        "blog/2025/trip/lead.800w.webp": (800, 600),
        "images/shared.jpg": None,
        "images/shared.480w.webp": (480, 384),
        "images/shared.800w.webp": (800, 640),
    }
    assert sorted(image_files(out)) == sorted(expected)
    for rel, size in expected.items():
        with Image.open(out / rel) as im:
            if size is not None:
                assert (im.format, im.size) == ("WEBP", size), rel
    for name in ("a.jpg", "b.png", "c.jpg", "lead.jpg"):  # plain photos are published byte for byte
        assert (out / "blog/2025/trip" / name).read_bytes() == (trip / POSTS / name).read_bytes()
    assert (out / "images/shared.jpg").read_bytes() == (trip / "content/images/shared.jpg").read_bytes()


def test_a_photo_with_exif_orientation_6_is_shown_and_published_upright(tmp_path):
    root = make_site(tmp_path / "site")
    im = photo((1200, 900))
    im.paste((255, 0, 0), (0, 0, 100, 100))  # red top-left as stored; orientation 6 turns it to the top-right
    save_jpeg(root / POSTS / "phone.jpg", exif={ORIENTATION: 6, MAKE: "Phone"}, image=im)
    write_post(root, "p.md", "title: P\ndate: 2025-01-01", "::: gallery\n![Tall](phone.jpg)\n:::\n")
    build(root)
    img = body(root, "/blog/2025/p/").select_one("figure.gallery-item img")
    assert (img["width"], img["height"]) == ("900", "1200")
    assert srcset_widths(img.find_previous_sibling("source")["srcset"]) == [480, 800]
    folder = root / "output/blog/2025/p"
    with Image.open(folder / "phone.jpg") as original:
        assert original.size == (900, 1200) and ORIENTATION not in original.getexif()
        assert original.convert("RGB").getpixel((850, 50))[0] > 200
    for width, height in ((480, 640), (800, 1067)):
        with Image.open(folder / f"phone.{width}w.webp") as variant:
            assert variant.size == (width, height)


def test_a_photo_with_gps_is_published_without_its_location(tmp_path):
    root = make_site(tmp_path / "site")
    src = save_jpeg(root / POSTS / "where.jpg", (800, 600), exif={MAKE: "Canon", GPS: BERLIN})
    with Image.open(src) as before:
        assert before.getexif().get_ifd(GPS)  # the test photo really carries a location
    write_post(root, "p.md", "title: P\ndate: 2025-01-01", "![Somewhere](where.jpg)\n")
    build(root)
    img = body(root, "/blog/2025/p/").img
    assert (img["src"], img["width"], img["height"]) == ("/blog/2025/p/where.jpg", "800", "600")
    published = root / "output/blog/2025/p/where.jpg"
    with Image.open(published) as im:
        assert im.format == "JPEG" and im.size == (800, 600)
        assert im.getexif().get_ifd(GPS) == {} and GPS not in im.getexif()
        assert im.getexif()[MAKE] == "Canon"
    for variant in (root / "output/blog/2025/p").glob("where.*.webp"):
        with Image.open(variant) as im:
            assert not im.getexif().get_ifd(GPS)


def test_an_image_shared_by_two_posts_through_images_is_published_once(tmp_path):
    root = make_site(tmp_path / "site")
    save_jpeg(root / "content/images/shared.jpg", (1000, 800))
    write_post(root, "one.md", "title: One\ndate: 2025-01-01", "![s](/images/shared.jpg)\n")
    write_post(root, "two.md", "title: Two\ndate: 2025-01-02", "::: gallery\n![s](../images/shared.jpg)\n:::\n")
    result = build(root)
    assert result.images == 1
    out = root / "output"
    assert sorted(image_files(out)) == ["images/shared.480w.webp", "images/shared.800w.webp", "images/shared.jpg"]
    for url in ("/blog/2025/one/", "/blog/2025/two/"):
        img = body(root, url).img
        assert img["src"] == "/images/shared.jpg"
        assert (
            img.find_previous_sibling("source")["srcset"]
            == "/images/shared.480w.webp 480w, /images/shared.800w.webp 800w"
        )


# --- cache and incremental rebuilds -------------------------------------------------------------------------


def two_posts(root: Path) -> Path:
    save_jpeg(root / POSTS / "a.jpg", (1000, 750))
    save_jpeg(root / POSTS / "b.jpg", (900, 600))
    write_post(root, "one.md", "title: One\ndate: 2025-01-01", "::: gallery\n![a](a.jpg)\n:::\n")
    write_post(root, "two.md", "title: Two\ndate: 2025-01-02", "::: gallery\n![b](b.jpg)\n:::\n")
    return root


def test_a_rebuild_with_unchanged_images_does_no_image_work_and_rewrites_no_image_file(tmp_path):
    root = two_posts(make_site(tmp_path / "site"))
    first = build(root)
    assert first.images == 2
    out_before, cache_before = stats(root / "output"), stats(root / IMAGE_CACHE)
    assert len(out_before) == 6
    second = build(root)
    assert second.images == 0
    assert second.fragments_rendered == 0
    assert not [p for p in second.changed_paths if p.endswith(IMAGE_SUFFIXES)]
    assert stats(root / "output") == out_before
    assert stats(root / IMAGE_CACHE) == cache_before


def test_touching_one_image_reprocesses_only_it_and_rerenders_only_its_post(tmp_path):
    root = two_posts(make_site(tmp_path / "site"))
    build(root)
    before = stats(root / "output")
    bump_mtime(root / POSTS / "a.jpg")
    result = build(root)
    assert result.images == 1
    assert result.fragments_rendered == 1
    after = stats(root / "output")
    assert {rel for rel in after if after[rel] != before[rel]} == {
        "blog/2025/one/a.jpg",
        "blog/2025/one/a.480w.webp",
        "blog/2025/one/a.800w.webp",
    }
    again = build(root)
    assert again.images == 0 and again.fragments_rendered == 0


def test_replacing_a_photo_by_one_of_other_dimensions_updates_the_page_and_the_variants(tmp_path):
    root = two_posts(make_site(tmp_path / "site"))
    build(root)
    img = body(root, "/blog/2025/one/").img
    assert (img["width"], img["height"]) == ("1000", "750")
    src = root / POSTS / "a.jpg"
    save_jpeg(src, (600, 900))
    bump_mtime(src)
    result = build(root)
    assert result.images == 1
    img = body(root, "/blog/2025/one/").img
    assert (img["width"], img["height"]) == ("600", "900")
    assert img.find_previous_sibling("source")["srcset"] == "/blog/2025/one/a.480w.webp 480w"
    folder = root / "output/blog/2025/one"
    with Image.open(folder / "a.480w.webp") as variant:
        assert variant.size == (480, 720)
    assert not (folder / "a.800w.webp").exists(), "a variant the new photo does not have must be removed"
    assert (folder / "a.jpg").read_bytes() == src.read_bytes()


def test_the_cli_reports_images_processed_only_when_there_were_some(tmp_path):
    root = two_posts(make_site(tmp_path / "site"))
    first = cli_build(root, "-v")
    assert first.returncode == 0, first.stderr
    assert re.search(r", 2 images processed\b", first.stdout), first.stdout
    assert re.search(r"\bimages \d+\.\d\ds\b", first.stdout), first.stdout
    second = cli_build(root)
    assert second.returncode == 0, second.stderr
    assert "images processed" not in second.stdout


# --- bad input ----------------------------------------------------------------------------------------------


def truncated_jpeg(path: Path) -> Path:
    im = Image.effect_noise((900, 600), 60).convert("RGB")  # noise: every part of the file holds pixels
    im.save(path, "JPEG", quality=90)
    data = path.read_bytes()
    path.write_bytes(data[: len(data) // 2])
    return path


BAD_CASES = {
    # id: (post body, files to make {name below the site root: maker}, text of the error line, regex of the message)
    "missing-image": (
        "::: gallery\n![fresh](fresh.jpg)\n![gone](gone.jpg)\n:::\n",
        {},
        "gone.jpg",
        r"gone\.jpg.*not found",
    ),
    "missing-lone-image": ("Text.\n\n![gone](gone.jpg)\n", {}, "gone.jpg", r"gone\.jpg.*not found"),
    "missing-under-images": (
        "![fresh](fresh.jpg)\n\n![x](/images/nope.jpg)\n",
        {},
        "nope.jpg",
        r"nope\.jpg.*not found",
    ),
    "not-an-image": (
        "::: gallery\n![fresh](fresh.jpg)\n![notes](notes.jpg)\n:::\n",
        {"content/posts/notes.jpg": lambda p: p.write_text("just some text\n")},
        "notes.jpg",
        r"notes\.jpg.*not an image",
    ),
    "empty-file": (
        "::: gallery\n![fresh](fresh.jpg)\n![empty](empty.png)\n:::\n",
        {"content/posts/empty.png": lambda p: p.write_bytes(b"")},
        "empty.png",
        r"empty\.png.*not an image",
    ),
    "truncated-jpeg": (
        "::: gallery\n![fresh](fresh.jpg)\n![cut](cut.jpg)\n:::\n",
        {"content/posts/cut.jpg": truncated_jpeg},
        "cut.jpg",
        r"cut\.jpg.*truncated",
    ),
    "empty-gallery": ("![fresh](fresh.jpg)\n\n::: gallery\n:::\n", {}, "::: gallery", r"gallery has no image"),
    "gallery-of-text": (
        "![fresh](fresh.jpg)\n\n::: gallery\nJust words, no pictures.\n:::\n",
        {},
        "::: gallery",
        r"gallery has no image",
    ),
    "unknown-layout": (
        "::: gallery carousel\n![fresh](fresh.jpg)\n:::\n",
        {},
        "::: gallery",
        r"unknown gallery layout 'carousel'",
    ),
    "outside-content": (
        "![fresh](fresh.jpg)\n\n![secret](../../secret.jpg)\n",
        {"secret.jpg": save_jpeg},
        "secret.jpg",
        r"outside content/",
    ),
    "outside-content-from-root": (
        "![fresh](fresh.jpg)\n\n![secret](/../secret.jpg)\n",
        {"secret.jpg": save_jpeg},
        "secret.jpg",
        r"outside content/",
    ),
}


@pytest.fixture()
def good_site(tmp_path: Path) -> Path:
    """A site built once, with a gallery, so that a failing build has an output to leave alone."""
    root = make_site(tmp_path / "site")
    save_jpeg(root / POSTS / "g1.jpg", (1000, 750))
    save_png(root / POSTS / "g2.png", (500, 500))
    write_post(root, "good.md", "title: Good\ndate: 2024-06-01", "::: gallery\n![g1](g1.jpg)\n![g2](g2.png)\n:::\n")
    proc = cli_build(root)
    assert proc.returncode == 0, proc.stderr
    return root


def add_bad_post(root: Path, case: str) -> tuple[Path, int, str]:
    text, files, needle, message = BAD_CASES[case]
    save_jpeg(root / POSTS / "fresh.jpg", (1600, 1200))  # a good new image next to the bad input
    for name, make in files.items():
        make(root / name)
    post = write_post(root, "bad.md", "title: Bad\ndate: 2025-02-03", "Some words first.\n\n" + text)
    return post, line_of(post, needle), message


SHOWN_AS_ALT_TEXT = {  # the page shows the image's alt text and why, in a marked note
    "missing-image": "gone",
    "missing-lone-image": "gone",
    "missing-under-images": "x",
    "not-an-image": "notes",
    "empty-file": "empty",
    "outside-content": "secret",
    "outside-content-from-root": "secret",
}


@pytest.mark.parametrize("case", sorted(BAD_CASES))
def test_a_bad_image_or_gallery_is_a_warning_at_its_line_and_the_site_still_builds(good_site, case):
    before = snapshot(good_site)
    assert before["files"] and before["siblings"] == []
    _, line, message = add_bad_post(good_site, case)
    strict = cli_build(good_site, "--strict")  # for CI: the warning is an error and the output stays as it was
    assert strict.returncode == 1, strict.stderr
    assert "Traceback" not in strict.stderr
    assert re.search(rf"^error: content/posts/bad\.md:{line}: .*{message}", strict.stderr, re.M), strict.stderr
    assert snapshot(good_site) == before
    proc = cli_build(good_site)
    assert proc.returncode == 0, proc.stderr
    warnings = [w for w in proc.stderr.splitlines() if w.strip()]
    assert len(warnings) == 1 and re.match(rf"warning: content/posts/bad\.md:{line}: .*{message}", warnings[0]), (
        warnings
    )
    assert proc.stdout.rstrip().endswith("1 warning"), proc.stdout
    html = page(good_site, "/blog/2025/bad/")
    assert "Some words first." in html.get_text()
    if "fresh.jpg" in BAD_CASES[case][0]:
        assert image_files(good_site / "output/blog/2025/bad").get("fresh.jpg"), "the post's good image is published"
    alt = SHOWN_AS_ALT_TEXT.get(case)
    if alt is not None:
        note = html.select_one(".image-missing")
        assert note is not None and note.select_one(".image-missing-alt").get_text() == alt
        assert re.search(message, note.select_one(".image-missing-reason").get_text())
    if case.startswith("outside-content"):
        assert not any("secret" in rel for rel in image_files(good_site / "output"))


def test_a_missing_image_added_later_shows_on_the_next_build(good_site):
    _post, _, _ = add_bad_post(good_site, "missing-lone-image")
    assert cli_build(good_site).returncode == 0
    assert page(good_site, "/blog/2025/bad/").select_one(".image-missing") is not None
    save_jpeg(good_site / POSTS / "gone.jpg", (640, 480))
    proc = cli_build(good_site)
    assert proc.returncode == 0 and "warning" not in proc.stderr + proc.stdout, proc.stderr
    html = page(good_site, "/blog/2025/bad/")
    assert html.select_one(".image-missing") is None
    assert html.select_one('img[alt="gone"]')["width"] == "640"
    assert "gone.jpg" in image_files(good_site / "output/blog/2025/bad")


@pytest.mark.parametrize("case", ["missing-image", "truncated-jpeg", "empty-gallery"])
def test_a_failing_strict_first_build_writes_no_output_at_all(tmp_path, case):
    root = make_site(tmp_path / "site")
    write_post(root, "fine.md", "title: Fine\ndate: 2024-01-01", "![ok](ok.jpg)\n")
    save_jpeg(root / POSTS / "ok.jpg", (800, 600))
    _, line, message = add_bad_post(root, case)
    proc = cli_build(root, "--strict")
    assert proc.returncode == 1, proc.stderr
    assert snapshot(root) == {"files": None, "dirs": None, "siblings": []}
    assert re.search(rf"^error: content/posts/bad\.md:{line}: .*{message}", proc.stderr, re.M), proc.stderr


def test_one_truncated_image_among_good_ones_is_left_out_and_the_others_publish(good_site):
    for n in range(4):
        save_jpeg(good_site / POSTS / f"new{n}.jpg", (700 + 100 * n, 500))
    truncated_jpeg(good_site / POSTS / "cut.jpg")
    lines = (
        "".join(f"![new{n}](new{n}.jpg)\n" for n in range(2))
        + "![cut](cut.jpg)\n"
        + "".join(f"![new{n}](new{n}.jpg)\n" for n in range(2, 4))
    )
    post = write_post(good_site, "many.md", "title: Many\ndate: 2025-05-05", "::: gallery\n" + lines + ":::\n")
    proc = cli_build(good_site)
    assert proc.returncode == 0, proc.stderr
    line = line_of(post, "cut.jpg")
    assert re.search(rf"^warning: content/posts/many\.md:{line}: image cut\.jpg: truncated", proc.stderr, re.M)
    names = {p.name for p in image_files(good_site / "output/blog/2025/many").values()}
    assert {"new0.jpg", "new3.800w.webp"} <= names and not any(n.startswith("cut") for n in names)
    # once fixed, the build publishes it
    save_jpeg(good_site / POSTS / "cut.jpg", (640, 480))
    proc = cli_build(good_site)
    assert proc.returncode == 0 and "warning" not in proc.stderr, proc.stderr
    names = {p.name for p in image_files(good_site / "output/blog/2025/many").values()}
    assert {"cut.jpg", "cut.480w.webp", "new0.jpg", "new3.800w.webp"} <= names


def test_translations_with_the_same_photos_each_link_their_own_copies(tmp_path):
    """Two posts with the same Markdown (a post and its translation) must not share one rendered fragment."""
    from helpers import make_site, run_cli, write_post
    from PIL import Image

    root = make_site(tmp_path / "site", "title: T\nurl: https://example.org\nlanguages:\n  en: {}\n  zh: {}\n")
    (root / "content/posts/photos").mkdir(parents=True)
    Image.new("RGB", (900, 600), (10, 120, 200)).save(root / "content/posts/photos/p1.jpg")
    body = "::: gallery\n![One](photos/p1.jpg)\n![One again](photos/p1.jpg)\n:::\n"
    write_post(root, "trip.md", "title: Trip\ndate: 2025-01-01", body)
    write_post(root, "trip.zh.md", "title: 旅行\ndate: 2025-01-01", body)
    run_cli("build", "--source", str(root), check=True)
    for page, folder in (
        ("blog/2025/trip/index.html", "/blog/2025/trip/"),
        ("zh/blog/2025/trip/index.html", "/zh/blog/2025/trip/"),
    ):
        html = (root / "output" / page).read_text(encoding="utf-8")
        srcs = re.findall(r'<img src="([^"]+)"', html)
        assert srcs and all(src.startswith(folder) for src in srcs), (page, srcs)
        assert (root / "output" / srcs[0].lstrip("/")).exists()
