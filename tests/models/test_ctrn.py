"""CTRN: the aligned step t* as printed and its two other readings, the fast path against its step-by-step twin
(values and gradients, float64, several length pairs, every alignment), no parameters beyond QRNN's, padding
invariance, and crossing itself."""

from __future__ import annotations

import doctest
import math

import pytest
import torch

from reproq.models import ctrn
from reproq.models.ctrn import ALIGNMENTS, CTRN, _aligned_step, aligned_steps, ctrn_reference
from reproq.models.qrnn import QRNN, QRNNConfig

CONFIG = QRNNConfig(input_dim=5, hidden_dim=3, width=2)


def test_docstring_examples():
    assert doctest.testmod(ctrn).failed == 0


def test_aligned_steps_as_printed():
    # |q| = 3, |a| = 10: r = ceil(10 / 3) = 4; q reads a at t* = 4, 8, 12 -> clipped to 10 (1-based)
    assert (aligned_steps(3, torch.tensor([3]), torch.tensor([10])) + 1).tolist() == [[4, 8, 10]]
    # a reads q at t* = 4, then the clip to |q| = 3 for every later step
    assert (aligned_steps(10, torch.tensor([10]), torch.tensor([3])) + 1).tolist() == [[3] * 10]
    # equal lengths: t* = t
    assert aligned_steps(4, torch.tensor([4]), torch.tensor([4])).tolist() == [[0, 1, 2, 3]]
    # r from the real lengths of each pair, not the padded width; an empty partner reads its step 1
    assert aligned_steps(2, torch.tensor([2, 1]), torch.tensor([4, 0])).tolist() == [[1, 3], [0, 0]]


def make_pair(lengths_q, lengths_a, seed, width_q=None, width_a=None):
    g = torch.Generator().manual_seed(seed)
    Tq, Ta = width_q or max(lengths_q), width_a or max(lengths_a)
    x_q = torch.randn(len(lengths_q), Tq, 5, generator=g, dtype=torch.float64)
    x_a = torch.randn(len(lengths_a), Ta, 5, generator=g, dtype=torch.float64)
    mask_q = torch.arange(Tq)[None, :] < torch.tensor(lengths_q)[:, None]
    mask_a = torch.arange(Ta)[None, :] < torch.tensor(lengths_a)[:, None]
    return x_q.requires_grad_(), mask_q, x_a.requires_grad_(), mask_a


def test_each_alignment_against_its_definition_in_plain_integers():
    """The vectorised t* of every alignment equals the slow twin's, for every pair of lengths up to 12."""
    for alignment in ALIGNMENTS:
        for own in range(1, 13):
            for partner in range(1, 13):
                r = math.ceil(max(own, partner) / min(own, partner))
                fast = (aligned_steps(own, torch.tensor([own]), torch.tensor([partner]), alignment) + 1)[0].tolist()
                slow = [_aligned_step(t, own, partner, r, alignment) for t in range(1, own + 1)]
                assert fast == slow, (alignment, own, partner)
                assert all(1 <= s <= partner for s in slow)


def test_the_alignments_differ_where_the_paper_is_silent():
    # |a| = 10 against |q| = 3 (r = 4): as printed, the answer reads the question's last step from its step 1 on;
    # "ceil" gives each question step r answer steps; "proportional" spreads first to first, last to last
    a_reads = {alignment: (aligned_steps(10, torch.tensor([10]), torch.tensor([3]), alignment) + 1)[0].tolist()
               for alignment in ALIGNMENTS}
    assert a_reads == {"literal": [3] * 10, "ceil": [1, 1, 1, 1, 2, 2, 2, 2, 3, 3],
                       "proportional": [1, 1, 1, 2, 2, 2, 2, 3, 3, 3]}
    # the shorter side: "ceil" reads as printed; "proportional" reaches the partner's first and last steps
    assert (aligned_steps(3, torch.tensor([3]), torch.tensor([10]), "ceil") + 1).tolist() == [[4, 8, 10]]
    assert (aligned_steps(3, torch.tensor([3]), torch.tensor([10]), "proportional") + 1).tolist() == [[1, 6, 10]]
    with pytest.raises(ValueError, match="alignment must be one of"):
        CTRN(CONFIG, alignment="nearest")


