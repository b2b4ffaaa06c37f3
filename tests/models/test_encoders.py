"""Every registered encoder: shape, no NaN, gradients, padding invariance; fast paths against slow twins."""

from __future__ import annotations

import pytest
import torch

from reproq.data.batching import pad_batch
from reproq.models import ENCODERS, build_encoder, count_parameters, encoder_config
from reproq.models.cnn import cnn_reference
from reproq.models import rcnn
from reproq.models.rcnn import rcnn_reference
from reproq.models.rnn import rnn_reference

SMALL = {"rcnn": dict(hidden_dim=6), "lstm": dict(hidden_dim=5), "gru": dict(hidden_dim=5), "cnn": dict(hidden_dim=7), "cbow": {}}
VARIANTS = [("rcnn", {}), ("rcnn", dict(order=1)), ("rcnn", dict(order=3)), ("rcnn", dict(scalar_gate=True)), ("lstm", {}),
            ("lstm", dict(bidirectional=True)), ("lstm", dict(one_bias=False)), ("gru", {}),
            ("gru", dict(bidirectional=True)), ("cnn", {}), ("cnn", dict(width=1)), ("cnn", dict(width=4)),
            ("cnn", dict(width=(2, 3, 5), hidden_dim=9))]
E = 4


def small(name, **extra):
    return build_encoder(name, input_dim=E, **{**SMALL.get(name, dict(hidden_dim=6)), **extra})


def batch(lengths, dtype=torch.float32, seed=0):
    g = torch.Generator().manual_seed(seed)
    _, mask = pad_batch([[1] * n for n in lengths])
    return torch.randn(len(lengths), mask.shape[1], E, generator=g, dtype=dtype), mask


@pytest.mark.parametrize("name", sorted(ENCODERS))
def test_registered_encoder_contract(name):
    torch.manual_seed(0)
    model = small(name)
    x, mask = batch([5, 3, 1, 0])
    h = model(x, mask)
    assert h.shape == (4, 5, model.output_dim) and torch.isfinite(h).all()
    assert (h[~mask] == 0).all() and h[mask].abs().sum() > 0
    h.pow(2).sum().backward()
    for pname, p in model.named_parameters():
        if p.requires_grad:
            assert p.grad is not None and p.grad.abs().sum() > 0, f"{name}.{pname} gets no gradient"


@pytest.mark.parametrize("name,extra", VARIANTS)
def test_padding_changes_no_encoding(name, extra):
    torch.manual_seed(0)
    model = small(name, **extra).eval()
    x, mask = batch([6, 2, 4])
    together = model(x, mask)
    for row, n in enumerate([6, 2, 4]):
        alone = model(x[row:row + 1, :n], mask[row:row + 1, :n])
        torch.testing.assert_close(together[row:row + 1, :n], alone, rtol=1e-5, atol=1e-6)


def test_several_cnn_widths_split_the_states_evenly():
    model = small("cnn", width=(2, 3, 5), hidden_dim=9)
    assert [conv.weight.shape for conv in model.convs] == [(3, E, 2), (3, E, 3), (3, E, 5)]
    with pytest.raises(ValueError, match="split evenly"):
        small("cnn", width=(2, 3), hidden_dim=7)


REFERENCES = {"rcnn": rcnn_reference, "lstm": rnn_reference, "gru": rnn_reference, "cnn": cnn_reference}


def _assert_agrees_with_slow_twin(name, extra, lengths, dtype=torch.float64, tolerance=1e-10):
    torch.manual_seed(1)
    model = small(name, **extra).to(dtype)
    for p in model.parameters():  # larger weights than the init, so that every term matters
        torch.nn.init.uniform_(p, -0.6, 0.6) if p.requires_grad else None
    x, mask = batch(lengths, dtype=dtype, seed=2)
    x.requires_grad_(True)
    fast, slow = model(x, mask), REFERENCES[name](model, x, mask)
    torch.testing.assert_close(fast, slow, rtol=tolerance, atol=tolerance / 100)
    weights = torch.randn_like(fast)
    inputs = [x, *(p for p in model.parameters() if p.requires_grad)]
    grads_fast = torch.autograd.grad((fast * weights).sum(), inputs)
    grads_slow = torch.autograd.grad((slow * weights).sum(), inputs)
    for a, b in zip(grads_fast, grads_slow):
        torch.testing.assert_close(a, b, rtol=tolerance * 10, atol=tolerance / 10)


@pytest.mark.parametrize("name,extra", VARIANTS)
@pytest.mark.parametrize("lengths", [[1], [7, 7], [7, 3, 1, 0], [2, 9, 5]])
def test_fast_path_agrees_with_slow_twin(name, extra, lengths):
    _assert_agrees_with_slow_twin(name, extra, lengths)


