"""Local images -> WebP variants at 480/800/1400 px (cached, in parallel), with EXIF orientation applied and GPS
stripped."""

from __future__ import annotations

import base64
import html
import io
import math
import os
import re
import struct
import warnings
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path, PurePath
from typing import TYPE_CHECKING, Any

from site_builder.util.files import atomic_file
from site_builder.util.hashing import bytes_digest
from site_builder.util.parallel import fork_map

if TYPE_CHECKING:  # Pillow is imported where an image is read (10 ms of start-up a site without images saves)
    from PIL import Image

IMAGE_VERSION = "1"  # bump when output changes; part of every cache key
WIDTHS = (480, 800, 1400)
WEBP_QUALITY = 80
WEBP_METHOD = 2  # ~2x faster than the default 4 for ~3% larger files
ORIGINAL_QUALITY = 90  # JPEG/WebP quality of a cleaned original
# What browsers show: the original is published as the fallback, so no TIFF, PSD, EPS (Ghostscript), ...
FORMATS = ("JPEG", "PNG", "GIF", "WEBP", "AVIF", "BMP")
SAVE_FORMAT = {"MPO": "JPEG"}  # camera JPEGs with a multi-picture index open as MPO; one frame is a plain JPEG
ORIENTATION = 0x0112
GPS_IFD = 0x8825
SWAPPING_ORIENTATIONS = (5, 6, 7, 8)
MAX_PIXELS = 89_478_485  # Pillow's decompression bomb limit (Image.MAX_IMAGE_PIXELS): nothing larger is decoded


@dataclass
class ImageInfo:
    path: Path  # the source file
    stamp: tuple[Any, ...]  # (st_mtime_ns, st_size) of the source
    width: int  # as displayed, i.e. after EXIF orientation
    height: int
    format: str  # Pillow's format name: "JPEG", "MPO", "PNG", "GIF", "WEBP", "AVIF", "BMP"; "SVG" (svgimage.py)
    widths: tuple[int, ...]  # variant widths to make
    clean: bool  # the original can be published byte for byte (no EXIF/XMP GPS, orientation absent or 1)


@dataclass
class Processed:
    original: Path  # the file to publish as the fallback: info.path when clean, else a cleaned copy in the cache
    variants: dict[int, Path]  # width -> WebP file in the cache
    worked: bool  # False when everything came from the cache (no image was opened)


class ImageError(Exception):
    """Why an image cannot be used, as one short line (no path in it; the caller adds post and line)."""


def _one_line(exc: BaseException) -> str:
    return " ".join(str(exc).split()) or type(exc).__name__


def _os_reason(exc: OSError) -> str:
    return (exc.strerror or _one_line(exc)).lower()


# --- probe ------------------------------------------------------------------------------------------------


def _readable_formats() -> tuple[str, ...]:
    """FORMATS this Pillow build can open (one built without libavif has no AVIF)."""
    from PIL import Image

    Image.init()
    return tuple(f for f in FORMATS if f in Image.OPEN)


def variant_widths(width: int) -> tuple[int, ...]:
    """The WIDTHS no wider than the image; the image's own width when it is narrower than all of them."""
    return tuple(w for w in WIDTHS if w <= width) or (width,)


def _png_exif_after_pixels(path: Path) -> bool:
    """Whether a PNG has an eXIf chunk after its first IDAT (Pillow reads those only when decoding)."""
    seen_idat = False
    with open(path, "rb") as fh:
        fh.seek(8)
        while header := fh.read(8):
            if len(header) < 8:
                return False
            length, kind = struct.unpack(">I4s", header)
            if kind == b"IDAT":
                seen_idat = True
            elif kind == b"eXIf" and seen_idat:
                return True
            elif kind == b"IEND":
                return False
            fh.seek(length + 4, os.SEEK_CUR)
    return False


def _exif(im: Image.Image, path: Path) -> Image.Exif:
    """The image's EXIF without decoding pixels (except a PNG whose EXIF follows its pixel data)."""
    from PIL import Image

    if im.format == "PNG" and "exif" not in im.info and not _png_exif_after_pixels(path):
        return Image.Image.getexif(im)  # PngImageFile.getexif would decode the whole image to look further
    return im.getexif()


