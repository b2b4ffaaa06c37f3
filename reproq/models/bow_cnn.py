"""BOW-CNN of dos Santos et al. (2015) §2: a question as a weighted bag of words and as a convolution, scored by two
cosines.

.. math::

    r^{bow}_q = q^{bow} \\odot t                                  \\quad (1)

    [r^{conv}_q]_j = \\tanh\\big(\\max_n [W^1 z_n + b^1]_j\\big),\\qquad z_n = (r_{w_{n-(k-1)/2}}, \\dots,
    r_{w_{n+(k-1)/2}})                                            \\quad (2)

    s(q_1, q_2) = \\beta_1 \\cos(r^{bow}_{q_1}, r^{bow}_{q_2}) + \\beta_2 \\cos(r^{conv}_{q_1}, r^{conv}_{q_2})

``q^{bow}`` counts each vocabulary word in q; ``t`` (one weight a word) starts as the IDF over the question set,
``log |Q| / df`` (§3.2; or as ones) and is learned or frozen (Table 5's three settings); the word vectors W⁰
are learned too. The windows are centred (``k = 3``: a word and its two neighbours, zero vectors beyond the
ends), so every word is the centre of one window. CNN alone (§3.2) is the convolutional path with
``s = cos(r^{conv})``: ``bow=False``. A question is one sequence: its title, or title and body joined ("all").

:func:`bow_cnn_reference` is the slow twin: the equations above, question by question, word by word.
"""

from __future__ import annotations

from dataclasses import dataclass

import torch
from torch import nn
from torch.nn import functional as F


@dataclass(frozen=True)
class BOWCNNConfig:
    conv_units: int = 400  # dos Santos et al. Table 2: clu = 400 for BOW-CNN (1,000 for CNN alone)
    width: int = 3  # Table 2: context window size k = 3
    bow: bool = True  # False: "CNN alone" (§3.2), s = s_conv
    t_init: str = "idf"  # §3.2: t starts as the IDF over the questions; "ones": Table 5's other start
    train_t: bool = True  # Table 5: t updated, or frozen at its start
    train_embeddings: bool = True  # §2.3: "W⁰ and W¹ ... are parameters to be learned"; False: an ablation
    init_scale: float = 0.05  # not reported; the house's uniform initialisation (models/cnn.py)

    def __post_init__(self):
        if self.t_init not in ("idf", "ones"):
            raise ValueError(f"t_init must be 'idf' or 'ones', got {self.t_init!r}")
        if self.width % 2 != 1:
            raise ValueError(f"a centred window needs an odd width, got {self.width}")


class BOWCNN(nn.Module):
    """``forward(batch) -> (positive [N], negatives [N, K], negatives_mask [N, K])`` scores of a
    :class:`~reproq.models.question.RankingBatch` whose ``title`` slot holds each question's sequence;
    ``vectors(tokens, mask)`` gives the unit BOW (``[B, V]``, only with ``bow``) and convolutional vectors."""

    def __init__(self, vectors: torch.Tensor, idf: torch.Tensor, config: BOWCNNConfig = BOWCNNConfig()):
        super().__init__()
        self.config = config
        self.embedding = nn.Embedding.from_pretrained(vectors.float().clone(), freeze=not config.train_embeddings,
                                                      padding_idx=0)
        self.conv = nn.Conv1d(vectors.shape[1], config.conv_units, kernel_size=config.width,
                              padding=config.width // 2)
        nn.init.uniform_(self.conv.weight, -config.init_scale, config.init_scale)
        nn.init.zeros_(self.conv.bias)
        if config.bow:
            start = idf.float().clone() if config.t_init == "idf" else torch.ones(len(idf))
            self.t = nn.Parameter(start, requires_grad=config.train_t)
            self.beta = nn.Parameter(torch.tensor([0.5, 0.5]))  # β₁, β₂: learned (start not reported)

    def conv_vectors(self, tokens: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
        """Eq. 2 for a batch ``[B, T]``: ``[B, clu]`` unit vectors (padding never wins the max)."""
        x = self.embedding(tokens) * mask.unsqueeze(-1)  # zero vectors at padding, as beyond the ends
        c = self.conv(x.transpose(1, 2))  # (B, clu, T): window n centred on word n
        c = c.masked_fill(~mask.unsqueeze(1), float("-inf")).amax(dim=2)
        return F.normalize(torch.tanh(c), dim=-1)

    def bow_counts(self, tokens: torch.Tensor, mask: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        """``(words [U], counts [B, U])``: the batch's distinct words and how often each question uses them."""
        real = mask & (tokens != 0)  # id 0 is padding: an empty question's stand-in word counts nothing
        words, column = torch.unique(tokens[real], return_inverse=True)
        counts = tokens.new_zeros((tokens.shape[0], len(words)), dtype=self.t.dtype)
        rows = torch.arange(tokens.shape[0], device=tokens.device).unsqueeze(1).expand_as(tokens)[real]
        return words, counts.index_put_((rows, column), torch.ones_like(column, dtype=counts.dtype), accumulate=True)

    def forward(self, batch):
        tokens, mask = batch.title, batch.title_mask
        scores = self.conv_vectors(tokens, mask)
        scores = scores @ scores.T  # (Q, Q) cosines of the batch's questions
        if self.config.bow:
            words, counts = self.bow_counts(tokens, mask)
            bow = F.normalize(counts * self.t[words], dim=-1)  # Eq. 1 over the batch's words only
            scores = self.beta[0] * (bow @ bow.T) + self.beta[1] * scores
        query, candidates = batch.pairs[:, 0], batch.pairs[:, 1:]
        pair_scores = scores[query.unsqueeze(1), candidates]  # (N, 1 + K)
        return pair_scores[:, 0], pair_scores[:, 1:], batch.negatives_mask


def bow_cnn_reference(model: BOWCNN, q1: list[int], q2: list[int]) -> torch.Tensor:
    """The slow twin: s(q1, q2) of two questions (word ids), every equation written out."""
    W, b, k = model.conv.weight, model.conv.bias, model.config.width

    def r_conv(q):
        vectors = [model.embedding.weight[w] for w in q]
        zero = torch.zeros_like(vectors[0])
        windows = []
        for n in range(len(q)):  # z_n: the k words centred on word n, zero vectors beyond the ends
            z = [vectors[m] if 0 <= m < len(q) else zero for m in range(n - k // 2, n + k // 2 + 1)]
            windows.append(sum(W[:, :, i] @ z[i] for i in range(k)) + b)
        return torch.tanh(torch.stack(windows).max(dim=0).values)

    s = F.cosine_similarity(r_conv(q1), r_conv(q2), dim=0)
    if not model.config.bow:
        return s

    def r_bow(q):
        counts = {}
        for w in q:
            counts[w] = counts.get(w, 0) + 1
        return {w: c * model.t[w] for w, c in counts.items()}

    a, c = r_bow(q1), r_bow(q2)
    dot = sum(a[w] * c[w] for w in a if w in c)
    norm = lambda r: torch.sqrt(sum(v * v for v in r.values()))  # noqa: E731
    return model.beta[0] * dot / (norm(a) * norm(c)) + model.beta[1] * s
