"""Lei et al.'s released RCNN, read without Theano and without letting the pickle run code.

The file is ``code/rationale/ubuntu/pre-trained/rcnn_lr0.001_d400_dr0.1.pkl.gz`` of taolei87/rcnn (registry
row ``rcnn-checkpoint``): a gzip'd protocol-2 pickle written by Python 2 with Theano's GPU backend. It holds
one dict, the layout of ``Encoder.save_model`` in ``code/rationale/ubuntu/rationale.py`` (``qa/main.py``'s
``load_pretrained_parameters`` reads its ``d`` and ``params``)::

    args     argparse.Namespace: the run's 26 flags of qa/main.py (layer rcnn, order 2, mode 1, outgate 0,
             depth 1, hidden_dim 400, activation tanh, dropout 0.1, adam at learning_rate 0.001, l2_reg 1e-5,
             batch_size 40, normalize 1, reweight 1, average 0, cut_off 1, max_seq_len 100, max_epoch 50,
             the data paths, load_pretrain = the pt/ encoder-decoder run it was fine-tuned from)
    d        400
    params   [[W, W, W, b, bias]]: one layer (depth 1), each a CudaNdarraySharedVariable of float32:
             W_1, W_2  [200, 400]  the n = 2 filters (nn/advanced.py RCNN: one bias-free ``Layer`` per order)
             W         [600, 400]  the forget gate, a ``RecurrentLayer``: rows :200 act on x_t, rows 200: on h_{t-1}
             b         [400]       its bias b^λ
             bias      [400]       b, added before tanh
    weights  word_weights [100408]: the IDF weight of each word id, by which inputs are scaled (reweight 1).
             qa/myio.py ``create_idf_weights``: scikit-learn's smoothed idf with titles and bodies as documents,
             at most ln(335,531 / 2) + 1 = 13.03 (a word in one of 335,530 documents: 167,765 questions);
             27,932 words share 3.1513: by that code the fallback, mean idf / 4, for words without an idf.

There is no vocabulary and there are no word vectors: ``weights`` is indexed by the authors' word ids (the
words of ``vectors_pruned_by_texts_fixed.200.txt.gz`` in file order, then corpus words seen more than once in
Python 2 dict order), which cannot be rebuilt from here. Note ``average 0``: this run pooled the last state
(left-padded batches), not the mean.

:func:`read_checkpoint` unpickles with :class:`~reproq.data.pickles.AllowListUnpickler`, which admits exactly
the nine globals the file names: numpy's ``_reconstruct``, ``ndarray`` and ``dtype`` are numpy's own, and each
Theano or argparse class becomes an inert stand-in that only keeps the state the pickle gives it; any other
global (``os.system``) is refused before anything is called. :func:`load_rcnn` puts the weights into
:class:`reproq.models.rcnn.RCNN`.
"""

from __future__ import annotations

import gzip
import pickle
import zlib
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import torch

from reproq.data.errors import FormatError
from reproq.data.pickles import AllowListUnpickler
from reproq.data.sources import fetch_command, require
from reproq.models.rcnn import RCNN, RCNNConfig

try:  # numpy 2 moved numpy.core to numpy._core; the pickle names the old module
    from numpy._core.multiarray import _reconstruct
except ImportError:  # numpy 1
    from numpy.core.multiarray import _reconstruct

DATASET, PATH = "rcnn-checkpoint", "code/rationale/ubuntu/pre-trained/rcnn_lr0.001_d400_dr0.1.pkl.gz"
KEYS = ("args", "d", "params", "weights")


class _StandIn:
    """An inert object in place of a Theano or argparse one: it keeps the state the pickle gives it, nothing more."""

    state: object = None

    def __setstate__(self, state):
        self.state = state


class _Namespace(_StandIn):
    """argparse.Namespace: ``state`` is the dict of the run's arguments."""


class _SharedVariable(_StandIn):
    """theano CudaNdarraySharedVariable: ``state["name"]``, and the value in ``state["container"]``."""


class _Container(_StandIn):
    """theano.gof.link.Container: the value is ``state["storage"][0]``."""


class _Unused(_StandIn):
    """CudaNdarrayType and scratchpad: type flags and debugging traces, which the reader does not need."""


def _cuda_ndarray(value: object) -> np.ndarray:
    """Theano's ``CudaNdarray_unpickler(ndarray)`` copied the array to the GPU; here the array is the value."""
    if not isinstance(value, np.ndarray):
        raise pickle.UnpicklingError(f"CudaNdarray_unpickler got a {type(value).__name__}, not an array")
    return value


