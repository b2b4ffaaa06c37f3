"""Lei et al.'s max-margin loss on the hardest negative, computed by hand."""

from __future__ import annotations

import pytest
import torch
from torch import nn

from reproq.train.objectives import MaxMarginObjective, max_margin_loss


def test_hand_computed_example():
    # pair 1: hardest negative 0.5, positive 0.9: max(0, 0.5 - 0.9 + 0.3, 0) = 0 (the p = p+ term)
    # pair 2: hardest negative 0.6, positive 0.2: 0.6 - 0.2 + 0.3 = 0.7
    # pair 3: hardest negative 0.8 (0.95 is padding), positive 0.7: 0.8 - 0.7 + 0.3 = 0.4
    positive = torch.tensor([0.9, 0.2, 0.7])
    negatives = torch.tensor([[0.5, 0.1, 0.2], [0.6, 0.3, 0.6], [0.8, 0.95, 0.1]])
    mask = torch.tensor([[True, True, True], [True, True, True], [True, False, True]])
    loss = max_margin_loss(positive, negatives, mask, margin=0.3)
    assert loss.item() == pytest.approx((0.0 + 0.7 + 0.4) / 3)
    assert max_margin_loss(positive, negatives, margin=0.3).item() == pytest.approx((0.0 + 0.7 + 0.55) / 3)


def test_only_the_hardest_negative_and_the_positive_get_gradients():
    positive = torch.tensor([0.2], requires_grad=True)
    negatives = torch.tensor([[0.1, 0.6, 0.3]], requires_grad=True)
    max_margin_loss(positive, negatives, margin=1.0).backward()
    assert positive.grad.tolist() == [-1.0]
    assert negatives.grad.tolist() == [[0.0, 1.0, 0.0]]


def test_shapes_are_checked():
    with pytest.raises(ValueError, match="positive"):
        max_margin_loss(torch.zeros(2), torch.zeros(3, 4), margin=1.0)


class Scores(nn.Module):
    """A model whose batch is already its scores, to test the objective's contract."""

    def __init__(self):
        super().__init__()
        self.w = nn.Parameter(torch.tensor([3.0, 4.0]))  # ‖w‖₂ = 5

    def forward(self, batch):
        positive, negatives = batch
        return positive * 1.0, negatives * 1.0, None


def test_objective_adds_the_l2_norm_of_trainable_parameters():
    batch = (torch.tensor([0.2]), torch.tensor([[0.6]]))
    objective = MaxMarginObjective(margin=1.0, l2=0.01)
    assert objective(Scores(), batch).item() == pytest.approx(1.4 + 0.01 * 5.0)
    assert MaxMarginObjective(margin=1.0, l2=0.0)(Scores(), batch).item() == pytest.approx(1.4)
