"""Pooling: a sequence of states ``[B, T, D]`` with its right-padded mask ``[B, T]`` to one vector ``[B, D]``.

Kept apart from the encoders (Lei et al. §4.1 "Pooling"; Table 4 compares strategies). A row without
any real token pools to zeros under every strategy.
"""

from __future__ import annotations

import torch

POOLINGS = ("last", "mean", "max")


def normalize_states(states: torch.Tensor, eps: float = 1e-8) -> torch.Tensor:
    r"""Each state divided by its L2 norm, :math:`h_t / (\lVert h_t \rVert_2 + \epsilon)`.

    Lei et al. footnote 4: "We also normalize state vectors before averaging"; taolei87/rcnn applies it
    (``--normalize 1``, ``normalize_3d``) before either pooling, mean or last.
    """
    return states / (states.norm(dim=-1, keepdim=True) + eps)


def zero_padding(states: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
    """``states`` with zeros at padding positions: ``states`` itself when the mask has no padding, so that a batch
    without any pays no pass over ``[B, T, D]``, neither forward nor back (``results/bench/README.md``).

    >>> s = torch.ones(1, 3, 2)
    >>> zero_padding(s, torch.tensor([[True, True, False]]))[0, :, 0].tolist()
    [1.0, 1.0, 0.0]
    >>> zero_padding(s, torch.ones(1, 3, dtype=torch.bool)) is s
    True
    """
    if bool(mask.all()):
        return states
    return states * mask.unsqueeze(-1).to(states.dtype)


def last_state(states: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
    """The state at each row's last real token (position ``len - 1`` under right padding).

    >>> s = torch.arange(6.).view(1, 3, 2)
    >>> last_state(s, torch.tensor([[True, True, False]])).tolist()
    [[2.0, 3.0]]
    """
    n = mask.sum(dim=1)
    picked = states[torch.arange(states.shape[0], device=states.device), (n - 1).clamp(min=0)]
    return picked * (n > 0).unsqueeze(1).to(states.dtype)


def mean_state(states: torch.Tensor, mask: torch.Tensor, eps: float = 1e-8) -> torch.Tensor:
    r"""Average over the real tokens, :math:`\sum_t m_t h_t / (\sum_t m_t + \epsilon)` (taolei87/rcnn's
    ``average_without_padding``)."""
    m = mask.unsqueeze(-1).to(states.dtype)
    return (states * m).sum(dim=1) / (m.sum(dim=1) + eps)


def max_state(states: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
    """Element-wise maximum over the real tokens (CNN max pooling, Table 4)."""
    filled = states.masked_fill(~mask.unsqueeze(-1), float("-inf")).max(dim=1).values
    return torch.where(mask.any(dim=1, keepdim=True), filled, torch.zeros_like(filled))


def pool(states: torch.Tensor, mask: torch.Tensor, method: str) -> torch.Tensor:
    """``method`` is one of :data:`POOLINGS`."""
    if method == "last":
        return last_state(states, mask)
    if method == "mean":
        return mean_state(states, mask)
    if method == "max":
        return max_state(states, mask)
    raise ValueError(f"pooling must be one of {POOLINGS}, got {method!r}")