ADMITTED = {
    ("numpy.core.multiarray", "_reconstruct"): _reconstruct,
    ("numpy", "ndarray"): np.ndarray,
    ("numpy", "dtype"): np.dtype,
    ("argparse", "Namespace"): _Namespace,
    ("theano.sandbox.cuda.var", "CudaNdarraySharedVariable"): _SharedVariable,
    ("theano.gof.link", "Container"): _Container,
    ("theano.sandbox.cuda.type", "CudaNdarray_unpickler"): _cuda_ndarray,
    ("theano.sandbox.cuda.type", "CudaNdarrayType"): _Unused,
    ("theano.gof.utils", "scratchpad"): _Unused,
}


@dataclass(frozen=True, eq=False)
class AuthorsRCNN:
    """The released RCNN as stored, in the authors' layout: E = 200 inputs, d = 400 states, n = 2 filters.

    Every array is a read-only float32 copy. ``load_rcnn`` says how they map onto reproq's ``RCNN``.
    """

    filters: tuple[np.ndarray, ...]  # W_1 .. W_n, each [E, d], applied as x_t @ W_i
    gate: np.ndarray  # [E + d, d], applied as [x_t, h_{t-1}] @ gate: W^λ = gate[:E], U^λ = gate[E:]
    gate_bias: np.ndarray  # [d] b^λ
    bias: np.ndarray  # [d] b
    word_weights: np.ndarray | None  # [V] IDF weight per authors' word id (None in a run with reweight 0)
    args: dict  # the run's arguments, e.g. {"order": 2, "mode": 1, "hidden_dim": 400, "dropout": 0.1, ...}

    @property
    def input_dim(self) -> int:
        return self.filters[0].shape[0]

    @property
    def hidden_dim(self) -> int:
        return self.bias.shape[0]

    @property
    def order(self) -> int:
        return len(self.filters)


def _unpickle(path: Path) -> object:
    again = f"fetch it again with `{fetch_command(DATASET)} --force`"
    try:
        with gzip.open(path, "rb") as fh:
            return AllowListUnpickler(fh, ADMITTED, encoding="latin1").load()
    except EOFError as exc:
        raise FormatError(path, 1, "a complete gzip'd pickle", f"one cut short ({exc}); {again}") from None
    except (gzip.BadGzipFile, zlib.error) as exc:
        raise FormatError(path, 1, "a gzip'd pickle", f"no gzip stream ({exc}); {again}") from None
    except (pickle.UnpicklingError, ValueError, TypeError, AttributeError, KeyError, IndexError) as exc:
        raise FormatError(path, 1, "a pickled RCNN checkpoint", f"unreadable data ({exc}); {again}") from None


def _value(var: object, path: Path, where: str) -> tuple[str, np.ndarray]:
    """The name and a read-only float32 copy of the value of a pickled shared variable."""
    try:
        name, value = var.state["name"], var.state["container"].state["storage"][0]
    except (AttributeError, KeyError, IndexError, TypeError):
        name = value = None
    if not isinstance(var, _SharedVariable) or not isinstance(value, np.ndarray) or value.dtype.kind != "f":
        raise FormatError(path, 1, f"a Theano shared variable holding floats as {where}", type(var).__name__)
    array = value.astype(np.float32)  # a copy: nothing else holds it
    array.flags.writeable = False
    return name, array


def read_checkpoint(path: str | Path) -> AuthorsRCNN:
    """The weights, word weights and arguments of an RCNN checkpoint written by taolei87/rcnn (one layer, no
    output gate: the released file's shape). Anything else is a :class:`FormatError` naming the file."""
    path = Path(path)
    raw = _unpickle(path)
    if not isinstance(raw, dict) or not set(KEYS) <= raw.keys():
        found = ", ".join(sorted(map(str, raw))) if isinstance(raw, dict) else type(raw).__name__
        raise FormatError(path, 1, f"a dict with the keys {', '.join(KEYS)}", found or "an empty dict")
    if not isinstance(raw["args"], _Namespace) or not isinstance(raw["args"].state, dict):
        raise FormatError(path, 1, "args as an argparse Namespace", type(raw["args"]).__name__)
    layers = raw["params"]
    if not isinstance(layers, list) or len(layers) != 1 or not isinstance(layers[0], list):
        raise FormatError(path, 1, "params as a list of one layer's weights (depth 1)", repr(layers)[:60])
    named = [_value(var, path, f"params[0][{i}]") for i, var in enumerate(layers[0])]
    names = [name for name, _ in named]
    if len(named) < 4 or names != ["W"] * (len(named) - 2) + ["b", "bias"]:
        raise FormatError(path, 1, "an RCNN layer's weights named W (n filters and the gate), b, bias", str(names))
    *filters, gate, gate_bias, bias = (array for _, array in named)
    E, d = filters[0].shape
    if (any(w.shape != (E, d) for w in filters) or gate.shape != (E + d, d) or gate_bias.shape != (d,)
            or bias.shape != (d,) or raw["d"] != d):
        raise FormatError(path, 1, f"shapes [E, d] per filter, [E + d, d], [d], [d] with d = {raw['d']}",
                          ", ".join(str(array.shape) for _, array in named))
    word_weights = None if raw["weights"] is None else _value(raw["weights"], path, "weights")[1]
    return AuthorsRCNN(tuple(filters), gate, gate_bias, bias, word_weights, dict(raw["args"].state))