@pytest.mark.parametrize("lengths", [[7, 3, 1, 0], [2, 9, 5, 4, 4]])
def test_rcnn_in_blocks_of_rows_agrees_with_slow_twin(monkeypatch, lengths):
    monkeypatch.setattr(rcnn, "ROWS_PER_BLOCK", 2)  # several blocks, the last one short
    _assert_agrees_with_slow_twin("rcnn", {}, lengths)


@pytest.mark.parametrize("lengths", [[7, 3, 1, 0], [2, 9, 5]])
def test_rcnn_float32_fast_path_agrees_with_slow_twin(lengths):
    """float64 (above) takes torch's own products; float32, what training uses, takes oneDNN's on a CPU."""
    _assert_agrees_with_slow_twin("rcnn", {}, lengths, dtype=torch.float32, tolerance=1e-5)


def test_rcnn_products_through_onednn_agree_with_torch():
    if torch.backends.mkldnn.is_available():  # then the fast product is the one under test, not the fallback
        assert rcnn._ONEDNN_LINEAR is not None
    g = torch.Generator().manual_seed(0)
    x = torch.randn(37, 3, 13, generator=g)[:, 1]  # rows with a stride, like the recurrence's slices
    w, b = torch.randn(11, 13, generator=g), torch.randn(11, generator=g)
    torch.testing.assert_close(rcnn._linear(x, w, b), x @ w.T + b)
    torch.testing.assert_close(rcnn._linear(x, w), x @ w.T)


def test_rcnn_walks_rows_in_blocks_on_cpu_only(monkeypatch):
    monkeypatch.setattr(rcnn, "ROWS_PER_BLOCK", 2)
    assert rcnn._blocks(5, torch.device("cpu")) == [slice(0, 2), slice(2, 4), slice(4, 5)]
    assert rcnn._blocks(5, torch.device("cuda")) == [slice(0, 5)]  # a device object needs no GPU


RUN_REFERENCES = {"rcnn": rcnn_reference, "lstm": rnn_reference, "gru": rnn_reference}


@pytest.mark.parametrize("name", sorted(RUN_REFERENCES))
@pytest.mark.parametrize("with_state", [False, True])
@pytest.mark.parametrize("lengths", [[1], [7, 3, 1, 0], [2, 9, 5]])
def test_run_from_a_state_to_the_last_state_agrees_with_slow_twin(name, with_state, lengths):
    """What an encoder-decoder needs (Lei et al. §4.2): start from a given state, end with each row's state after
    its last real token, in values and gradients."""
    torch.manual_seed(1)
    model = small(name).double()
    for p in model.parameters():
        torch.nn.init.uniform_(p, -0.6, 0.6) if p.requires_grad else None
    x, mask = batch(lengths, dtype=torch.float64, seed=2)
    x.requires_grad_(True)
    k = {"rcnn": model.config.order + 1 if name == "rcnn" else 0, "lstm": 2, "gru": 1}[name]
    state = torch.randn(len(lengths), k, model.output_dim, dtype=torch.float64, requires_grad=True) \
        if with_state else None
    h, final = model.run(x, mask, state)
    h_slow, final_slow = RUN_REFERENCES[name](model, x, mask, state=state, final_state=True)
    assert final.shape == (len(lengths), k, model.output_dim)
    torch.testing.assert_close(h, h_slow, rtol=1e-10, atol=1e-12)
    torch.testing.assert_close(final, final_slow, rtol=1e-10, atol=1e-12)
    inputs = [x, *(p for p in model.parameters() if p.requires_grad), *([state] if with_state else [])]
    weights = torch.randn_like(h), torch.randn_like(final)
    grads = [torch.autograd.grad((a * weights[0]).sum() + (b * weights[1]).sum(), inputs)
             for a, b in ((h, final), (h_slow, final_slow))]
    for fast, slow in zip(*grads):
        torch.testing.assert_close(fast, slow, rtol=1e-9, atol=1e-11)


@pytest.mark.parametrize("name", sorted(RUN_REFERENCES))
def test_final_state_is_the_state_after_the_last_real_token(name):
    torch.manual_seed(0)
    model = small(name).eval()
    x, mask = batch([6, 2, 4])
    _, together = model.run(x, mask)
    for row, n in enumerate([6, 2, 4]):
        h, alone = model.run(x[row:row + 1, :n], mask[row:row + 1, :n])
        torch.testing.assert_close(together[row:row + 1], alone, rtol=1e-5, atol=1e-6)
        torch.testing.assert_close(alone[0, -1], h[0, -1])  # the last vector of a state is h


def test_run_refuses_a_bidirectional_encoder():
    with pytest.raises(ValueError, match="bidirectional"):
        small("lstm", bidirectional=True).run(*batch([3]))


