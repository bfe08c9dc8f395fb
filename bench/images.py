"""Benchmark: a site of camera-sized photos in galleries, built cold and rebuilt; print seconds per stage.

Usage: python bench/images.py [--photos 100] [--per-post 10] [--size 4000x3000] [--photo-cache DIR] [--phone-exif] [--keep]

The photos (smooth gradients and soft shapes under moderate noise, JPEG quality 90, about 2-4 MB each) are made
once into --photo-cache and reused by later runs; making them is not measured. Each run copies them into a fresh
temporary site (posts of one `::: gallery` each) and times `site_builder.build.build_site` in this process:
  cold       first build: no .cache/, no output/
  unchanged  the same build again: should do no image work
  touch 1    one photo's mtime moved: should process that photo only
Target (from the issue): cold < 60 s on 2 cores; unchanged: 0 images processed and < 1 s.
"""

from __future__ import annotations

import argparse
import multiprocessing
import os
import platform
import random
import resource
import shutil
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

import PIL
from PIL import Image, ImageChops, ImageDraw, ImageFilter

from site_builder.build import build_site

sys.path.insert(0, str(Path(__file__).resolve().parent))
from build import cpu_name

PHOTO_VERSION = "1"  # bump when the generated photos change, so cached ones are not reused
STAGES = ("load+render", "pages", "images", "commit")


# --- photos ---------------------------------------------------------------------------------------------------


