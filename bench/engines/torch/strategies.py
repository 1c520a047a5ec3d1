"""Strategy names -> the PyTorch device Keras trains on (``KERAS_TORCH_DEVICE``, set before Keras starts): ``cpu``,
``gpu`` (the first CUDA GPU), ``auto``. Other names have no PyTorch meaning in Keras: the plan skips them
(:func:`bench.engines.limits.unsupported`) and this module refuses them. Docs: docs/strategies.md, *Backends*.
"""

from __future__ import annotations

from typing import Any

import keras
import numpy as np
import torch

from bench.engines import PlacementError, StrategyInfo, StrategyUnavailable

NO_DISTRIBUTION = "none (one device)"


def _keras_device() -> str:
    """The device Keras' PyTorch backend puts tensors on (``cpu``, ``cuda``, ``cuda:1``, ``mps``)."""
    from keras.src.backend.torch.core import get_device

    return str(get_device())


def make_strategy(requested: str, all_reduce: str = "auto", tpu: str = "",
                  tpu_connect_timeout_s: float = 60.0) -> tuple[Any, StrategyInfo]:
    """No distribution (None) and the one device Keras trains on for ``requested``; StrategyUnavailable when it
    is absent or has no PyTorch meaning (the tf.distribute settings are ignored)."""
    device = _keras_device()
    name = requested
    if requested == "auto":
        name = "gpu" if device.startswith("cuda") else "cpu"
    if name == "gpu":
        if not torch.cuda.is_available():
            raise StrategyUnavailable(f"no CUDA GPU visible to PyTorch (torch.cuda.is_available() is False; torch "
                                      f"{torch.__version__}, built with CUDA {torch.version.cuda})")
        if not device.startswith("cuda"):
            raise StrategyUnavailable(f"Keras' PyTorch backend trains on {device!r}, not a CUDA GPU "
                                      "(KERAS_TORCH_DEVICE)")
        index = torch.device(device).index or 0
        return None, StrategyInfo(requested, "gpu", NO_DISTRIBUTION, 1, [f"gpu:{index}"], "gpu", {"scope": False})
    if name == "cpu":
        if device != "cpu":
            raise StrategyUnavailable(f"Keras' PyTorch backend trains on {device!r}, not the CPU (KERAS_TORCH_DEVICE)")
        return None, StrategyInfo(requested, "cpu", NO_DISTRIBUTION, 1, ["cpu:0"], "cpu", {"scope": False})
    raise StrategyUnavailable(f"strategy {requested!r} has no meaning under Keras' PyTorch backend (one device: "
                              "cpu or gpu)")


def activate(strategy: Any) -> None:
    """Before every point: no distribution to put in force (Keras' PyTorch backend has none), but TorchDynamo's
    caches are reset, so a ``torch.compile`` point compiles afresh (its warm-up is its own) and earlier points'
    compiled code cannot count against Dynamo's recompile limit, which would run a later point eagerly."""
    torch._dynamo.reset()


def lost(strategy: Any) -> str | None:
    """Never lost: there is no distribution to lose."""
    return None


def _name(device: torch.device) -> str:
    return "cpu:0" if device.type == "cpu" else f"gpu:{device.index or 0}"


def placement(model: Any, strategy: Any, info: StrategyInfo, batch: tuple[Any, Any] | None) -> dict[str, Any]:
    """Where the model's variables and a batch live, as PyTorch reports it (the record's ``placement``);
    PlacementError when that is not the strategy's one device."""
    expected = info.devices[0]
    on = sorted({_name(v.value.device) for v in model.variables})
    found: dict[str, Any] = {"mesh": NO_DISTRIBUTION, "variables": f"{len(model.variables)} on {', '.join(on)}"}
    problems = [f"variables on {on}, expected {[expected]}"] if model.variables and on != [expected] else []
    if batch is not None:
        x = keras.ops.convert_to_tensor(np.asarray(batch[0]))  # as fit converts a NumPy batch
        found["batch"] = f"{int(x.shape[0])} rows on {_name(x.device)}"
        if _name(x.device) != expected:
            problems.append(f"batch on {_name(x.device)}, expected {expected}")
    if problems:
        raise PlacementError(f"placement is not what {info.name} promises ({'; '.join(problems)})")
    return found


def compiler(model: Any, info: StrategyInfo) -> str:
    """What runs the train step, from the compiled model: ``torch.compile`` (TorchDynamo + Inductor, PyTorch's
    default backend) when Keras compiled it with ``jit_compile=True``, else PyTorch's eager mode."""
    if getattr(model, "run_eagerly", False) or not model.jit_compile:
        return "none (PyTorch eager)"
    return "torch.compile (Inductor)"