def test_rcnn_refuses_left_padding():
    model = small("rcnn")
    x, mask = batch([3, 2])
    with pytest.raises(ValueError, match="right-padded"):
        model(x, mask.flip(1))


def test_table3_parameter_counts():
    """Lei et al. Table 3 prints 423K / 404K / 401K / 401K; one bias per gate as in the paper."""
    assert count_parameters(build_encoder("rcnn")) == 400_800  # W1, W2: 2·200·400; gate (200+400)·400 + 400; b 400
    assert count_parameters(build_encoder("lstm")) == 4 * (200 * 240 + 240 * 240 + 240) == 423_360
    assert count_parameters(build_encoder("gru")) == 3 * (200 * 280 + 280 * 280 + 280) == 404_040
    assert count_parameters(build_encoder("cnn")) == 3 * 200 * 667 + 667 == 400_867
    assert count_parameters(build_encoder("lstm", one_bias=False)) == 423_360 + 4 * 240  # torch's b_hh too


@pytest.mark.parametrize("order", [1, 2, 3, 5])
def test_rcnn_parameter_count_formula(order):
    E, d = 7, 5
    assert count_parameters(build_encoder("rcnn", input_dim=E, hidden_dim=d, order=order)) == \
        (order + 1) * E * d + d * d + 2 * d


def test_configs_default_to_the_paper():
    assert encoder_config("rcnn").hidden_dim == 400 and encoder_config("rcnn").order == 2
    assert encoder_config("cnn").width == 3 and encoder_config("cnn").hidden_dim == 667
    assert encoder_config("lstm").hidden_dim == 240 and encoder_config("gru").hidden_dim == 280
    with pytest.raises(ValueError, match="unknown encoder"):
        encoder_config("transformer")


def test_bidirectional_equals_torch_bidirectional_lstm_on_packed_sequences():
    """Our BiLSTM (two causal LSTMs, the backward one on each row's reversed real tokens) is the function of
    ``torch.nn.LSTM(bidirectional=True)`` on packed sequences with the same weights."""
    from torch.nn.utils.rnn import pack_padded_sequence, pad_packed_sequence

    torch.manual_seed(3)
    ours = build_encoder("lstm", input_dim=4, hidden_dim=3, bidirectional=True, one_bias=False).double()
    theirs = torch.nn.LSTM(4, 3, batch_first=True, bidirectional=True).double()
    with torch.no_grad():
        for suffix, lstm in (("", ours.rnn), ("_reverse", ours.rnn_reverse)):
            for name in ("weight_ih", "weight_hh", "bias_ih", "bias_hh"):
                getattr(theirs, f"{name}_l0{suffix}").copy_(getattr(lstm, f"{name}_l0"))
    x = torch.randn(3, 6, 4, dtype=torch.float64)
    lengths = torch.tensor([6, 2, 4])
    mask = torch.arange(6)[None, :] < lengths[:, None]
    packed = pack_padded_sequence(x, lengths, batch_first=True, enforce_sorted=False)
    expected, _ = pad_packed_sequence(theirs(packed)[0], batch_first=True, total_length=6)
    torch.testing.assert_close(ours(x, mask), expected)


@pytest.mark.parametrize("extra", [{}, dict(scalar_gate=True), dict(order=3)])
def test_rcnn_decay_is_one_minus_the_twins_gate(extra):
    torch.manual_seed(3)
    model = small("rcnn", **extra).double()
    for p in model.parameters():
        torch.nn.init.uniform_(p, -0.6, 0.6)
    x, mask = batch([7, 3, 1, 0], dtype=torch.float64, seed=4)
    decay = model.decay(x, mask)
    _, twin = rcnn_reference(model, x, mask, decay=True)
    assert decay.shape == (4, 7, model.output_dim) and (decay[~mask] == 0).all()
    torch.testing.assert_close(decay, twin, rtol=1e-10, atol=1e-12)
    assert ((decay[mask] > 0) & (decay[mask] < 1)).all()
    if extra.get("scalar_gate"):  # one gate for every dimension, up to how the product h U^λ rounds each column
        torch.testing.assert_close(decay, decay[..., :1].expand_as(decay), rtol=0, atol=1e-15)
    else:
        assert (decay[mask].std(dim=-1) > 0).all()


def test_rcnn_scalar_gate_has_input_plus_hidden_plus_one_gate_parameters():
    E, d = 200, 400
    full, scalar = build_encoder("rcnn", input_dim=E, hidden_dim=d), build_encoder("rcnn", scalar_gate=True)
    gate = lambda m: sum(p.numel() for n, p in m.named_parameters() if n.endswith("_gate"))  # noqa: E731
    assert gate(full) == (E + d) * d + d and gate(scalar) == (E + d) + 1
    assert count_parameters(full) - count_parameters(scalar) == gate(full) - gate(scalar)