@pytest.mark.parametrize("alignment", ALIGNMENTS)
@pytest.mark.parametrize("lengths_q, lengths_a", [
    ([4, 2, 1, 6], [11, 2, 7, 6]),  # q shorter (r = 3, 1, 7, 1), equal lengths
    ([9, 5, 3], [2, 5, 1]),  # q longer
    ([1], [1]),
])
def test_fast_matches_reference_values_and_gradients(lengths_q, lengths_a, alignment):
    torch.manual_seed(0)
    model = CTRN(CONFIG, alignment=alignment).double()
    x_q, mask_q, x_a, mask_a = make_pair(lengths_q, lengths_a, seed=len(lengths_q), width_a=max(lengths_a) + 2)
    fast, slow = model(x_q, mask_q, x_a, mask_a), ctrn_reference(model, x_q, mask_q, x_a, mask_a)
    for a, b in zip(fast, slow):
        torch.testing.assert_close(a, b, rtol=1e-12, atol=1e-12)
    weights = [torch.randn_like(h) for h in fast]
    inputs = (x_q, x_a, *model.parameters())
    grads_fast = torch.autograd.grad(sum((h * w).sum() for h, w in zip(fast, weights)), inputs)
    grads_slow = torch.autograd.grad(sum((h * w).sum() for h, w in zip(slow, weights)), inputs)
    for a, b in zip(grads_fast, grads_slow):
        torch.testing.assert_close(a, b, rtol=1e-10, atol=1e-12)


def test_no_parameters_beyond_qrnn():
    config = QRNNConfig(input_dim=300, hidden_dim=512, width=2)
    crossed, plain = CTRN(config), QRNN(config)
    shapes = lambda m: {n.removeprefix("qrnn."): tuple(p.shape) for n, p in m.named_parameters()}  # noqa: E731
    assert shapes(crossed) == shapes(plain)
    assert sum(p.numel() for p in crossed.parameters()) == sum(p.numel() for p in plain.parameters())


def test_padding_invariance_and_zero_padding():
    torch.manual_seed(1)
    model = CTRN(CONFIG).double()
    x_q, mask_q, x_a, mask_a = make_pair([3, 5], [7, 2], seed=3, width_q=8, width_a=9)
    h_q, h_a = model(x_q, mask_q, x_a, mask_a)
    for i in range(2):
        lq, la = int(mask_q[i].sum()), int(mask_a[i].sum())
        alone_q, alone_a = model(x_q[i:i + 1, :lq], mask_q[i:i + 1, :lq], x_a[i:i + 1, :la], mask_a[i:i + 1, :la])
        torch.testing.assert_close(h_q[i, :lq], alone_q[0])
        torch.testing.assert_close(h_a[i, :la], alone_a[0])
        assert h_q[i, lq:].abs().max() == 0 and h_a[i, la:].abs().max() == 0


def test_crossing_with_itself_squares_the_qrnn_state():
    # same text on both sides: the dagger cell reads its own gates (t* = t), so h = (o_t ⊙ c_t)^2
    torch.manual_seed(2)
    model = CTRN(CONFIG).double()
    x, mask, _, _ = make_pair([4, 6], [4, 6], seed=4)
    h_q, h_a = model(x, mask, x, mask)
    plain = model.qrnn(x, mask)
    torch.testing.assert_close(h_q, plain.square())
    torch.testing.assert_close(h_a, plain.square())


def test_each_side_depends_on_its_partner():
    # unlike QRNN, the question's states change with the answer (through the answer's gates)
    torch.manual_seed(3)
    model = CTRN(CONFIG).double()
    x_q, mask_q, x_a, mask_a = make_pair([4], [6], seed=5)
    h_q, _ = model(x_q, mask_q, x_a, mask_a)
    (grad_a,) = torch.autograd.grad(h_q.sum(), x_a)
    assert grad_a.abs().sum() > 0
