"""QRNN: the fast forget-mult against its step-by-step twin (values and gradients, float64), the paper's
gate convention by hand, causality and padding invariance, and the 3kdm weights of Tay et al. Table 2."""

from __future__ import annotations

import doctest

import pytest
import torch

from reproq.models import build_encoder, qrnn
from reproq.models.qrnn import QRNN, QRNNConfig, forget_mult, forget_mult_reference


def gates(B, T, d, seed, extreme=False):
    g = torch.Generator().manual_seed(seed)
    f = torch.rand(B, T, d, generator=g, dtype=torch.float64)
    if extreme:  # gates at the edges: nearly 0 (forget everything) and nearly 1 (keep everything)
        f = torch.where(f < 0.5, f * 1e-6, 1 - f * 1e-6)
    z = torch.randn(B, T, d, generator=g, dtype=torch.float64)
    return f.requires_grad_(), z.requires_grad_()


def test_docstring_examples():
    assert doctest.testmod(qrnn).failed == 0


@pytest.mark.parametrize("T", [1, 2, 7, 33])
@pytest.mark.parametrize("extreme", [False, True])
def test_fast_forget_mult_matches_reference_values_and_gradients(T, extreme):
    f, z = gates(3, T, 5, seed=T, extreme=extreme)
    fast, slow = forget_mult(f, z), forget_mult_reference(f, z)
    torch.testing.assert_close(fast, slow, rtol=1e-12, atol=1e-12)
    weights = torch.randn_like(fast)  # a loss that weighs every step differently
    grads_fast = torch.autograd.grad((fast * weights).sum(), (f, z))
    grads_slow = torch.autograd.grad((slow * weights).sum(), (f, z))
    for a, b in zip(grads_fast, grads_slow):
        torch.testing.assert_close(a, b, rtol=1e-10, atol=1e-12)


def test_fast_forget_mult_passes_gradcheck():
    f, z = gates(2, 5, 3, seed=0)
    assert torch.autograd.gradcheck(forget_mult, (f, z))


def test_gate_convention_by_hand():
    # c_t = f_t c_{t-1} + (1 - f_t) z_t with c_0 = 0: f on the state, as Tay et al. and Bradbury et al.
    f = torch.tensor([[[0.5], [0.5], [0.0], [1.0]]], dtype=torch.float64)
    z = torch.tensor([[[1.0], [1.0], [3.0], [7.0]]], dtype=torch.float64)
    expected = [0.5, 0.75, 3.0, 3.0]  # f = 0 forgets the past, f = 1 ignores z
    for fn in (forget_mult, forget_mult_reference):
        assert fn(f, z).flatten().tolist() == expected


def test_qrnn_layer_fast_equals_reference_path():
    torch.manual_seed(0)
    fast = QRNN(QRNNConfig(input_dim=6, hidden_dim=4, width=3)).double()
    slow = QRNN(QRNNConfig(input_dim=6, hidden_dim=4, width=3, fast=False)).double()
    slow.load_state_dict(fast.state_dict())
    x = torch.randn(3, 8, 6, dtype=torch.float64)
    mask = torch.arange(8)[None, :] < torch.tensor([8, 5, 1])[:, None]
    out_fast, out_slow = fast(x, mask), slow(x, mask)
    torch.testing.assert_close(out_fast, out_slow)
    out_fast.square().sum().backward()
    out_slow.square().sum().backward()
    torch.testing.assert_close(fast.weight.grad, slow.weight.grad)


def test_qrnn_equations_on_one_sequence():
    """h_t = o_t ⊙ c_t with Z = tanh, F = σ, O = σ of a causal width-k convolution, written out."""
    torch.manual_seed(1)
    layer = QRNN(QRNNConfig(input_dim=3, hidden_dim=2, width=2)).double()
    x = torch.randn(1, 4, 3, dtype=torch.float64)
    W, b = layer.weight, layer.bias  # (3d, km): columns [0, m) read x_{t-1}, [m, 2m) read x_t
    c, hs = torch.zeros(2, dtype=torch.float64), []
    for t in range(4):
        pre = b + W[:, 3:] @ x[0, t] + (W[:, :3] @ x[0, t - 1] if t > 0 else 0)
        z, f, o = torch.tanh(pre[:2]), torch.sigmoid(pre[2:4]), torch.sigmoid(pre[4:])
        c = f * c + (1 - f) * z
        hs.append(o * c)
    torch.testing.assert_close(layer(x, torch.ones(1, 4, dtype=torch.bool))[0], torch.stack(hs))


def test_gates_are_a_causal_conv1d():
    torch.manual_seed(4)
    layer = QRNN(QRNNConfig(input_dim=4, hidden_dim=3, width=3)).double()
    conv = torch.nn.Conv1d(4, 9, 3).double()
    with torch.no_grad():  # Conv1d weight (3d, m, k): tap i is columns [i m, (i + 1) m) of ours
        conv.weight.copy_(layer.weight.view(9, 3, 4).transpose(1, 2))
        conv.bias.copy_(layer.bias)
    x = torch.randn(2, 5, 4, dtype=torch.float64)
    pre = conv(torch.nn.functional.pad(x.transpose(1, 2), (2, 0))).transpose(1, 2)
    z, f, o = layer.gates(x)
    torch.testing.assert_close(torch.cat([z.atanh(), f.logit(), o.logit()], -1), pre)


def test_causal_and_padding_invariant():
    torch.manual_seed(2)
    layer = QRNN(QRNNConfig(input_dim=5, hidden_dim=4, width=2)).double()
    lengths = [6, 3, 1]
    rows = [torch.randn(n, 5, dtype=torch.float64) for n in lengths]
    x = torch.zeros(3, 9, 5, dtype=torch.float64)  # wider than needed: extra padding
    for i, r in enumerate(rows):
        x[i, :len(r)] = r
        x[i, len(r):] = torch.randn(9 - len(r), 5)  # garbage behind the mask must not matter
    mask = torch.arange(9)[None, :] < torch.tensor(lengths)[:, None]
    batch = layer(x, mask)
    for i, r in enumerate(rows):
        alone = layer(r[None], torch.ones(1, len(r), dtype=torch.bool))[0]
        torch.testing.assert_close(batch[i, :len(r)], alone)
        assert batch[i, len(r):].abs().max() == 0  # padded steps output 0
    changed = x.clone()
    changed[0, 4] += 1.0  # a later token cannot change earlier states
    torch.testing.assert_close(layer(changed, mask)[0, :4], batch[0, :4])


def test_registered_with_the_paper_weight_count():
    layer = build_encoder("qrnn", input_dim=300, hidden_dim=512, width=2)
    assert (layer.input_dim, layer.output_dim) == (300, 512)
    assert layer.weight.numel() == 3 * 2 * 512 * 300  # 3kdm (Table 2)
    assert sum(p.numel() for p in layer.parameters()) == 3 * 2 * 512 * 300 + 3 * 512  # + one bias per gate
