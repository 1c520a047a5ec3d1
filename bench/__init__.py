"""bench: how much faster does Keras training run on a TPU, a GPU or the CPU, and does it still learn?

Importing ``bench`` is cheap and never imports TensorFlow: the report side must run on any laptop.
"""

from bench.records import SCHEMA_VERSION

__version__ = "0.1.0"
__all__ = ["SCHEMA_VERSION", "__version__"]
