"""Image decoding and resizing without a framework (Pillow + NumPy), for the NumPy input pipelines and for reading a
source's image sizes. :func:`resize_bilinear` computes ``tf.image.resize``'s default (bilinear, no antialiasing,
half-pixel centres), so both engines feed the same pixels up to the JPEG decoders' rounding (tested).
"""

from __future__ import annotations

import io
from pathlib import Path

import numpy as np

IMAGE_SUFFIXES = (".jpg", ".jpeg", ".png")


def encoded_bytes(item: str | bytes) -> bytes:
    """The encoded image: ``item`` itself (bytes, e.g. from a TFRecord) or the file at path ``item``."""
    return item if isinstance(item, bytes) else Path(item).read_bytes()


GREY_WEIGHTS = np.array([0.2989, 0.5870, 0.1140], np.float32)  # tf.image.rgb_to_grayscale's


def decode(item: str | bytes, channels: int) -> np.ndarray:
    """One JPEG/PNG image (bytes or a file path) as ``(height, width, channels)``, values 0-255: uint8 in
    colour, float32 in grey (``tf.image.rgb_to_grayscale`` of the colour image; channels 1 or 3)."""
    from PIL import Image

    with Image.open(io.BytesIO(encoded_bytes(item))) as img:
        rgb = np.asarray(img.convert("RGB"))
    return (rgb.astype(np.float32) @ GREY_WEIGHTS)[..., None] if channels == 1 else rgb


def image_size(item: str | bytes) -> tuple[int, int, int]:
    """(height, width, channels) of an encoded image, read from its header (1 for grey, else 3)."""
    from PIL import Image

    with Image.open(io.BytesIO(encoded_bytes(item))) as img:
        return img.height, img.width, 1 if img.mode in ("L", "1", "I;16", "I", "F") else 3


def _weights(out_size: int, in_size: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Lower/upper source indices and interpolation weights (TF's half-pixel-centre bilinear)."""
    pos = (np.arange(out_size, dtype=np.float64) + 0.5) * (in_size / out_size) - 0.5
    floor = np.floor(pos)
    lower = np.maximum(floor, 0).astype(np.int64)
    upper = np.minimum(np.ceil(pos), in_size - 1).astype(np.int64)
    return lower, upper, (pos - floor).astype(np.float32)


def resize_bilinear(img: np.ndarray, height: int, width: int) -> np.ndarray:
    """``img`` (h, w, c) resized to (height, width, c) as float32 in the input's value range, as
    ``tf.image.resize(img, (height, width))`` computes it (bilinear, no antialiasing, half-pixel centres)."""
    if img.shape[:2] == (height, width):
        return img.astype(np.float32)
    top, bottom, dy = _weights(height, img.shape[0])
    left, right, dx = _weights(width, img.shape[1])
    # only the rows and columns the interpolation reads are converted (a 2048 x 1365 photo into 64 x 64 reads
    # 128 x 128 of its pixels)
    cols = np.concatenate([left, right])
    rows_top = img[top][:, cols].astype(np.float32)
    rows_bottom = img[bottom][:, cols].astype(np.float32)
    left, right = np.arange(width), np.arange(width, 2 * width)
    t = rows_top[:, left] + (rows_top[:, right] - rows_top[:, left]) * dx[None, :, None]
    b = rows_bottom[:, left] + (rows_bottom[:, right] - rows_bottom[:, left]) * dx[None, :, None]
    return t + (b - t) * dy[:, None, None]


def encode(img: np.ndarray, fmt: str = "png", quality: int = 95) -> bytes:
    """uint8 ``(h, w, c)`` -> PNG (lossless) or JPEG (``quality``) bytes."""
    from PIL import Image

    arr = img[..., 0] if img.shape[-1] == 1 else img
    buf = io.BytesIO()
    if fmt == "png":
        Image.fromarray(arr).save(buf, format="PNG")
    else:
        Image.fromarray(arr).save(buf, format="JPEG", quality=quality)
    return buf.getvalue()