def _has_gps(exif: Image.Exif) -> bool:
    """Whether the EXIF has a GPS IFD with anything in it beyond GPSVersionID (some cameras write just that)."""
    if GPS_IFD not in exif:
        return False
    try:
        return any(tag != 0 for tag in exif.get_ifd(GPS_IFD))
    except (OSError, SyntaxError, ValueError, EOFError, struct.error, KeyError, TypeError):
        return True  # unreadable: strip it to be safe


def _xmp_has_gps(info: dict[Any, Any]) -> bool:
    xmp = info.get("xmp") or info.get("XML:com.adobe.xmp") or b""
    xmp = xmp.encode() if isinstance(xmp, str) else xmp
    return b"GPSLatitude" in xmp or b"GPSLongitude" in xmp


def _private(im: Image.Image, exif: Image.Exif) -> bool:
    """Whether the file tells where it was taken: EXIF or XMP GPS, in any frame of a camera's MPO file."""
    if _has_gps(exif) or _xmp_has_gps(im.info):
        return True
    for frame in range(1, getattr(im, "n_frames", 1) if im.format == "MPO" else 1):
        im.seek(frame)  # reads that frame's header only
        if _has_gps(im.getexif()) or _xmp_has_gps(im.info):
            return True
    return False


@contextmanager
def _open(path: Path) -> Iterator[Image.Image]:
    """Image.open without Pillow's DecompressionBombWarning on stderr: an image over MAX_PIXELS is refused instead."""
    from PIL import Image

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", Image.DecompressionBombWarning)
        im = Image.open(path, formats=_readable_formats())
    with im:
        yield im


def _too_large(pixels: int, size: tuple[int, int] | None = None) -> ImageError:
    shown = f"{size[0]}x{size[1]} = " if size else ""
    return ImageError(
        f"too large: {shown}{pixels:,} pixels, more than the {MAX_PIXELS:,} an image may have (a decompression bomb?)"
    )


def _bomb(exc: Image.DecompressionBombError) -> ImageError:
    found = re.search(r"\((\d+) pixels\)", str(exc))
    return _too_large(int(found.group(1))) if found else ImageError(f"too large: {_one_line(exc)}")


def probe(path: Path) -> ImageInfo:
    """Size, format and privacy of an image from its header; raises ImageError for anything unusable (an image
    of more than MAX_PIXELS included: it is never decoded)."""
    from PIL import Image, UnidentifiedImageError

    path = Path(path)
    try:
        st = path.stat()
        with _open(path) as im:
            width, height = im.size
            if width * height > MAX_PIXELS:
                raise _too_large(width * height, im.size)
            exif = _exif(im, path)
            orientation = exif.get(ORIENTATION, 1)
            private = _private(im, exif)
            fmt = im.format or ""
    except FileNotFoundError:
        raise ImageError("file not found") from None
    except UnidentifiedImageError:
        raise ImageError("not an image Pillow can read as " + ", ".join(FORMATS[:-1]) + " or " + FORMATS[-1]) from None
    except Image.DecompressionBombError as exc:
        raise _bomb(exc) from None
    except OSError as exc:
        raise ImageError(f"cannot read: {_os_reason(exc)}") from None
    except (SyntaxError, ValueError, EOFError, struct.error) as exc:
        raise ImageError(f"cannot read: {_one_line(exc)}") from None
    if orientation in SWAPPING_ORIENTATIONS:
        width, height = height, width
    clean = not private and orientation in (1, None)
    return ImageInfo(path, (st.st_mtime_ns, st.st_size), width, height, fmt, variant_widths(width), clean)


def resolves_inside(path: str | os.PathLike[str], folder: str | os.PathLike[str]) -> bool:
    """Whether `path`, links followed, lies inside `folder`: a link in content/ never publishes a file elsewhere."""
    return Path(os.path.realpath(path)).is_relative_to(os.path.realpath(folder))


_SVG_XMLNS = ' xmlns="http://www.w3.org/2000/svg"'


