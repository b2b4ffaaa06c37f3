"""Right padding, truncation and masks."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from reproq.data.batching import check_right_padded, pad_batch, pad_batch_reference, truncate


def test_pads_on_the_right_and_masks_real_tokens():
    tokens, mask = pad_batch([[4, 5, 6], [7], []])
    assert tokens.dtype == torch.long and mask.dtype == torch.bool
    assert tokens.tolist() == [[4, 5, 6], [7, 0, 0], [0, 0, 0]]
    assert mask.tolist() == [[True, True, True], [True, False, False], [False, False, False]]
    assert mask.sum(dim=1).tolist() == [3, 1, 0]


def test_truncates_to_the_first_tokens():
    tokens, mask = pad_batch([[1, 2, 3, 4], [5, 6]], max_len=3)
    assert tokens.tolist() == [[1, 2, 3], [5, 6, 0]]
    assert truncate([1, 2, 3], None) == [1, 2, 3]
    with pytest.raises(ValueError, match="max_len"):
        truncate([1], 0)


def test_all_empty_rows_still_have_a_column():
    tokens, mask = pad_batch([[], []], min_width=1)
    assert tokens.shape == (2, 1) and not mask.any()


def test_empty_batch_is_an_error():
    with pytest.raises(ValueError, match="at least one"):
        pad_batch([])


def test_left_padding_is_refused():
    _, mask = pad_batch([[1, 2], [3]])
    check_right_padded(mask)
    with pytest.raises(ValueError, match="right-padded"):
        check_right_padded(torch.tensor([[False, True], [True, True]]))
    with pytest.raises(ValueError, match="BoolTensor"):
        check_right_padded(torch.ones(2, 2))


@pytest.mark.parametrize("max_len, min_width", [(None, 1), (3, 1), (None, 7), (1, 4)])
def test_pad_batch_equals_its_row_by_row_twin(max_len, min_width):
    rng = np.random.default_rng([max_len or 0, min_width])
    rows = [rng.integers(1, 1000, int(n)).tolist() for n in rng.integers(0, 9, 40)] + [[]]
    for sequences in (rows, [tuple(r) for r in rows], rows[:1], [[]]):  # lists and tuples (question ids), one row
        fast, slow = pad_batch(sequences, max_len=max_len, min_width=min_width), \
            pad_batch_reference(sequences, max_len=max_len, min_width=min_width)
        for a, b in zip(fast, slow):
            assert a.dtype == b.dtype and a.shape == b.shape and torch.equal(a, b)
    with pytest.raises(ValueError, match="max_len"):
        pad_batch([[1, 2]], max_len=0)
