"""Pooling strategies on hand-made states."""

from __future__ import annotations

import pytest
import torch

from reproq.models.pooling import normalize_states, pool

STATES = torch.tensor([[[1.0, -2.0], [3.0, 0.0], [9.0, 9.0]],
                       [[-1.0, 4.0], [5.0, 5.0], [5.0, 5.0]],
                       [[7.0, 7.0], [7.0, 7.0], [7.0, 7.0]]])
MASK = torch.tensor([[True, True, False], [True, False, False], [False, False, False]])


def test_last_mean_max_read_only_real_tokens():
    assert pool(STATES, MASK, "last").tolist() == [[3.0, 0.0], [-1.0, 4.0], [0.0, 0.0]]
    torch.testing.assert_close(pool(STATES, MASK, "mean"), torch.tensor([[2.0, -1.0], [-1.0, 4.0], [0.0, 0.0]]))
    assert pool(STATES, MASK, "max").tolist() == [[3.0, 0.0], [-1.0, 4.0], [0.0, 0.0]]


def test_normalized_states_have_unit_norm_and_keep_direction():
    unit = normalize_states(STATES)
    torch.testing.assert_close(unit.norm(dim=-1), torch.ones(3, 3))
    torch.testing.assert_close(unit[0, 1], torch.tensor([1.0, 0.0]))
    assert normalize_states(torch.zeros(1, 1, 3)).abs().sum() == 0  # no NaN for a zero state


def test_unknown_pooling():
    with pytest.raises(ValueError, match="pooling"):
        pool(STATES, MASK, "attention")