def svg_image(svg: str, alt: str = "") -> str:
    """An untrusted SVG (a value's `_repr_svg_`, a notebook's stored output, a figure from a run or its cache) as an
    `<img>` of a `data:` URL: a browser runs no script and loads nothing in an image, whatever the SVG holds, so
    nothing of it is cleaned or inlined. The SVG is taken from its first `<svg` to its last `</svg>`; "" when it
    has none. An image needs the SVG namespace, added when the root element lacks it."""
    start, end = svg.find("<svg"), svg.rfind("</svg>")
    if start < 0 or end < start:
        return ""
    svg = svg[start : end + len("</svg>")]
    head = svg[: svg.find(">") + 1]
    if "xmlns=" not in head and "xmlns =" not in head:
        svg = "<svg" + _SVG_XMLNS + svg[len("<svg") :]
    data = base64.b64encode(svg.encode("utf-8", "replace")).decode("ascii")
    return f'<img src="data:image/svg+xml;base64,{data}" alt="{html.escape(alt)}">'


# --- names and cache --------------------------------------------------------------------------------------


def variant_name(name: str, width: int) -> str:
    """ "photo.jpg" -> "photo.480w.webp"."""
    return f"{PurePath(name).stem}.{width}w.webp"


def variant_outputs(out: str, widths: tuple[int, ...]) -> list[tuple[str, int]]:
    """Output paths of an image's WebP variants, beside its published original: (path, width)."""
    folder, _, name = out.rpartition("/")
    return [(f"{folder}/{variant_name(name, w)}" if folder else variant_name(name, w), w) for w in widths]


def cache_key(info: ImageInfo) -> str:
    settings = (str(info.path), tuple(info.stamp), IMAGE_VERSION, WIDTHS, WEBP_QUALITY, WEBP_METHOD, ORIGINAL_QUALITY)
    return bytes_digest(repr(settings).encode())


def _planned(info: ImageInfo, cache_dir: Path) -> Processed:
    """Where process() puts this image's files (whether or not they exist yet)."""
    key = cache_key(info)
    folder = Path(cache_dir) / key[:2] / key
    original = info.path if info.clean else folder / info.path.name
    variants = {w: folder / variant_name(info.path.name, w) for w in info.widths}
    return Processed(original, variants, worked=True)


def _cached(planned: Processed, info: ImageInfo) -> Processed | None:
    files = list(planned.variants.values()) + ([] if info.clean else [planned.original])
    if all(os.path.exists(f) for f in files):
        return Processed(planned.original, planned.variants, worked=False)
    return None


def _save_atomically(im: Image.Image, target: Path, fmt: str, **params: Any) -> None:
    target.parent.mkdir(parents=True, exist_ok=True)
    with atomic_file(target) as fh:
        im.save(fh, fmt, **params)


# --- decoding and encoding --------------------------------------------------------------------------------


def _decode_size(im: Image.Image, info: ImageInfo) -> tuple[int, int]:
    """The smallest size (in the file's own orientation) that still covers the widest variant."""
    scale = max(info.widths) / info.width
    return math.ceil(im.size[0] * scale), math.ceil(im.size[1] * scale)


def _load(info: ImageInfo) -> Image.Image:
    """The image fully decoded with its orientation applied: at reduced scale for JPEGs whose original is
    published as is, at full size when a cleaned original must be written too."""
    from PIL import Image, ImageOps, UnidentifiedImageError

    try:
        with _open(info.path) as im:
            if im.size[0] * im.size[1] > MAX_PIXELS:  # replaced since it was probed
                raise _too_large(im.size[0] * im.size[1], im.size)
            if info.clean and im.format in ("JPEG", "MPO"):
                im.draft("RGB", _decode_size(im, info))
            im.load()
            return ImageOps.exif_transpose(im)
    except FileNotFoundError:
        raise ImageError("file not found") from None
    except UnidentifiedImageError:
        raise ImageError("not an image Pillow can read any more (changed since it was probed?)") from None
    except Image.DecompressionBombError as exc:
        raise _bomb(exc) from None
    except (OSError, SyntaxError, ValueError, EOFError, struct.error) as exc:
        raise ImageError(f"truncated or corrupt image: {_one_line(exc)}") from None


def _eight_bit(im: Image.Image) -> Image.Image:
    """16-bit and 32-bit grayscale scaled down to 8 bits (a plain convert would clip it to white)."""
    if im.mode not in ("I", "F") and not im.mode.startswith("I;16"):
        return im
    im = im.convert("F") if im.mode == "F" else im.convert("I")
    high = im.getextrema()[1]
    if isinstance(high, (int, float)) and high > 255:
        im = im.point(lambda v: v * (255.0 / 65535.0))
    return im.convert("L")


