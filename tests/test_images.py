"""Gallery images: WebP variants at the right sizes, EXIF orientation applied, GPS never published, cached,
errors in place.

Every test makes real image files with Pillow in tmp_path and looks at the files a reader would download.
"""

from __future__ import annotations

import os
import struct
from pathlib import Path

import pytest
from PIL import Image, ImageCms

from site_builder.images import (
    WIDTHS,
    ImageError,
    ImageInfo,
    probe,
    process,
    process_all,
    variant_name,
)

MAKE, MODEL, ORIENTATION, GPS = 0x010F, 0x0110, 0x0112, 0x8825
BERLIN = {1: "N", 2: (52.0, 31.0, 12.0), 3: "E", 4: (13.0, 24.0, 18.0)}


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


def save_jpeg(path: Path, size=(400, 300), exif: dict | None = None, **params) -> Path:
    im = params.pop("image", None) or photo(size)
    if exif is not None:
        e = Image.Exif()
        for tag, value in exif.items():
            e[tag] = value
        params["exif"] = e
    im.save(path, "JPEG", quality=90, **params)
    return path


def webp(path: Path) -> Image.Image:
    im = Image.open(path)
    assert im.format == "WEBP"
    return im


@pytest.fixture()
def cache(tmp_path: Path) -> Path:
    return tmp_path / "cache"


