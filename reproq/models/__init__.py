"""Models: sequence encoders registered by name, pooling, and the heads built on them.

A *sequence encoder* maps word vectors to per-position states, ``forward(x: FloatTensor[B, T, E],
mask: BoolTensor[B, T]) -> FloatTensor[B, T, D]``, with ``output_dim == D``; its config is a frozen dataclass
whose defaults are the paper's settings. :class:`~reproq.models.embedding.TokenEncoder` puts word vectors
in front of one, which gives the project's encoder interface ``forward(tokens: LongTensor[B, T], mask)``.
Masks are right-padded (:mod:`reproq.data.batching`); states at padding positions are zero.

>>> {"cnn", "gru", "lstm", "rcnn"} <= set(ENCODERS)
True
>>> build_encoder("rcnn").output_dim
400
"""

from __future__ import annotations

from dataclasses import replace

from torch import nn

ENCODERS: dict[str, tuple[type, type[nn.Module]]] = {}  # name -> (config class, module class)


def register(name: str, config_class: type):
    """Class decorator: make a sequence encoder buildable by ``name`` from a ``config_class`` instance."""
    def decorate(module_class: type[nn.Module]) -> type[nn.Module]:
        if name in ENCODERS:
            raise ValueError(f"an encoder named {name!r} is already registered")
        ENCODERS[name] = (config_class, module_class)
        return module_class
    return decorate


def encoder_config(name: str, **overrides):
    """The config of encoder ``name``: the paper's defaults with ``overrides`` (dataclass fields)."""
    if name not in ENCODERS:
        raise ValueError(f"unknown encoder {name!r}; registered: {', '.join(sorted(ENCODERS))}")
    return replace(ENCODERS[name][0](), **overrides)


def build_encoder(name: str, config=None, **overrides) -> nn.Module:
    """A sequence encoder by name, from ``config`` (default: :func:`encoder_config`) with ``overrides``."""
    config = encoder_config(name) if config is None else config
    return ENCODERS[name][1](replace(config, **overrides))


def count_parameters(module: nn.Module) -> int:
    """Trainable parameters (the |θ| of Lei et al. Table 3: fixed word vectors do not count)."""
    return sum(p.numel() for p in module.parameters() if p.requires_grad)


# the encoder families register themselves on import
from reproq.models import cbow, cnn, rcnn, rnn  # noqa: E402,F401
from reproq.models import qrnn  # noqa: E402,F401  (QRNN, Tay et al. 2018; CTRN in ctrn.py is a pair encoder)