def _for_webp(im: Image.Image) -> tuple[Image.Image, bytes | None]:
    """The image in a mode WebP stores (RGB, or RGBA when it has transparency) and the ICC profile to keep."""
    from PIL import ImageCms

    icc = im.info.get("icc_profile")
    im = _eight_bit(im)
    if im.mode == "CMYK" and icc:
        try:
            converted = ImageCms.profileToProfile(
                im, ImageCms.ImageCmsProfile(io.BytesIO(icc)), ImageCms.createProfile("sRGB"), outputMode="RGB"
            )
            if converted is not None:
                return converted, None
        except (ImageCms.PyCMSError, OSError, ValueError):
            pass
    if im.mode not in ("RGB", "RGBA", "RGBX", "RGBa", "P", "PA"):
        icc = None  # a gray, CMYK or Lab profile does not describe the RGB pixels written
    if im.mode in ("RGBA", "LA", "PA", "La", "RGBa") or im.has_transparency_data:
        return (im if im.mode == "RGBA" else im.convert("RGBA")), icc
    return (im if im.mode == "RGB" else im.convert("RGB")), icc


def _write_variants(im: Image.Image, info: ImageInfo, planned: Processed) -> None:
    """Each variant resized from the next larger one (the widest from the decoded image); never upscaled."""
    from PIL import Image

    im, icc = _for_webp(im)
    extra = {"icc_profile": icc} if icc else {}
    for width in sorted(info.widths, reverse=True):
        height = max(1, round(im.height * width / im.width))
        if (width, height) != im.size:  # a 2x, 4x.. box reduction first, as JPEG draft decoding does
            im = im.resize((width, height), Image.Resampling.LANCZOS, reducing_gap=1.0)
        _save_atomically(im, planned.variants[width], "WEBP", quality=WEBP_QUALITY, method=WEBP_METHOD, **extra)


def _write_clean_original(im: Image.Image, info: ImageInfo, target: Path) -> None:
    """The original in its own format, orientation applied, EXIF kept without GPS and orientation, ICC kept,
    XMP dropped (it may hold GPS too)."""
    fmt = SAVE_FORMAT.get(info.format, info.format)
    params: dict[str, Any] = {"quality": ORIGINAL_QUALITY} if fmt in ("JPEG", "WEBP", "AVIF") else {}
    if icc := im.info.get("icc_profile"):
        params["icc_profile"] = icc
    try:
        exif = im.getexif()
        exif.pop(GPS_IFD, None)
        exif.pop(ORIENTATION, None)
        params["exif"] = exif.tobytes()
        _save_atomically(im, target, fmt, **params)
    except (ValueError, TypeError, struct.error) as exc:  # EXIF Pillow cannot write back, e.g. too long
        raise ImageError(f"cannot write a copy without GPS: {_one_line(exc)}") from None


def process(info: ImageInfo, cache_dir: Path) -> Processed:
    """The WebP variants (and a cleaned original when needed) of a probed image, from the cache when there."""
    planned = _planned(info, cache_dir)
    if cached := _cached(planned, info):
        return cached
    im = _load(info)
    if not info.clean:
        _write_clean_original(im, info, planned.original)
    _write_variants(im, info, planned)
    return planned


def _process_or_error(info: ImageInfo, cache_dir: Path) -> Processed | ImageError:
    try:
        return process(info, cache_dir)
    except ImageError as exc:
        return exc


def process_all(infos: list[ImageInfo], cache_dir: Path) -> list[Processed | ImageError]:
    """process() over every image, in input order; uncached ones on all cores; errors returned in place."""
    results: list[Any] = []
    todo: list[int] = []
    for i, info in enumerate(infos):
        results.append(_cached(_planned(info, cache_dir), info))
        if results[-1] is None:
            todo.append(i)
    if todo:
        done = fork_map(
            lambda chunk: [_process_or_error(info, cache_dir) for info in chunk],
            [infos[i] for i in todo],
            min_per_worker=1,
        )
        for i, result in zip(todo, done, strict=False):
            results[i] = result
    return results
