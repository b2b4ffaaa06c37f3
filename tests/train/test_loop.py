"""The fit loop: checkpoints, resuming to the same numbers, callbacks."""

from __future__ import annotations

import math
import shutil

import pytest
import torch
from torch import nn

from reproq.train import checkpoint
from reproq.train.callbacks import EarlyStopping, Evaluate, KeepBest, LearningRateSchedule, ProgressBar
from reproq.train.loop import Callback, fit
from reproq.train.runtime import seed_everything

EPOCHS = 5
X = torch.randn(64, 6, generator=torch.Generator().manual_seed(0))
Y = X @ torch.arange(1.0, 7.0) + 0.1


class Kill(Exception):
    pass


class KillAt(Callback):
    """Raise at the end of epoch ``epoch`` (before its checkpoint is written), like a killed process."""

    def __init__(self, epoch: int):
        self.epoch = epoch

    def on_epoch_end(self, state, model, record):
        if record["epoch"] == self.epoch:
            raise Kill


def objective(model, batch):
    x, y = batch
    return ((model(x).squeeze(1) - y) ** 2).mean()


def batches(epoch: int):
    order = torch.randperm(len(X), generator=torch.Generator().manual_seed(epoch))  # the caller seeds by epoch
    for i in range(0, len(X), 16):
        yield X[order[i:i + 16]], Y[order[i:i + 16]]


def run(tmp_path=None, extra=(), epochs=EPOCHS):
    seed_everything(0)
    model = nn.Sequential(nn.Linear(6, 8), nn.Dropout(0.3), nn.Linear(8, 1))  # dropout draws from torch's RNG
    optimizer = torch.optim.Adam(model.parameters(), lr=0.05)
    evaluate = Evaluate(lambda m: {"negloss": -objective(m, (X, Y)).item()})
    callbacks = [evaluate, KeepBest("dev_negloss"), LearningRateSchedule(optimizer, lambda e: 0.05 / e), *extra]
    state = fit(model, objective, optimizer, batches, epochs=epochs, callbacks=callbacks,
                checkpoint_dir=tmp_path, fingerprint="toy")
    return model, state


def plain(history):
    """History with NaN (epoch 0's loss) as None: NaN != NaN would make equal histories differ."""
    return [{k: None if isinstance(v, float) and math.isnan(v) else v for k, v in r.items()} for r in history]


def params(model):
    return [p.detach().clone() for p in model.parameters()]


@pytest.mark.parametrize("kill_at", [1, 3])
def test_a_killed_run_resumes_to_the_same_numbers(tmp_path, kill_at):
    reference_model, reference = run()
    with pytest.raises(Kill):
        run(tmp_path, extra=[KillAt(kill_at)])
    assert checkpoint.load(tmp_path)["state"]["epoch"] == kill_at - 1
    model, state = run(tmp_path)
    assert all(torch.equal(a, b) for a, b in zip(params(model), params(reference_model)))
    assert plain(state.history) == plain(reference.history)  # losses and metrics bit for bit
    assert state.best["epoch"] == reference.best["epoch"] and state.best["value"] == reference.best["value"]
    assert all(torch.equal(state.best["model"][k], reference.best["model"][k]) for k in state.best["model"])


def test_history_starts_with_the_untrained_model(tmp_path):
    _, state = run(tmp_path)
    assert [r["epoch"] for r in state.history] == list(range(EPOCHS + 1))
    assert math.isnan(state.history[0]["loss"]) and "dev_negloss" in state.history[0]
    assert state.history[-1]["dev_negloss"] > state.history[0]["dev_negloss"]  # it learned
    assert state.finished and checkpoint.load(tmp_path)["state"]["finished"]


def test_a_finished_run_does_not_train_again(tmp_path):
    model, first = run(tmp_path)
    calls = []

    def counting_objective(m, b):
        calls.append(1)
        return objective(m, b)

    again = fit(model, counting_objective, torch.optim.Adam(model.parameters()), batches, epochs=EPOCHS,
                checkpoint_dir=tmp_path, fingerprint="toy")
    assert not calls and plain(again.history) == plain(first.history)


