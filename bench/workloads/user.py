"""User workloads: a factory named by an import path (``my_pkg.my_module:make``), imported, called and checked
once per process, its arrays (when its data is a callable) loaded and checked with it."""

from __future__ import annotations

import dataclasses
import importlib
import os
import sys

import numpy as np

from bench.data import sources
from bench.workloads.base import Workload, WorkloadError

_IMPORTED: dict[str, tuple[Workload, tuple[np.ndarray, ...]]] = {}  # per process: resolved once


def imported(path: str) -> tuple[Workload, tuple[np.ndarray, ...]]:
    """The user workload at ``path`` (``module:factory``, importable from the current folder or the
    environment) and its arrays, resolved once per process; WorkloadError naming what is wrong.

    Imports the user's module (which may import Keras: this is the user's code, not bench's).
    """
    if path in _IMPORTED:
        return _IMPORTED[path]
    module, _, attr = path.partition(":")
    if not module or not attr:
        raise WorkloadError(f"{path}: not an import path; write module:factory, e.g. my_pkg.my_module:make")
    if os.getcwd() not in sys.path:
        sys.path.insert(0, os.getcwd())  # as `python -m` does: the current folder's modules are importable
    try:
        mod = importlib.import_module(module)
    except Exception as e:
        hint = ""
        if isinstance(e, ModuleNotFoundError) and e.name and module.startswith(e.name):
            hint = (f"; bench imports it from the current folder ({os.getcwd()}) and the environment: run from the "
                    "folder that holds it, or add that folder to PYTHONPATH")
        raise WorkloadError(f"{path}: cannot import {module} ({type(e).__name__}: {e}){hint}") from None
    factory = getattr(mod, attr, None)
    if not callable(factory):
        raise WorkloadError(f"{path}: {module} has no callable {attr!r}")
    try:
        wl = factory()
    except Exception as e:
        raise WorkloadError(f"{path}: {attr}() raised {type(e).__name__}: {e}") from None
    if not isinstance(wl, Workload):
        raise WorkloadError(f"{path}: {attr}() returned {type(wl).__name__}, not a bench Workload")
    if _is_built_model(wl.build_model):
        raise WorkloadError(f"{path}: build_model is a built {type(wl.build_model).__name__}, not a function that "
                            "builds one: pass the function itself (build_model=build, not build()); bench builds a "
                            "fresh model inside every strategy's scope")
    if wl.build_model is None or wl.compile_kwargs is None or not callable(wl.build_model):
        raise WorkloadError(f"{path}: the Workload needs build_model (a callable) and compile_kwargs")
    if wl.input_fn is not None:  # the user's own pipeline: called in the worker only
        _IMPORTED[path] = (_with_input_fn(path, wl), ())
        return _IMPORTED[path]
    if isinstance(wl.data, str):  # a data source: adapted in get_workload, loaded by the worker
        try:
            sources.parse(wl.data)
        except sources.SourceError as e:
            raise WorkloadError(f"{path}: data={e}") from None
        meta = dataclasses.replace(wl, source=path, dataset=wl.dataset or "arrays")
        _IMPORTED[path] = (meta, ())
        return _IMPORTED[path]
    arrays = _user_arrays(path, wl)
    x_train, y_train, x_val, y_val = arrays
    _check_augment(path, wl.augment, tuple(x_train.shape[1:]))
    meta = dataclasses.replace(wl, source=path, dataset=wl.dataset or "arrays", shape=tuple(x_train.shape[1:]),
                               classes=int(max(y_train.max(), y_val.max())) + 1,
                               full=(len(x_train), len(x_val)), reduced=(len(x_train), len(x_val)))
    _IMPORTED[path] = (meta, arrays)
    return _IMPORTED[path]


INPUT_FN = "input_fn"  # the dataset of a workload that brings its own input pipeline (records: dataset.name)


