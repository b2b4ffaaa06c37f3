"""The FLOP bound beside Tay et al. Figure 3's times counts the matrix products of Tay et al. Table 2's formulas."""

from __future__ import annotations

import torch

from reproq.bench.answer_ranking import matmul_flops_per_token
from reproq.models.answer_ranker import RankerConfig, build_ranker


def test_matmul_flops_per_token_follow_the_weight_formulas():
    n, m, d, k = 10, 6, 8, 2
    vectors = torch.randn(30, n)
    lstm = build_ranker(vectors, RankerConfig(method="LSTM", projection_dim=m, hidden_dim=d))
    directions = 2 if lstm.encoder.encoder.config.bidirectional else 1
    assert matmul_flops_per_token(lstm) == 2 * (n * m + directions * 4 * (m * d + d * d))
    for method in ("QRNN", "CTRN"):
        qrnn = build_ranker(vectors, RankerConfig(method=method, projection_dim=m, hidden_dim=d, width=k))
        assert matmul_flops_per_token(qrnn) == 2 * (n * m + 3 * k * d * m), method
