"""Device choice and seeding."""

from __future__ import annotations

import random

import numpy as np
import pytest
import torch

from reproq.train.runtime import resolve_device, rng_state, seed_everything, set_rng_state


def test_devices():
    assert resolve_device("cpu") == torch.device("cpu")
    assert resolve_device("auto").type == ("cuda" if torch.cuda.is_available() else "cpu")
    with pytest.raises(ValueError, match="device"):
        resolve_device("tpu")
    if not torch.cuda.is_available():
        with pytest.raises(ValueError, match="no CUDA"):
            resolve_device("cuda")


def draws():
    return random.random(), float(np.random.rand()), float(torch.rand(1))


def test_seed_everything_repeats_every_generator():
    seed_everything(7)
    first = draws()
    seed_everything(7)
    assert draws() == first
    seed_everything(8)
    assert draws() != first


def test_rng_state_round_trip():
    seed_everything(1)
    state = rng_state()
    first = draws()
    set_rng_state(state)
    assert draws() == first
