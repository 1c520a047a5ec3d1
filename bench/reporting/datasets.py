"""How the report names a data set: its name plus what makes two of that name differ, and one name per content.

A data source's records carry its name without a path (``folder:pets``) and the hash of its content
(``dataset.sha256``). Records written before names lost their paths carry the spec as given
(``folder:/home/ana/data/pets``); copies of one folder may also carry two folder names. Rows whose data have
the same content hash are one data set, shown under one name: one that is not a path, else the first in order.
"""

from __future__ import annotations

from collections.abc import Iterable

import pandas as pd

from bench.records import Dataset


def dataset_label(ds: Dataset, with_pipeline: bool = True) -> str:
    """``"synthetic (reduced, n_train=6000)"``: name plus what makes two datasets of that name differ. Real
    data (a data source, a user's arrays) says how much of it was used: ``"keras:mnist (n_train=4096 of
    60000)"``."""
    name = ds.name or "?"
    whole = ds.source_n_train
    extra = [str(ds.scale)] if ds.scale and whole is None else []
    if ds.n_train is not None:
        extra.append(f"n_train={ds.n_train}" + (f" of {whole}" if whole is not None else ""))
    if with_pipeline and ds.pipeline not in (None, "default"):
        extra.append(f"pipeline={ds.pipeline}")  # a deliberately slow input pipeline is another dataset
    return f"{name} ({', '.join(extra)})" if extra else str(name)


def _looks_like_a_path(name: str) -> bool:
    """``csv:/home/ana/train.csv``, ``folder:C:\\data``: a name as older records wrote it."""
    arg = name.partition(":")[2]
    return arg.startswith(("/", "\\", "~")) or (len(arg) > 2 and arg[1] == ":" and arg[2] in "/\\")


def content_names(pairs: Iterable[tuple[str, str]]) -> dict[tuple[str, str], str]:
    """(content hash, name) -> the one name of that content, for each name of a hash that has several (module
    docstring); pairs without a hash are not renamed."""
    names: dict[str, set[str]] = {}
    for sha, name in pairs:
        if sha:
            names.setdefault(str(sha), set()).add(name)
    rename: dict[tuple[str, str], str] = {}
    for sha, found in names.items():
        choices = sorted(found, key=lambda n: (_looks_like_a_path(n), n))
        rename.update({(sha, n): choices[0] for n in choices[1:]})
    return rename


def one_name_per_content(frame: pd.DataFrame, rename: dict[tuple[str, str], str] | None = None) -> pd.DataFrame:
    """``frame`` (with ``dataset_name`` and ``dataset_sha256`` columns) with the ``dataset``, ``data`` and
    ``dataset_name`` of rows of one content hash under one name, so that they form one comparison; ``rename``
    (:func:`content_names`) when the names come from more records than the frame's rows (the per-epoch frame has
    none of a point that never trained, yet must name its data as the per-point frame does)."""
    hashed = frame[frame["dataset_sha256"].astype(bool)]
    if rename is None:
        rename = content_names(zip(hashed["dataset_sha256"], hashed["dataset_name"], strict=True))
    if not rename:
        return frame
    frame = frame.copy()
    for i, row in hashed.iterrows():
        new = rename.get((row["dataset_sha256"], row["dataset_name"]))
        if new is None:
            continue
        old = row["dataset_name"]
        for col in ("dataset", "data"):
            if col in frame:
                frame.at[i, col] = new + str(row[col])[len(old):]
        frame.at[i, "dataset_name"] = new
    return frame