def load_checkpoint(*, root: Path | None = None) -> AuthorsRCNN:
    """The released checkpoint, through :func:`reproq.data.sources.require` (fetched and verified by its hash)."""
    return read_checkpoint(require(DATASET, PATH, root=root))


# What reproq's RCNN computes; the authors' defaults (qa/main.py) are the same values.
SUPPORTED = {"layer": "rcnn", "mode": 1, "outgate": 0, "activation": "tanh", "depth": 1}


def load_rcnn(ckpt: AuthorsRCNN) -> RCNN:
    """reproq's :class:`~reproq.models.rcnn.RCNN` with the checkpoint's weights (E, d, n from its shapes).

    The authors' step (taolei87/rcnn ``code/nn/advanced.py``, class ``RCNN``, ``forward``, mode 1) is
    ``forget_t = layers[order].forward(x, h_tm1)``, then ``c_i_t = forget_t * c_i_tm1 + (1-forget_t) * in_i_t``
    for the first filter and ``... * (in_i_t + c_im1_tm1)`` for the others, ``in_i_t = layers[i].forward(x)``,
    and ``h_t = activation(c_i_t + self.bias)``, from zero states (``forward_all``). ``code/nn/basic.py``:
    ``Layer.forward`` is ``T.dot(x, self.W)`` (row vectors times W [n_in, n_out]), and the forget gate's
    ``RecurrentLayer.forward`` is ``activation(T.dot(x, self.W[:n_in]) + T.dot(h, self.W[n_in:]) + self.b)``
    with W of shape [n_in + n_out, n_out]. The layer's ``params`` are the filters' W, then the gate's W and b,
    then bias. So, with E = 200, d = 400:

    ==========  ========================  ==============================================  ======================
    paper       authors' array            how they apply it                               reproq RCNN
    ==========  ========================  ==============================================  ======================
    W^λ         ``gate[:E]``  [200, 400]  ``x_t @ gate[:E]``                              ``W_gate = gate[:E].T``
    U^λ         ``gate[E:]``  [400, 400]  ``h_{t-1} @ gate[E:]``                          ``U_gate = gate[E:]``
    b^λ         ``gate_bias`` [400]                                                       ``b_gate``
    W_1, W_2    ``filters``   [200, 400]  ``x_t @ W_i``                                   ``W_filter = [W_1.T; W_2.T]``
    b           ``bias``      [400]       ``tanh(c^{(n)}_t + b)``                         ``bias``
    ==========  ========================  ==============================================  ======================

    W^λ and the filters are transposed (reproq stores them [d, E] as ``nn.Linear`` does); U^λ is not, since
    reproq applies it as ``h_{t-1} @ U_gate`` too. A run that is not what ``RCNN`` computes (see
    ``SUPPORTED``: the non-linear filter, mode 0, or an output gate) raises ValueError.
    """
    different = {k: ckpt.args[k] for k, v in SUPPORTED.items() if ckpt.args.get(k, v) != v}
    if different:
        raise ValueError(f"reproq's RCNN computes {SUPPORTED}; this checkpoint has {different}")
    E, n = ckpt.input_dim, ckpt.order
    model = RCNN(RCNNConfig(input_dim=E, hidden_dim=ckpt.hidden_dim, order=n))
    weights = {
        "W_gate": ckpt.gate[:E].T,  # [d, E]
        "U_gate": ckpt.gate[E:],  # [d, d]
        "b_gate": ckpt.gate_bias,  # [d]
        "W_filter": np.concatenate([w.T for w in ckpt.filters]),  # [n d, E]
        "bias": ckpt.bias,  # [d]
    }
    with torch.no_grad():
        for name, value in weights.items():
            getattr(model, name).copy_(torch.tensor(value))
    return model
