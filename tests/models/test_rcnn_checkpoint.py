"""Lei et al.'s released RCNN: what the file holds, that reproq's RCNN computes the authors' equations with it,
and that the reader runs nothing a pickle asks for."""

from __future__ import annotations

import builtins
import dataclasses
import gzip
import os
import pickle

import numpy as np
import pytest
import torch

from reproq.data.errors import FormatError
from reproq.models.rcnn_checkpoint import DATASET, PATH, load_rcnn, read_checkpoint


@pytest.fixture(scope="module")
def ckpt(real_data):
    return read_checkpoint(real_data(DATASET, PATH))


def test_the_released_file_holds_one_rcnn_layer_and_idf_weights(ckpt):
    """The arguments of the released run (qa/main.py's flags)::

        layer rcnn, order 2, mode 1, outgate 0, depth 1, hidden_dim 400, activation tanh, dropout 0.1,
        learning adam, learning_rate 0.001, l2_reg 1e-05, batch_size 40, normalize 1, reweight 1, average 0,
        cut_off 1, max_seq_len 100, max_epoch 50, dump_eval '',
        corpus ../../askubuntu/data/texts_raw_fixed.txt.gz,
        embeddings ../../askubuntu/vectors/vectors_pruned_by_texts_fixed.200.txt.gz,
        train ../../askubuntu/data/train_random.txt, dev ../../askubuntu/data/dev.txt,
        test ../../askubuntu/data/test.txt,
        load_pretrain ../pt/runs_new/pipeline_rcnn_full_lr0.001_d400_dr0.1_5.pkl.gz,
        save_model runs_new/pipeline_rcnn_full_lr0.001_d400_dr0.1_5
    """
    assert [w.shape for w in ckpt.filters] == [(200, 400), (200, 400)]
    assert ckpt.gate.shape == (600, 400) and ckpt.gate_bias.shape == ckpt.bias.shape == (400,)
    assert (ckpt.input_dim, ckpt.hidden_dim, ckpt.order) == (200, 400, 2)
    assert ckpt.word_weights.shape == (100408,)
    arrays = [*ckpt.filters, ckpt.gate, ckpt.gate_bias, ckpt.bias, ckpt.word_weights]
    assert all(a.dtype == np.float32 and np.isfinite(a).all() and not a.flags.writeable for a in arrays)
    # scikit-learn's smoothed idf: ln((1 + N) / (1 + df)) + 1 >= 1, and at most ln((1 + N) / 2) + 1 with
    # N = 335,530 documents (title and body of 167,765 questions)
    assert 1 < ckpt.word_weights.min() and ckpt.word_weights.max() == pytest.approx(np.log(335531 / 2) + 1)
    assert len(ckpt.args) == 26
    assert {k: ckpt.args[k] for k in ("layer", "order", "mode", "outgate", "depth", "hidden_dim", "activation",
                                      "dropout", "learning", "learning_rate", "l2_reg", "batch_size", "normalize",
                                      "reweight", "average", "cut_off", "max_seq_len")} == {
        "layer": "rcnn", "order": 2, "mode": 1, "outgate": 0, "depth": 1, "hidden_dim": 400, "activation": "tanh",
        "dropout": 0.1, "learning": "adam", "learning_rate": 0.001, "l2_reg": 1e-05, "batch_size": 40,
        "normalize": 1, "reweight": 1, "average": 0, "cut_off": 1, "max_seq_len": 100}
    assert ckpt.args["embeddings"].endswith("vectors_pruned_by_texts_fixed.200.txt.gz")


