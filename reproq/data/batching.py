"""Token id lists to padded tensors: ``(tokens LongTensor[B, T], mask BoolTensor[B, T])``.

Padding is on the **right**: row b holds its tokens at positions ``0 .. len_b - 1`` and
:data:`~reproq.data.vocab.PAD_ID` after them; ``mask`` is True exactly on the real tokens. The recurrent and
convolutional encoders are causal left to right, so a real position never sees padding and an encoding
does not depend on what else is in the batch; "last state" pooling reads position ``len_b - 1``
(taolei87/rcnn pads on the left for the same purpose, where padding steps then do change the states).
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence

import numpy as np
import torch

from reproq.data.vocab import PAD_ID


def truncate(ids: Sequence[int], max_len: int | None) -> list[int]:
    """The first ``max_len`` ids (all when None): Lei et al. keep the first 100 body words (footnote 5)."""
    if max_len is not None and max_len < 1:
        raise ValueError(f"max_len must be positive or None, got {max_len}")
    return list(ids[:max_len])


def pad_batch(sequences: Sequence[Sequence[int]], *, max_len: int | None = None,
              min_width: int = 1) -> tuple[torch.Tensor, torch.Tensor]:
    """Right-pad id lists (each cut to ``max_len``) to the longest one, at least ``min_width`` wide.

    An empty list gives a row of padding with an all-False mask (its pooled encoding is zero). Every id is copied
    once, in one pass over the batch (a right-padded mask marks the real positions in row order):
    :func:`pad_batch_reference`, row by row, is the slow twin, and a test holds the two equal.

    >>> tokens, mask = pad_batch([[5, 6, 7], [8]], max_len=2)
    >>> tokens.tolist(), mask.tolist()
    ([[5, 6], [8, 0]], [[True, True], [True, False]])
    """
    if not sequences:
        raise ValueError("pad_batch needs at least one sequence")
    rows = sequences if max_len is None else [truncate(s, max_len) for s in sequences]
    lengths = np.fromiter(map(len, rows), dtype=np.int64, count=len(rows))
    width = max(min_width, int(lengths.max()))
    mask = np.arange(width)[None, :] < lengths[:, None]
    tokens = np.full((len(rows), width), PAD_ID, dtype=np.int64)
    tokens[mask] = np.fromiter(itertools.chain.from_iterable(rows), dtype=np.int64, count=int(lengths.sum()))
    return torch.from_numpy(tokens), torch.from_numpy(mask)


def pad_batch_reference(sequences: Sequence[Sequence[int]], *, max_len: int | None = None,
                        min_width: int = 1) -> tuple[torch.Tensor, torch.Tensor]:
    """The slow twin of :func:`pad_batch`: a row of padding per sequence, its ids written in, one row at a time."""
    if not sequences:
        raise ValueError("pad_batch needs at least one sequence")
    rows = [truncate(s, max_len) for s in sequences]
    width = max(min_width, max(len(r) for r in rows))
    tokens = torch.full((len(rows), width), PAD_ID, dtype=torch.long)
    for b, row in enumerate(rows):
        tokens[b, :len(row)] = torch.as_tensor(row, dtype=torch.long)
    lengths = torch.tensor([len(r) for r in rows])
    mask = torch.arange(width)[None, :] < lengths[:, None]
    return tokens, mask


def check_right_padded(mask: torch.Tensor) -> None:
    """Raise ValueError unless every row of ``mask`` is a run of True followed by False."""
    if mask.dim() != 2 or mask.dtype != torch.bool:
        raise ValueError(f"mask must be a BoolTensor[B, T], got {mask.dtype} of shape {tuple(mask.shape)}")
    if mask.shape[1] > 1 and bool((mask[:, 1:] & ~mask[:, :-1]).any()):
        raise ValueError("mask is not right-padded (a real token follows padding); build batches with "
                         "reproq.data.batching.pad_batch")