def make_photo(args: tuple[Path, int, int, int]) -> None:
    """A camera-like JPEG: gradients in three directions, a few blurred shapes, per-channel noise."""
    path, seed, width, height = args
    rng = random.Random(seed)
    gradient = Image.linear_gradient("L")
    channels = [
        gradient.rotate(rng.uniform(0, 360)).resize((width, height), Image.Resampling.BILINEAR) for _ in range(2)
    ] + [Image.radial_gradient("L").resize((width, height), Image.Resampling.BILINEAR)]
    base = Image.merge("RGB", channels)
    shapes = Image.new("RGB", (width // 8, height // 8), (128, 128, 128))  # drawn small, blurred, scaled up: cheap
    draw = ImageDraw.Draw(shapes)
    for _ in range(rng.randint(4, 9)):
        x, y = rng.randrange(shapes.width), rng.randrange(shapes.height)
        r = rng.randint(shapes.width // 20, shapes.width // 4)
        draw.ellipse((x - r, y - r, x + r, y + r), fill=tuple(rng.randrange(256) for _ in range(3)))
    shapes = shapes.filter(ImageFilter.GaussianBlur(6)).resize((width, height), Image.Resampling.BILINEAR)
    im = Image.blend(base, shapes, 0.5)
    sigma = rng.uniform(6.0, 10.0)  # about 2.3 to 3.5 MB at 4000x3000, quality 90
    noise = Image.merge("RGB", [Image.effect_noise((width, height), sigma) for _ in range(3)])
    im = ImageChops.add(im, noise, 1.0, -128)
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    im.save(tmp, "JPEG", quality=90)
    os.replace(tmp, path)


def photos(cache: Path, count: int, width: int, height: int) -> list[Path]:
    """`count` photos in `cache` (kept between runs); only the missing ones are made, on every core."""
    folder = cache / f"v{PHOTO_VERSION}-{width}x{height}-q90"
    folder.mkdir(parents=True, exist_ok=True)
    paths = [folder / f"photo-{i:03d}.jpg" for i in range(count)]
    missing = [(p, i, width, height) for i, p in enumerate(paths) if not p.exists()]
    if missing:
        start = time.perf_counter()
        print(f"making {len(missing)} photos of {width}x{height} in {folder} (once; not measured)...", flush=True)
        with multiprocessing.get_context("fork").Pool() as pool:
            pool.map(make_photo, missing, chunksize=1)
        print(f"  made in {time.perf_counter() - start:.1f}s", flush=True)
    return paths


# --- site -----------------------------------------------------------------------------------------------------


def phone_exif(data: bytes) -> bytes:
    """The JPEG with an EXIF block like a phone's (orientation 6, GPS) inserted after JFIF, pixels untouched."""
    exif = Image.Exif()
    exif[0x010F], exif[0x0112] = "Phone", 6
    exif[0x8825] = {1: "N", 2: (52.0, 31.0, 12.0), 3: "E", 4: (13.0, 24.0, 18.0)}
    block = exif.tobytes()  # b"Exif\0\0" + TIFF
    app0_end = 4 + int.from_bytes(data[4:6], "big") if data[2:4] == b"\xff\xe0" else 2
    return data[:app0_end] + b"\xff\xe1" + (len(block) + 2).to_bytes(2, "big") + block + data[app0_end:]


def make_site(root: Path, sources: list[Path], per_post: int, phone: bool = False) -> list[Path]:
    """Posts of one gallery each, with their photos next to them; returns the photos in the site."""
    posts = root / "content" / "posts"
    posts.mkdir(parents=True)
    (root / "site.yml").write_text("title: Photo bench\nurl: https://bench.example\n")
    copies = []
    for src in sources:
        dest = posts / src.name
        if phone:
            dest.write_bytes(phone_exif(src.read_bytes()))
        else:
            shutil.copyfile(src, dest)  # a copy: touching one must not touch the cached photo
        copies.append(dest)
    for n, start in enumerate(range(0, len(copies), per_post)):
        items = "".join(
            f"![Photo {i} of a trip](photo-{i:03d}.jpg)\n" for i in range(start, min(start + per_post, len(copies)))
        )
        (posts / f"trip-{n:02d}.md").write_text(
            f"---\ntitle: Trip {n}\ndate: 2025-{1 + n % 12:02d}-{1 + n % 28:02d}\ntags: [photos]\n---\n\n"
            f"Day {n} of the trip.\n\n::: gallery\n{items}:::\n: Day {n}\n"
        )
    return copies


def run(root: Path) -> dict:
    start = time.perf_counter()
    result = build_site(root, Path("output"))
    wall = time.perf_counter() - start
    return {
        "wall": wall,
        "processed": result.images,
        "files": result.files_changed,
        "rendered": result.fragments_rendered,
        **{stage: result.timings.get(stage, 0.0) for stage in STAGES},
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--photos", type=int, default=100, help="number of photos (default: 100)")
    parser.add_argument("--per-post", type=int, default=10, help="photos per post's gallery (default: 10)")
    parser.add_argument("--size", default="4000x3000", help="photo size WxH (default: 4000x3000)")
    parser.add_argument(
        "--photo-cache",
        type=Path,
        default=Path(tempfile.gettempdir()) / "site-builder-bench-photos",
        help="where the generated photos are kept between runs",
    )
    parser.add_argument(
        "--phone-exif",
        action="store_true",
        help="give the photos a phone's EXIF (orientation 6 and GPS): every original is then re-encoded "
        "upright without GPS, the slow path",
    )
    parser.add_argument("--keep", action="store_true", help="keep the temporary site and print its path")
    args = parser.parse_args()
    width, height = (int(v) for v in args.size.lower().split("x"))

    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    print(
        f"machine: {cpu_name()}, {cores} cores usable (nproc), Python {platform.python_version()}, Pillow {PIL.__version__}"
    )
    sources = photos(args.photo_cache, args.photos, width, height)
    sizes = [p.stat().st_size for p in sources]
    print(
        f"photos: {len(sources)} x {width}x{height} JPEG q90, {sum(sizes) / len(sizes) / 1e6:.2f} MB on average "
        f"({min(sizes) / 1e6:.2f}-{max(sizes) / 1e6:.2f}), {sum(sizes) / 1e6:.0f} MB in all; "
        f"{-(-len(sources) // args.per_post)} posts of one gallery"
        + ("; phone EXIF (orientation 6 + GPS)" if args.phone_exif else "; no EXIF (originals published as is)")
    )

    root = Path(tempfile.mkdtemp(prefix="bench-images-"))
    rows = []
    try:
        copies = make_site(root, sources, args.per_post, args.phone_exif)
        rows.append(("cold", run(root)))
        rows.append(("unchanged", run(root)))
        st = copies[0].stat()
        os.utime(copies[0], ns=(st.st_atime_ns, st.st_mtime_ns + 10**9))
        rows.append(("touch 1", run(root)))
        rows.append(("unchanged", run(root)))  # again, after the touched photo was redone
    finally:
        if args.keep:
            print(f"site kept in {root}")
        else:
            shutil.rmtree(root, ignore_errors=True)

    head = f"{'build':<10} {'wall s':>7} {'images':>6} {'posts':>5} {'files':>6}" + "".join(
        f" {s + ' s':>13}" for s in STAGES
    )
    print(head)
    for name, r in rows:
        print(
            f"{name:<10} {r['wall']:>7.2f} {r['processed']:>6} {r['rendered']:>5} {r['files']:>6}"
            + "".join(f" {r[s]:>13.2f}" for s in STAGES)
        )
    peak = max(
        resource.getrusage(resource.RUSAGE_SELF).ru_maxrss, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    )
    print(f"peak RSS (largest process): {peak / 1024:.0f} MiB")
    cold, unchanged = rows[0][1], rows[1][1]
    print(
        f"cold: {cold['wall']:.1f}s for {cold['processed']} images, {cold['processed'] / cold['wall']:.2f} images/s, images stage {cold['images']:.1f}s "
        f"({'within' if cold['wall'] < 60 else 'OVER'} the 60 s target; {cores} cores here)"
    )
    print(
        f"unchanged: {unchanged['wall']:.2f}s, {unchanged['processed']} images processed "
        f"({'within' if unchanged['wall'] < 1 and unchanged['processed'] == 0 else 'MISSES'} the target: 0 images, < 1 s)"
    )
    touched = rows[2][1]
    print(f"touch 1: {touched['processed']} images processed, {touched['rendered']} posts rendered (expected 1 and 1)")


if __name__ == "__main__":
    main()
