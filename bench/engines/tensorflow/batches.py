"""One batch's tensors (imports TensorFlow): the ops every TensorFlow-engine pipeline applies to a batch or an
example, bench's fixed pipelines (:mod:`bench.engines.tensorflow.pipelines`) and the ``autotune`` one as users
write it (:mod:`bench.engines.tensorflow.guide`) alike: gather, convert, augment (as :mod:`bench.data.augment`
computes it), labels as the loss wants them, decode and resize encoded images.
"""

from __future__ import annotations

import tensorflow as tf

from bench.data.augment import crop_pad
from bench.workloads import Workload


def augment(x: tf.Tensor, p: dict[str, tf.Tensor]) -> tf.Tensor:
    """One batch's augmentation, as :func:`bench.data.augment.apply` computes it (float (b, h, w, c))."""
    if not p:
        return x
    h, w = int(x.shape[1]), int(x.shape[2])
    if "crop" in p:  # zero-pad, then every image its own static-size window
        pad = crop_pad(h)
        x = tf.pad(x, [[0, 0], [pad, pad], [pad, pad], [0, 0]])
        x = tf.gather(x, p["crop"][:, 0, None] + tf.range(h), axis=1, batch_dims=1)
        x = tf.gather(x, p["crop"][:, 1, None] + tf.range(w), axis=2, batch_dims=1)
    if "flip" in p:
        x = tf.where(p["flip"][:, None, None, None], tf.reverse(x, axis=[2]), x)
    if "rot90" in p:  # every rotation of the batch, then each image's own
        rotations = tf.stack([tf.image.rot90(x, k) for k in range(4)], axis=1)
        x = tf.gather(rotations, p["rot90"], axis=1, batch_dims=1)
    if "brightness" in p:
        x = x + p["brightness"][:, None, None, None]
    if "contrast" in p:
        mean = tf.reduce_mean(x, axis=[1, 2], keepdims=True)
        x = (x - mean) * p["contrast"][:, None, None, None] + mean
    if "brightness" in p or "contrast" in p:
        x = tf.clip_by_value(x, 0.0, 1.0)
    return x


def labels(workload: Workload, y: tf.Tensor) -> tf.Tensor:
    if workload.one_hot_labels:  # a categorical loss: one-hot float32 rows (bench.workloads.labels)
        return tf.one_hot(y, workload.classes, dtype=tf.float32)
    return tf.cast(y, tf.float32)[:, None] if workload.binary_labels else y  # BCE wants (batch, 1) floats


def prepare(workload: Workload, x_all: tf.Tensor, y_all: tf.Tensor):
    """Batch of indices (and augmentation draws) -> the batch: gather, convert images, augment, labels."""
    is_image = len(workload.shape) == 3
    scale = x_all.dtype == tf.uint8  # uint8 pixels -> [0, 1]; other inputs are used as given

    def fn(idx, p):
        x, y = tf.gather(x_all, idx), tf.gather(y_all, idx)
        if is_image:
            x = augment(tf.cast(x, tf.float32) / 255.0 if scale else tf.cast(x, tf.float32), p)
        return x, labels(workload, y)

    return fn


def decode(raw: tf.Tensor, channels: int) -> tf.Tensor:
    """A JPEG or PNG image -> float32 (h, w, channels), values 0-255. JPEGs with the accurate integer IDCT
    (libjpeg's ISLOW, which Pillow uses too: TF's default fast IDCT differs from it by up to 4/255 per
    pixel); grey as ``tf.image.rgb_to_grayscale`` of the colour image (the decoders' own grey conversions
    differ), as :func:`bench.data.images.decode` computes them."""
    img = tf.cond(tf.io.is_jpeg(raw),
                  lambda: tf.io.decode_jpeg(raw, channels=3, dct_method="INTEGER_ACCURATE"),
                  lambda: tf.io.decode_png(raw, channels=3))
    img = tf.cast(img, tf.float32)
    return tf.image.rgb_to_grayscale(img) if channels == 1 else img


def loader(workload: Workload, items: list[str | bytes]):
    """Index -> the image at the workload's input size, float [0, 1]: read (a path) or take (bytes),
    decode, resize (bilinear, as bench.data.images does)."""
    store = tf.constant(items)
    from_files = isinstance(items[0], str)
    height, width, channels = workload.shape

    def one(i):
        raw = tf.io.read_file(store[i]) if from_files else store[i]
        return tf.image.resize(decode(raw, channels), (height, width)) / 255.0

    return one