def test_a_large_photo_gets_480_800_and_1400_px_webp_variants(tmp_path, cache):
    src = save_jpeg(tmp_path / "big.jpg", (4000, 3000))
    info = probe(src)
    assert (info.width, info.height, info.format, info.widths, info.clean) == (4000, 3000, "JPEG", WIDTHS, True)
    done = process(info, cache)
    assert done.worked and done.original == src
    assert sorted(done.variants) == [480, 800, 1400]
    for width, file in done.variants.items():
        assert file.name == f"big.{width}w.webp"
        assert webp(file).size == (width, width * 3 // 4)
    assert [p.name for p in cache.rglob("*") if p.is_file() and "tmp" in p.name] == []


def test_a_narrow_image_gets_only_the_widths_it_has_and_is_never_upscaled(tmp_path, cache):
    wide = tmp_path / "wide.png"
    photo((600, 400)).save(wide)
    tiny = tmp_path / "tiny.png"
    photo((300, 200)).save(tiny)
    assert probe(wide).widths == (480,)
    assert {w: webp(f).size for w, f in process(probe(wide), cache).variants.items()} == {480: (480, 320)}
    assert probe(tiny).widths == (300,)
    assert {w: webp(f).size for w, f in process(probe(tiny), cache).variants.items()} == {300: (300, 200)}


def test_transparency_survives_in_the_webp(tmp_path, cache):
    rgba = Image.new("RGBA", (500, 200), (200, 30, 30, 255))
    rgba.paste((0, 0, 0, 0), (0, 0, 250, 200))  # left half fully transparent
    rgba.save(tmp_path / "logo.png")
    out = webp(process(probe(tmp_path / "logo.png"), cache).variants[480])
    assert out.mode == "RGBA"
    assert out.getpixel((10, 100))[3] == 0 and out.getpixel((470, 100))[3] == 255

    palette = Image.new("P", (100, 100), 1)
    palette.putpalette([0, 0, 0, 255, 0, 0])
    palette.paste(0, (0, 0, 50, 100))
    palette.save(tmp_path / "sprite.gif", transparency=0)
    out = webp(process(probe(tmp_path / "sprite.gif"), cache).variants[100])
    r, g, b, a = out.getpixel((90, 50))
    assert (
        out.mode == "RGBA"
        and out.getpixel((10, 50))[3] == 0
        and (a, r > 240, g < 15, b < 15) == (255, True, True, True)
    )


def test_an_animated_gif_shows_its_first_frame(tmp_path, cache):
    frames = [Image.new("RGB", (120, 80), color) for color in ((255, 0, 0), (0, 0, 255))]
    frames[0].save(tmp_path / "anim.gif", save_all=True, append_images=frames[1:], duration=100, loop=0)
    info = probe(tmp_path / "anim.gif")
    assert (info.format, info.width, info.height, info.clean) == ("GIF", 120, 80, True)
    r, _g, b = webp(process(info, cache).variants[120]).convert("RGB").getpixel((60, 40))
    assert r > 200 and b < 60


def test_cmyk_and_16_bit_gray_come_out_as_normal_rgb(tmp_path, cache):
    Image.new("CMYK", (200, 100), (0, 255, 255, 0)).save(tmp_path / "print.jpg")  # red in ink
    r, g, b = webp(process(probe(tmp_path / "print.jpg"), cache).variants[200]).getpixel((100, 50))
    assert r > 200 and g < 60 and b < 60
    Image.new("I;16", (200, 100), 32768).save(tmp_path / "scan.png")  # mid gray in 16 bits
    r, g, b = webp(process(probe(tmp_path / "scan.png"), cache).variants[200]).getpixel((100, 50))
    assert 110 < r < 145 and abs(r - g) < 5 and abs(r - b) < 5


def test_exif_orientation_is_applied_to_variants_and_the_published_original(tmp_path, cache):
    im = photo((400, 300))
    im.paste((255, 0, 0), (0, 0, 60, 60))  # red top-left as stored; orientation 6 = rotate 90 degrees clockwise
    src = save_jpeg(tmp_path / "phone.jpg", exif={ORIENTATION: 6, MAKE: "Phone"}, image=im)
    info = probe(src)
    assert (info.width, info.height, info.widths, info.clean) == (300, 400, (300,), False)
    done = process(info, cache)
    variant = webp(done.variants[300])
    assert variant.size == (300, 400)
    r, g, b = variant.convert("RGB").getpixel((270, 30))  # red is now top-right
    assert r > 200 and g < 60 and b < 60
    assert done.original != src and done.original.name == "phone.jpg"
    with Image.open(done.original) as original:
        assert original.format == "JPEG" and original.size == (300, 400)
        assert ORIENTATION not in original.getexif()
        assert original.getexif()[MAKE] == "Phone"
        assert original.getpixel((270, 30))[0] > 200


def test_gps_is_stripped_from_the_published_original_but_other_exif_and_icc_stay(tmp_path, cache):
    icc = ImageCms.ImageCmsProfile(ImageCms.createProfile("sRGB")).tobytes()
    src = save_jpeg(tmp_path / "trip.jpg", exif={MAKE: "Canon", MODEL: "EOS R6", GPS: BERLIN}, icc_profile=icc)
    with Image.open(src) as before:
        assert before.getexif().get_ifd(GPS)  # the test photo really carries a location
    info = probe(src)
    assert info.clean is False
    done = process(info, cache)
    assert done.original != src and done.original.is_relative_to(cache)
    with Image.open(done.original) as published:
        exif = published.getexif()
        assert published.format == "JPEG" and published.size == (400, 300)
        assert exif.get_ifd(GPS) == {} and GPS not in exif
        assert (exif[MAKE], exif[MODEL]) == ("Canon", "EOS R6")
        assert published.info.get("icc_profile") == icc
    for file in done.variants.values():
        with Image.open(file) as variant:
            assert not variant.getexif().get_ifd(GPS)
    assert b"EOS R6" not in done.variants[400].read_bytes()  # variants carry no EXIF at all


def test_gps_after_the_pixel_data_of_a_png_is_found_too(tmp_path, cache):
    exif = Image.Exif()
    exif[GPS] = BERLIN
    photo((100, 80)).save(tmp_path / "map.png", exif=exif)
    data = (tmp_path / "map.png").read_bytes()
    chunks, pos = [], 8
    while pos < len(data):
        length, kind = struct.unpack(">I4s", data[pos : pos + 8])
        chunks.append((kind, data[pos : pos + 12 + length]))
        pos += 12 + length
    exif_chunk = next(c for k, c in chunks if k == b"eXIf")
    rest = [c for k, c in chunks if k not in (b"eXIf", b"IEND")]
    (tmp_path / "map.png").write_bytes(data[:8] + b"".join(rest) + exif_chunk + chunks[-1][1])
    info = probe(tmp_path / "map.png")
    assert info.clean is False
    with Image.open(process(info, cache).original) as published:
        assert published.format == "PNG" and not published.getexif().get_ifd(GPS)


def test_gps_in_xmp_or_in_a_camera_mpo_file_is_stripped_too(tmp_path, cache):
    xmp = (
        b'<x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#">'
        b'<rdf:Description xmlns:exif="http://ns.adobe.com/exif/1.0/" exif:GPSLatitude="52,31.2N" '
        b'exif:GPSLongitude="13,24.3E"/></rdf:RDF></x:xmpmeta>'
    )
    src = save_jpeg(tmp_path / "edited.jpg", exif={MAKE: "Canon"}, xmp=xmp)
    info = probe(src)
    assert info.clean is False
    published = process(info, cache).original
    assert b"GPSLatitude" not in published.read_bytes()
    assert Image.open(published).getexif()[MAKE] == "Canon"

    exif = Image.Exif()
    exif[GPS] = BERLIN
    photo((400, 300)).save(tmp_path / "stereo.jpg", "MPO", save_all=True, append_images=[photo((400, 300))], exif=exif)
    info = probe(tmp_path / "stereo.jpg")
    assert (info.format, info.clean) == ("MPO", False)
    with Image.open(process(info, cache).original) as published:
        assert published.format == "JPEG" and not published.getexif().get_ifd(GPS)


def test_a_photo_without_gps_or_rotation_is_published_byte_for_byte(tmp_path, cache):
    src = save_jpeg(tmp_path / "plain.jpg", exif={MAKE: "Canon", ORIENTATION: 1})
    versioned = save_jpeg(tmp_path / "gps-off.jpg", exif={GPS: {0: b"\x02\x02\x00\x00"}})  # GPS IFD, no location
    for path in (src, versioned):
        info = probe(path)
        assert info.clean is True
        assert process(info, cache).original == path


def mtimes(processed) -> dict:
    return {f: f.stat().st_mtime_ns for f in [*processed.variants.values(), processed.original]}


def test_unchanged_images_come_from_the_cache_and_a_touched_one_is_redone(tmp_path, cache):
    src = save_jpeg(tmp_path / "trip.jpg", (900, 600), exif={GPS: BERLIN})
    first = process(probe(src), cache)
    before = mtimes(first)
    again = process(probe(src), cache)
    assert again.worked is False and again == first.__class__(first.original, first.variants, False)
    [from_all] = process_all([probe(src)], cache)
    assert from_all.worked is False and from_all.variants == first.variants
    assert mtimes(again) == before

    stat = src.stat()
    os.utime(src, ns=(stat.st_atime_ns, stat.st_mtime_ns + 1_000_000_000))
    redone = process(probe(src), cache)
    assert redone.worked is True and sorted(redone.variants) == [480, 800]
    assert redone.variants[480] != first.variants[480]


def test_unusable_files_give_one_line_errors(tmp_path, cache):
    with pytest.raises(ImageError, match=r"^file not found$"):
        probe(tmp_path / "missing.jpg")
    (tmp_path / "notes.jpg").write_text("these are notes, not a photo\n")
    with pytest.raises(ImageError, match="not an image"):
        probe(tmp_path / "notes.jpg")
    (tmp_path / "folder.jpg").mkdir()
    with pytest.raises(ImageError, match="cannot read"):
        probe(tmp_path / "folder.jpg")

    whole = save_jpeg(tmp_path / "whole.jpg", (800, 600)).read_bytes()
    (tmp_path / "cut.jpg").write_bytes(whole[: len(whole) // 2])
    info = probe(tmp_path / "cut.jpg")  # the header is intact
    with pytest.raises(ImageError, match="truncated") as failure:
        process(info, cache)
    assert "\n" not in str(failure.value) and str(tmp_path) not in str(failure.value)
    assert not any(p.is_file() for p in cache.rglob("*"))  # no half-written files


def test_process_all_keeps_input_order_and_reports_errors_in_place(tmp_path, cache):
    infos: list[ImageInfo] = []
    for i, width in enumerate((300, 320, 340, 360, 380)):
        path = tmp_path / f"img{i}.png"
        photo((width, 100)).save(path)
        infos.append(probe(path))
    whole = save_jpeg(tmp_path / "whole.jpg", (800, 600)).read_bytes()
    (tmp_path / "cut.jpg").write_bytes(whole[: len(whole) // 2])
    infos.insert(2, probe(tmp_path / "cut.jpg"))

    results = process_all(infos, cache)
    assert len(results) == len(infos)
    assert isinstance(results[2], ImageError) and "truncated" in str(results[2])
    for info, result in zip(infos[:2] + infos[3:], results[:2] + results[3:], strict=False):
        assert result.worked is True and result.original == info.path
        [(width, file)] = result.variants.items()
        assert width == info.width and file.name == f"{info.path.stem}.{width}w.webp" and webp(file).width == width

    again = process_all(infos, cache)
    assert [getattr(r, "worked", None) for r in again] == [False, False, None, False, False, False]


def test_variant_names():
    assert variant_name("photo.jpg", 480) == "photo.480w.webp"
    assert variant_name("a.b.PNG", 480) == "a.b.480w.webp"
    assert variant_name("photo", 800) == "photo.800w.webp"
