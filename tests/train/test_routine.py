"""The one training routine: seeded, the selected epoch's weights left in the model, resumable, the same numbers."""

from __future__ import annotations

import functools
import time

import pytest
import torch
from torch import nn

from reproq.train import callbacks as cb
from reproq.train import routine
from reproq.train.loop import Callback

X = torch.randn(64, 6, generator=torch.Generator().manual_seed(0))
Y = X @ torch.arange(1.0, 7.0)


class Batch(tuple):
    def to(self, device):
        return Batch(t.to(device) for t in self)


def objective(model, batch):
    x, y = batch
    return ((model(nn.functional.dropout(x, 0.3, model.training)).squeeze(1) - y) ** 2).mean()


def batches(epoch):
    order = torch.randperm(64, generator=torch.Generator().manual_seed(epoch))
    return [Batch((X[order[i:i + 16]], Y[order[i:i + 16]])) for i in range(0, 64, 16)]


def evaluations(model, device):
    """A dev score that peaks early: the negative distance of the weights to a point away from the optimum."""
    target = torch.full((6,), 0.5)
    return [cb.Evaluate(lambda m: {"score": -float((m.weight.detach()[0] - target).norm())})]


def train(seed=0, epochs=6, checkpoint_root=None, evaluate=evaluations):
    return routine.train(lambda device: nn.Linear(6, 1), objective, batches, seed=seed, device="cpu", epochs=epochs,
                         selection=routine.Selection("dev_score", patience=100), evaluations=evaluate,
                         optimizer=functools.partial(torch.optim.Adam, lr=0.05), key="k",
                         checkpoint_root=checkpoint_root, desc="test", progress=False)


def test_the_selected_epochs_weights_are_left_in_the_model_in_eval_mode():
    fitted = train()
    history = fitted.state.history
    best = max(range(len(history)), key=lambda i: history[i]["dev_score"])
    assert fitted.state.best["epoch"] == best and not fitted.model.training
    assert -float((fitted.model.weight.detach()[0] - 0.5).norm()) == pytest.approx(history[best]["dev_score"])
    result = fitted.result("config", 0, {"dev": {"score": 1.0}})
    assert result.best_epoch == best and result.n_parameters == 7 and result.seconds >= 0


def test_same_seed_same_numbers_and_another_seed_others():
    first, again, other = train(seed=1), train(seed=1), train(seed=2)
    assert first.state.history == again.state.history
    assert first.state.history != other.state.history


def test_reseeding_after_the_build_makes_training_draw_the_same_whatever_the_build_drew():
    def build_drawing(n):
        def build(device):
            model = nn.Linear(6, 1)
            torch.rand(n)  # building draws n more numbers (loading a start, say)
            return model
        return build

    def losses(n, reseed):
        fitted = routine.train(build_drawing(n), objective, batches, seed=0, device="cpu", epochs=2,
                               selection=routine.Selection("dev_score", 5), evaluations=evaluations,
                               optimizer=functools.partial(torch.optim.SGD, lr=0.0), key="k", checkpoint_root=None,
                               desc="", progress=False, reseed=reseed)
        return [r["loss"] for r in fitted.state.history[1:]]

    assert losses(0, reseed=True) == losses(100, reseed=True)  # dropout draws the same; weights untouched (lr 0)
    assert losses(0, reseed=False) != losses(100, reseed=False)


def test_a_killed_run_resumes_to_the_uninterrupted_numbers(tmp_path):
    class Killed(Exception):
        pass

    class Die(Callback):
        def on_epoch_end(self, state, model, record):
            if record["epoch"] == 3:
                raise Killed

    whole = train(checkpoint_root=tmp_path / "a")
    with pytest.raises(Killed):
        train(checkpoint_root=tmp_path / "b", evaluate=lambda model, device: [*evaluations(model, device), Die()])
    resumed = train(checkpoint_root=tmp_path / "b")
    assert repr(resumed.state.history) == repr(whole.state.history)  # epoch 0 has loss nan, and nan != nan
    assert torch.equal(resumed.model.weight, whole.model.weight)


def test_a_run_resumed_or_read_back_says_how_long_it_took_to_train_not_to_read(tmp_path):
    # records carried 0.3 s for a run that trained for 12 s: the clock restarted whenever a run was read back from its
    # finished checkpoint (a searched configuration's first seed, a run scored again) or resumed after a crash
    def slow(epoch):
        if epoch == 2 and not resumed:
            raise KeyboardInterrupt  # the crash, after epoch 1's checkpoint
        time.sleep(0.3)
        return batches(epoch)

    def fitted():
        return routine.train(lambda device: nn.Linear(6, 1), objective, slow, seed=0, device="cpu", epochs=2,
                             selection=routine.Selection("dev_score", patience=100), evaluations=evaluations,
                             optimizer=functools.partial(torch.optim.Adam, lr=0.05), key="k",
                             checkpoint_root=tmp_path, desc="test", progress=False)

    resumed = False
    with pytest.raises(KeyboardInterrupt):
        fitted()
    resumed = True
    finished = fitted()  # epoch 1 in the first process, epoch 2 here
    assert finished.seconds >= 0.6 and finished.state.seconds >= 0.6
    again = fitted()  # read back: no epoch trains
    assert [r["epoch"] for r in again.state.history] == [0, 1, 2] and again.state.seconds == finished.state.seconds
    assert again.seconds >= finished.state.seconds >= 0.6