def _with_input_fn(path: str, wl: Workload) -> Workload:
    """A workload with its own input pipeline (``input_fn``), checked: a callable, instead of ``data`` (not both),
    ``full=(n_train, n_val)`` examples, and no bench augmentation (its pipeline augments itself)."""
    if not callable(wl.input_fn):
        raise WorkloadError(f"{path}: input_fn is {described(wl.input_fn)}; pass the function itself: "
                            "input_fn(split, global_batch_size, seed) returning the batches of split 'train' or 'val'")
    if wl.data != "synthetic":
        raise WorkloadError(f"{path}: give data or input_fn, not both (input_fn is the whole input pipeline)")
    full = wl.full
    if not (isinstance(full, tuple | list) and len(full) == 2 and all(isinstance(n, int) and n > 0 for n in full)):
        raise WorkloadError(f"{path}: full={full!r}; a workload with input_fn needs full=(n_train, n_val), the "
                            "examples of a training epoch and of a validation pass (positive integers)")
    if wl.augment:
        raise WorkloadError(f"{path}: augment={wl.augment!r} is bench's augmentation of its own pipeline; with "
                            "input_fn, augment in your pipeline and leave augment unset")
    sizes = (int(full[0]), int(full[1]))
    return dataclasses.replace(wl, source=path, dataset=INPUT_FN, full=sizes, reduced=sizes)


def _user_arrays(path: str, wl: Workload) -> tuple[np.ndarray, ...]:
    """The four arrays of a user workload's ``data`` callable, checked."""
    if not callable(wl.data):
        fix = ("pass the function itself (data=load, not data=load()), " if isinstance(wl.data, tuple | list)
               else "")
        raise WorkloadError(f"{path}: data is {described(wl.data)}; {fix}a user workload's data is a callable "
                            f"returning (x_train, y_train, x_val, y_val) NumPy arrays, or a data source "
                            f"({sources.SPEC_HELP})")
    try:
        out = wl.data()
    except Exception as e:
        raise WorkloadError(f"{path}: data() raised {type(e).__name__}: {e}") from None
    if not isinstance(out, tuple | list) or len(out) != 4:
        raise WorkloadError(f"{path}: data() must return (x_train, y_train, x_val, y_val)")
    arrays = tuple(np.asarray(a) for a in out)
    names = ("x_train", "y_train", "x_val", "y_val")
    for (xn, yn), (x, y) in zip((names[:2], names[2:]), (arrays[:2], arrays[2:]), strict=True):
        if len(x) != len(y) or len(x) == 0:
            raise WorkloadError(f"{path}: {xn} has {len(x)} examples and {yn} {len(y)}; they must match "
                                "(and not be empty)")
        if y.ndim != 1 or not np.issubdtype(y.dtype, np.integer) or y.min() < 0:
            raise WorkloadError(f"{path}: {yn} must be integer class ids of shape (n,), got {y.dtype} "
                                f"{y.shape} (one-hot labels: use labels.argmax(axis=1))")
    if arrays[0].shape[1:] != arrays[2].shape[1:]:
        raise WorkloadError(f"{path}: x_train examples have shape {arrays[0].shape[1:]}, x_val "
                            f"{arrays[2].shape[1:]}; they must match")
    return arrays


def _is_built_model(obj: object) -> bool:
    """A Keras model object (it has layers and compile), where a function building one belongs."""
    return type(obj).__module__.split(".")[0] in ("keras", "tf_keras") or (
        hasattr(obj, "layers") and hasattr(obj, "compile"))


def described(value: object, limit: int = 120) -> str:
    """A value in a message, short: arrays and tuples of them by type and shape, anything else by a capped repr."""
    shape = getattr(value, "shape", None)
    if shape is not None:
        return f"an array of shape {tuple(shape)}"
    if isinstance(value, tuple | list):
        inner = ", ".join(described(v, 40) for v in value[:4]) + (", …" if len(value) > 4 else "")
        return f"a {type(value).__name__} of {len(value)} ({inner})"
    text = repr(value)
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _check_augment(path: str, augment: object, shape: tuple[int, ...]) -> None:
    """A workload's ``augment`` names kinds bench has (bench.data.augment.KINDS) and its data are images (h, w, c);
    ``rot90`` needs square ones."""
    from bench.data.augment import KINDS, kinds

    if not augment:
        return
    if not isinstance(augment, bool | tuple | list) or (isinstance(augment, list | tuple) and not all(
            isinstance(k, str) for k in augment)):
        raise WorkloadError(f"{path}: augment={augment!r}; allowed: True (flips) or a tuple of {', '.join(KINDS)}")
    try:
        found = kinds(tuple(augment) if isinstance(augment, list | tuple) else augment)
    except ValueError as e:
        raise WorkloadError(f"{path}: {e}") from None
    if len(shape) != 3:
        raise WorkloadError(f"{path}: augment={augment!r} augments images (examples of shape (h, w, c)); the data's "
                            f"examples have shape {shape}")
    if "rot90" in found and shape[0] != shape[1]:
        raise WorkloadError(f"{path}: augment kind rot90 needs square images; the data's are {shape[0]}x{shape[1]}")

