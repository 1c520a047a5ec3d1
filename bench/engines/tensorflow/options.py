"""tf.data options bench sets (imports TensorFlow): autotune off in its own pipelines and a strategy's per-device
ones, on where a point measures the settings users write (the ``autotune`` pipeline). Shared by
:mod:`bench.engines.tensorflow.pipelines` and :mod:`bench.engines.tensorflow.strategies`.
"""

from __future__ import annotations

import tensorflow as tf

# True while a point's pipelines are tuned (``autotune``, or Keras' own pipeline of NumPy arrays): a strategy's
# per-device pipelines then keep autotune on, as the user's own script gets them (set by ``make_pipelines``)
DEVICE_AUTOTUNE = [False]


def no_autotune(options: tf.data.Options | None = None) -> tf.data.Options:
    """``options`` (or new ones) with tf.data's autotune switched off (the teardown race and the slow episodes:
    docs/findings.md)."""
    options = options or tf.data.Options()
    options.autotune.enabled = False
    return options


def autotune_on(options: tf.data.Options | None = None) -> tf.data.Options:
    """``options`` (or new ones) with tf.data's autotune on, said explicitly (TensorFlow's default when unset)."""
    options = options or tf.data.Options()
    options.autotune.enabled = True
    return options