def authors_rcnn(ckpt, x: np.ndarray) -> np.ndarray:
    """The authors' mode-1 RCNN of order 2 on one sequence x [T, E], in float64 from the stored arrays and
    their layout (nn/advanced.py, nn/basic.py): λ_t = σ([x_t, h_{t-1}] @ W + b^λ), c1_t = λ c1_{t-1} +
    (1 - λ) x_t W_1, c2_t = λ c2_{t-1} + (1 - λ)(c1_{t-1} + x_t W_2), h_t = tanh(c2_t + b), zero states."""
    W_1, W_2 = (w.astype(np.float64) for w in ckpt.filters)
    gate, b_gate, b = (a.astype(np.float64) for a in (ckpt.gate, ckpt.gate_bias, ckpt.bias))
    h = c1 = c2 = np.zeros(b.shape)
    states = []
    for x_t in x:
        lam = 1 / (1 + np.exp(-(np.concatenate([x_t, h]) @ gate + b_gate)))
        c1, c2 = lam * c1 + (1 - lam) * (x_t @ W_1), lam * c2 + (1 - lam) * (c1 + x_t @ W_2)  # c1 of t - 1
        h = np.tanh(c2 + b)
        states.append(h)
    return np.stack(states)


def test_load_rcnn_computes_the_authors_equations(ckpt):
    lengths = [9, 5, 1]
    rng = np.random.default_rng(0)
    x = rng.normal(0, 0.5, (len(lengths), max(lengths), ckpt.input_dim))
    mask = np.arange(max(lengths)) < np.array(lengths)[:, None]
    x[~mask] = rng.normal(0, 0.5, (int((~mask).sum()), ckpt.input_dim))  # padding holds junk, and is ignored
    with torch.no_grad():
        h = load_rcnn(ckpt)(torch.tensor(x, dtype=torch.float32), torch.tensor(mask)).numpy()
    assert h.dtype == np.float32
    for row, n in enumerate(lengths):
        np.testing.assert_allclose(h[row, :n], authors_rcnn(ckpt, x[row, :n]), rtol=0, atol=1e-5)
        assert not h[row, n:].any()


@pytest.mark.parametrize("change", [{"mode": 0}, {"outgate": 1}, {"activation": "relu"}])
def test_load_rcnn_refuses_what_reproqs_rcnn_does_not_compute(ckpt, change):
    with pytest.raises(ValueError, match=next(iter(change))):
        load_rcnn(dataclasses.replace(ckpt, args={**ckpt.args, **change}))


class _Calls:
    """Pickles to a call ``function(argument)``: what a crafted checkpoint would do."""

    def __init__(self, function, argument):
        self.function, self.argument = function, argument

    def __reduce__(self):
        return self.function, (self.argument,)


@pytest.mark.parametrize("function, argument, named", [
    (os.system, "touch {witness}", r"(posix|os)\.system"),
    (builtins.exec, "open({witness!r}, 'w').close()", r"(__builtin__|builtins)\.exec"),  # protocol 2: Python 2's name
])
def test_a_pickle_that_names_another_global_is_refused_before_it_runs(tmp_path, function, argument, named):
    witness = str(tmp_path / "created-by-the-pickle")
    path = tmp_path / "evil.pkl.gz"
    payload = {"args": _Calls(function, argument.format(witness=witness)), "d": 400, "params": [], "weights": None}
    path.write_bytes(gzip.compress(pickle.dumps(payload, protocol=2)))
    with pytest.raises(FormatError, match=rf"evil\.pkl\.gz:1: .*refers to {named}"):
        read_checkpoint(path)
    assert not os.path.exists(witness)


def _gzipped_pickle(obj) -> bytes:
    # mtime=0: the same bytes, so the same test ids, in every worker
    return gzip.compress(pickle.dumps(obj, protocol=2), mtime=0)


@pytest.mark.parametrize("content, message", [
    (b"\x80\x02}q\x00.", "no gzip stream"),  # a pickle, not gzip'd
    (_gzipped_pickle({"d": 400, "params": [[1.0] * 1000]})[:-30], "cut short"),
    (gzip.compress(b"id\ttitle\tbody\n", mtime=0), "unreadable data"),  # gzip'd text
    (_gzipped_pickle({"d": 400, "params": []}), "keys args, d, params, weights"),
    (_gzipped_pickle([1, 2]), "keys args, d, params, weights"),
])
def test_malformed_files_are_format_errors_naming_the_file(tmp_path, content, message):
    path = tmp_path / "rcnn.pkl.gz"
    path.write_bytes(content)
    with pytest.raises(FormatError, match=rf"rcnn\.pkl\.gz:1: .*{message}"):
        read_checkpoint(path)
