"""Records of Tay et al.'s tables that depend on no training: the parameter counts of Table 2.

(Records of training runs are :func:`reproq.results.run_records`, as for question retrieval.)
"""

from __future__ import annotations

import torch

from reproq.models import count_parameters
from reproq.models.answer_ranker import RankerConfig, build_ranker, paper_parameter_count
from reproq.results import Provenance, Record

TABLE2_SIZES = dict(projection_dim=300, hidden_dim=512, mlp_dim=128, width=2)  # Tay et al. Table 2: m, d, h, k
TABLE2_METHODS = ("LSTM", "AP-BiLSTM", "QRNN", "CTRN")


def table2_records() -> list[Record]:
    """Tay et al. Table 2: parameters at d = 512, m = 300, h = 128, k = 2, counted on the built models, as
    the paper's formulas count them (encoder weights + composition) and every trainable parameter."""
    records = []
    for method in TABLE2_METHODS:
        vectors = torch.zeros(2, TABLE2_SIZES["projection_dim"])  # word vectors do not count: any will do
        model = build_ranker(vectors, RankerConfig(method=method, **TABLE2_SIZES))
        counts = {"as Table 2 counts (encoder weights + composition)": paper_parameter_count(model),
                  "all trainable parameters (biases, 300x300 projection, output layer)": count_parameters(model)}
        for variant, value in counts.items():
            records += Provenance().records({"params": value}, paper="tay2018", table="Table 2", dataset="-",
                                            split="-", method=method, setting="d=512,m=300,h=128,k=2",
                                            variant=variant)
    return records
