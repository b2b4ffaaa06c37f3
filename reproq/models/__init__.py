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

from reproq.models.registry import (ENCODERS, build_encoder, count_parameters, encoder_config, encoder_module,
                                    register)

# the encoder families register themselves on import
from reproq.models import cbow, cnn, rcnn, rnn  # noqa: E402,F401
from reproq.models import qrnn  # noqa: E402,F401  (QRNN, Tay et al. 2018)
from reproq.models import ctrn  # CTRN, Tay et al. 2018: a pair encoder, not in the registry

# the modules that each hold one encoder family: a run is bound to the one its model uses, not to the others
# (reproq.train.checkpoint.Code)
FAMILY_MODULES = frozenset({*(module_class.__module__ for _, module_class in ENCODERS.values()), ctrn.__name__})

__all__ = ["ENCODERS", "build_encoder", "count_parameters", "encoder_config", "register"]
