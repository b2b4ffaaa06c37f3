"""Where training runs and how it is made repeatable: device choice, seeding, random-generator states."""

from __future__ import annotations

import random

import numpy as np
import torch


def resolve_device(device: str | torch.device = "auto") -> torch.device:
    """``"auto"`` is CUDA when present, else CPU; ``"cuda"`` without a GPU raises ValueError; a device already
    resolved is checked the same way.

    >>> resolve_device("cpu"), resolve_device(torch.device("cpu"))
    (device(type='cpu'), device(type='cpu'))
    """
    device = str(device)
    if device == "auto":
        return torch.device("cuda" if torch.cuda.is_available() else "cpu")
    if device not in ("cpu", "cuda") and not device.startswith("cuda:"):
        raise ValueError(f"device must be 'auto', 'cpu' or 'cuda', got {device!r}")
    if device.startswith("cuda") and not torch.cuda.is_available():
        raise ValueError(f"device {device!r} asked for, but torch sees no CUDA GPU here")
    return torch.device(device)


def device_name(device: torch.device) -> str:
    """What a record says about the device: ``"cpu"``, or ``"cuda:<i> (<GPU name>)"``.

    >>> device_name(torch.device("cpu"))
    'cpu'
    """
    if device.type != "cuda":
        return device.type
    index = device.index if device.index is not None else torch.cuda.current_device()
    return f"cuda:{index} ({torch.cuda.get_device_name(index)})"


def seed_everything(seed: int, *, deterministic: bool = True) -> None:
    """Seed Python's, numpy's and torch's global generators; with ``deterministic``, ask torch for
    deterministic kernels (CPU kernels here are; on CUDA a few ops may still warn)."""
    random.seed(seed)
    np.random.seed(seed % 2**32)
    torch.manual_seed(seed)
    if deterministic:
        torch.use_deterministic_algorithms(True, warn_only=True)


def rng_state() -> dict:
    """Every global generator's state, for a checkpoint (restore with :func:`set_rng_state`): tensors and plain
    Python values only, so that a checkpoint loads with ``torch.load(weights_only=True)`` (numpy's key as a tensor)."""
    name, key, position, has_gauss, gauss = np.random.get_state()
    state = {"python": random.getstate(), "numpy": (name, torch.from_numpy(key.astype(np.int64)), int(position),
                                                    int(has_gauss), float(gauss)),
             "torch": torch.get_rng_state()}
    if torch.cuda.is_available():
        state["cuda"] = torch.cuda.get_rng_state_all()
    return state


def set_rng_state(state: dict) -> None:
    random.setstate(state["python"])
    name, key, position, has_gauss, gauss = state["numpy"]
    np.random.set_state((name, key.numpy().astype(np.uint32), position, has_gauss, gauss))
    torch.set_rng_state(state["torch"])
    if "cuda" in state and torch.cuda.is_available():
        torch.cuda.set_rng_state_all(state["cuda"])