def test_the_parts_of_a_loss_are_averaged_into_the_history():
    """An objective returning its parts: each part's epoch mean is recorded beside the loss, the same loss trains."""
    def with_parts(m, b):
        x, y = b
        error = m(x).squeeze(1) - y
        return {"loss": (error ** 2).mean(), "squared": (error ** 2).mean(), "absolute": error.abs().mean()}

    histories = []
    for objective_ in (objective, with_parts):
        seed_everything(0)
        model = nn.Sequential(nn.Linear(6, 8), nn.Linear(8, 1))
        histories.append(fit(model, objective_, torch.optim.Adam(model.parameters(), lr=0.05), batches,
                             epochs=2).history)
    plain_run, parted = histories
    assert [r["loss"] for r in parted[1:]] == [r["loss"] for r in plain_run[1:]]
    assert [r["loss_squared"] for r in parted[1:]] == [r["loss"] for r in parted[1:]]
    assert all(0 < r["loss_absolute"] < math.sqrt(r["loss"]) + 1e-9 for r in parted[1:])  # mean |e| <= rms(e)
    assert "loss_absolute" not in parted[0]  # epoch 0 trains nothing


def test_other_settings_refuse_the_checkpoint(tmp_path):
    run(tmp_path, epochs=1)
    model = nn.Sequential(nn.Linear(6, 8), nn.Dropout(0.3), nn.Linear(8, 1))
    with pytest.raises(ValueError, match="other settings"):
        fit(model, objective, torch.optim.Adam(model.parameters()), batches, epochs=1, checkpoint_dir=tmp_path,
            fingerprint="another")


def test_early_stopping_and_first_best():
    seed_everything(0)
    model = nn.Linear(6, 1)
    values = iter([0.5, 0.7, 0.7, 0.6, 0.65, 0.9])
    state = fit(model, objective, torch.optim.SGD(model.parameters(), lr=0.0), batches, epochs=10,
                callbacks=[Evaluate(lambda m: {"MRR": next(values)}), KeepBest("dev_MRR"),
                           EarlyStopping("dev_MRR", patience=3), ProgressBar(10, disable=True)])
    assert [r["dev_MRR"] for r in state.history] == [0.5, 0.7, 0.7, 0.6, 0.65]
    assert state.stop and state.best["epoch"] == 1


def test_the_untrained_model_is_never_the_kept_epoch():
    # epoch 0 (the untrained model) scores best: it is shown in the history, but a trained epoch is kept, and
    # patience counts from the best trained epoch
    seed_everything(0)
    model = nn.Linear(6, 1)
    values = iter([0.9, 0.5, 0.6, 0.55, 0.52, 0.51, 0.5])
    state = fit(model, objective, torch.optim.SGD(model.parameters(), lr=0.0), batches, epochs=10,
                callbacks=[Evaluate(lambda m: {"MRR": next(values)}), KeepBest("dev_MRR"),
                           EarlyStopping("dev_MRR", patience=3), ProgressBar(10, disable=True)])
    assert state.history[0]["epoch"] == 0 and state.history[0]["dev_MRR"] == 0.9
    assert state.best["epoch"] == 2 and [r["epoch"] for r in state.history] == [0, 1, 2, 3, 4, 5]


def test_a_damaged_checkpoint_is_set_aside_and_the_run_trains_again(tmp_path):
    model, state = run()  # the run as it goes uninterrupted
    with pytest.raises(Kill):
        run(tmp_path, extra=[KillAt(3)])
    last = tmp_path / checkpoint.FILE
    last.write_bytes(last.read_bytes()[:200])  # cut short: its digest no longer matches, it is never read
    with pytest.warns(RuntimeWarning, match=r"last.pt: not the checkpoint this run wrote \(cut short, replaced"):
        again, again_state = run(tmp_path)
    assert (tmp_path / f"{checkpoint.FILE}.untrusted").is_file()
    assert plain(again_state.history) == plain(state.history)
    for a, b in zip(again.state_dict().values(), model.state_dict().values()):
        assert torch.equal(a, b)


