"""One worker of TensorFlow's MultiWorkerMirroredStrategy training a tiny Keras 3 model (TF_CONFIG names the
cluster): prints TRAINED when ``fit`` returns. Run by tests/test_mwms.py as two processes on 127.0.0.1. Written
apart from bench: it reproduces the upstream failure, not bench's use of it."""

import os

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
os.environ["KERAS_BACKEND"] = "tensorflow"

import keras
import numpy as np
import tensorflow as tf

strategy = tf.distribute.MultiWorkerMirroredStrategy()
with strategy.scope():
    model = keras.Sequential([keras.Input((4,)), keras.layers.Dense(3, activation="softmax")])
    model.compile(optimizer="sgd", loss="sparse_categorical_crossentropy")
x = np.random.default_rng(0).normal(size=(64, 4)).astype("float32")
y = (np.arange(64) % 3).astype("int32")
ds = tf.data.Dataset.from_tensor_slices((x, y)).batch(16, drop_remainder=True).repeat()
model.fit(ds, epochs=1, steps_per_epoch=2, verbose=0)
print("TRAINED")
