"""``python -m bench export-tfrecord data=SOURCE out=DIR [shard_mb=64]``: a data source as TFRecord shards
(``train-*.tfrec``, ``val-*.tfrec``, about ``shard_mb`` MB each) plus ``bench-dataset.json``, read back by
``data=tfrecord:DIR/*.tfrec`` with the same split. No framework. Docs: docs/your-model-and-data.md.
"""

from __future__ import annotations

import json
import math
import os
import sys
from pathlib import Path
from typing import Any

import numpy as np

from bench.data import images, sources, tfrecord

DEFAULT_SHARD_MB = 64.0
ADVISED_MB = (10, 100)


class ExportError(ValueError):
    """Bad arguments: the message names the key and what is allowed."""


def _examples(spec: str) -> tuple[dict[str, tuple[list[Any], np.ndarray]], str]:
    """{"train": (items, labels), "val": …} and the modality; items are encoded bytes or token lists."""
    src = sources.describe(spec)
    data = sources.load(spec, src.n_train, src.n_val, seq_len=0)
    kind, arg = sources.parse(spec)
    if kind == "keras" and src.modality == "tokens":
        x_train, y_train, x_val, y_val = sources.keras_arrays(spec, arg)
        return {"train": (list(x_train), y_train), "val": (list(x_val), y_val)}, "tokens"
    if isinstance(data, sources.Encoded):
        return {"train": (data.train, data.y_train), "val": (data.val, data.y_val)}, "image"
    if src.modality == "tokens":  # tokens from TFRecords: re-read unpadded
        tr, ytr, va, yva, _, _ = sources.tfrecord_examples(spec, arg)
        return {"train": (tr, ytr), "val": (va, yva)}, "tokens"
    return {"train": (list(data.x_train), data.y_train), "val": (list(data.x_val), data.y_val)}, "image"


def _serialize(item: Any, label: int, modality: str) -> bytes:
    if modality == "tokens":
        return tfrecord.encode_example({"tokens": [int(t) for t in item], "label": [int(label)]})
    raw = item if isinstance(item, bytes) else Path(item).read_bytes() if isinstance(item, str) else images.encode(item)
    return tfrecord.encode_example({"image": raw, "label": [int(label)]})


def export(spec: str, out: str, shard_mb: float = DEFAULT_SHARD_MB) -> dict[str, Any]:
    """Write ``spec``'s train and validation splits as TFRecord shards under ``out``; returns the manifest."""
    out_dir = Path(out)
    if out_dir.exists() and any(out_dir.glob("*.tfrec")):
        raise ExportError(f"out={out!r} already holds .tfrec files; allowed: an empty or new folder")
    src = sources.describe(spec)
    splits, modality = _examples(spec)
    out_dir.mkdir(parents=True, exist_ok=True)
    shards: dict[str, list[str]] = {}
    for split, (items, labels) in splits.items():
        records = [_serialize(item, int(y), modality) for item, y in zip(items, labels, strict=True)]
        total = sum(len(r) + 16 for r in records)
        n = max(1, math.ceil(total / (shard_mb * 1e6)))
        per = math.ceil(len(records) / n)
        shards[split] = []
        for k in range(n):
            name = f"{split}-{k:05d}-of-{n:05d}.tfrec"
            tmp = out_dir / f".{name}.tmp"
            with tfrecord.Writer(str(tmp)) as w:
                for r in records[k * per:(k + 1) * per]:
                    w.write(r)
            os.replace(tmp, out_dir / name)
            shards[split].append(name)
    manifest = {"source": spec, "sha256": src.sha256, "modality": modality, "classes": src.classes,
                "class_names": list(src.class_names), "n_train": len(splits["train"][1]),
                "n_val": len(splits["val"][1]), "shards": shards, "shard_mb": shard_mb}
    (out_dir / sources.MANIFEST).write_text(json.dumps(manifest, indent=1) + "\n")
    return manifest


def main(argv: list[str]) -> int:
    """``export-tfrecord data=SOURCE out=DIR [shard_mb=64]``; exit 2 on bad input."""
    args = dict(a.split("=", 1) for a in argv if "=" in a)
    unknown = sorted(set(args) - {"data", "out", "shard_mb"}) + [a for a in argv if "=" not in a]
    try:
        if unknown:
            raise ExportError(f"{unknown[0]}: unknown argument; allowed: data=SOURCE out=DIR [shard_mb=64]")
        if "data" not in args or "out" not in args:
            raise ExportError(f"data and out are required, e.g. data=csv:plants/train.csv out=tfrec/ "
                              f"(data: {sources.SPEC_HELP.removeprefix('synthetic, ')})")
        if sources.is_synthetic(args["data"]):
            raise ExportError("data=synthetic: export a data source; allowed: "
                              + sources.SPEC_HELP.removeprefix("synthetic, "))
        try:
            shard_mb = float(args.get("shard_mb", DEFAULT_SHARD_MB))
        except ValueError:
            shard_mb = -1.0
        if not shard_mb > 0:
            raise ExportError(f"shard_mb={args.get('shard_mb')!r}: must be a positive number of MB (advised "
                              f"{ADVISED_MB[0]}-{ADVISED_MB[1]})")
        manifest = export(args["data"], args["out"], shard_mb)
    except (ExportError, sources.SourceError) as e:
        print(f"bench: error: {e}", file=sys.stderr)
        return 2
    for split, names in manifest["shards"].items():
        sizes = [os.path.getsize(Path(args["out"]) / n) / 1e6 for n in names]
        print(f"{split}: {manifest['n_' + split]} examples in {len(names)} shard(s) of "
              f"{min(sizes):.1f}-{max(sizes):.1f} MB")
        if (len(names) > 1 and min(sizes) < ADVISED_MB[0]) or max(sizes) > ADVISED_MB[1]:
            print(f"  note: tutorial 001 advises {ADVISED_MB[0]}-{ADVISED_MB[1]} MB per shard (shard_mb=)")
    print(f"read them with data=tfrecord:{Path(args['out']) / '*.tfrec'}")
    return 0