@pytest.mark.parametrize("swap", ["the file", "the file and its digest"])
def test_a_swapped_checkpoint_is_set_aside_and_the_run_trains_from_its_start(tmp_path, swap):
    """Issue 42: a ``last.pt`` that loads and carries the run's fingerprint, but another run's weights (the same
    settings, trained for 2 epochs in another folder, finished), is never resumed nor re-scored; copied with the
    digest written beside it, it is refused too: the digest is bound to the run's folder."""
    _, reference = run()
    other, mine = tmp_path / "other", tmp_path / "mine"
    run(other, epochs=2)
    run(mine)
    shutil.copy(other / checkpoint.FILE, mine / checkpoint.FILE)
    if swap == "the file and its digest":
        shutil.copy(other / checkpoint.DIGEST, mine / checkpoint.DIGEST)
    with pytest.warns(RuntimeWarning, match=r"last.pt: not the checkpoint this run wrote .* set aside as "
                                            r"last.pt.untrusted, the run trains from its start"):
        _, state = run(mine)
    assert plain(state.history) == plain(reference.history)  # trained again from its start: 5 epochs, its own
    assert (mine / f"{checkpoint.FILE}.untrusted").is_file()


def test_a_checkpoint_without_its_digest_is_not_resumed(tmp_path):
    with pytest.raises(Kill):
        run(tmp_path, extra=[KillAt(3)])
    (tmp_path / checkpoint.DIGEST).unlink()
    with pytest.warns(RuntimeWarning, match="not the checkpoint this run wrote"):
        assert checkpoint.load(tmp_path) is None


def test_a_non_finite_loss_names_the_epoch_and_batch():
    model = nn.Linear(6, 1)
    with pytest.raises(FloatingPointError, match="epoch 1, batch 1"):
        fit(model, lambda m, b: torch.tensor(float("nan"), requires_grad=True), torch.optim.SGD(model.parameters(), lr=0.1),
            batches, epochs=1)


class Payload:
    """What a poisoned checkpoint smuggles in: unpickling it would run code."""

    def __reduce__(self):
        return (print, ("this ran from a checkpoint",))


def test_a_poisoned_checkpoint_is_refused_and_never_runs(tmp_path, capsys):
    path = tmp_path / checkpoint.FILE
    torch.save({"fingerprint": "toy", "state": Payload()}, path)
    with pytest.warns(RuntimeWarning, match="no digest was written with it"):  # never even read
        assert checkpoint.load(tmp_path) is None
    torch.save({"fingerprint": "toy", "state": Payload()}, path)
    checkpoint.seal(path)  # a forger who writes the digest too
    with pytest.raises(ValueError, match="refused, it holds more than tensors"):
        checkpoint.load(tmp_path)
    assert "this ran" not in capsys.readouterr().out


def test_an_unreadable_checkpoint_with_its_digest_is_set_aside_as_damaged(tmp_path):
    path = tmp_path / checkpoint.FILE
    path.write_bytes(b"")  # a 0-byte file, its digest written: one line naming it, no traceback
    checkpoint.seal(path)
    with pytest.warns(RuntimeWarning, match=r"last.pt could not be read .*set aside as last.pt.damaged"):
        assert checkpoint.load(tmp_path) is None
    assert (tmp_path / f"{checkpoint.FILE}.damaged").is_file() and not path.exists()


def test_a_checkpoint_holds_only_what_weights_only_loading_admits(tmp_path):
    with pytest.raises(Kill):
        run(tmp_path, extra=[KillAt(2)])
    assert torch.load(tmp_path / checkpoint.FILE, weights_only=True)["state"]["epoch"] == 1  # rng states included
