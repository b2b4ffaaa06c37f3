"""reproq.report.machines: the same seeds' records from two machines, compared record by record."""

from __future__ import annotations

import json
from dataclasses import asdict

import pytest

from reproq.cli import main
from reproq.report import machines
from reproq.results import Record


def write(root, values):
    """A results folder with one notebook, one file: QRNN and CTRN MAP per seed."""
    folder = root / "04_trecqa_ctrn"
    folder.mkdir(parents=True)
    (folder / "tay2018_table6.jsonl").write_text("".join(
        json.dumps(asdict(Record("tay2018", "Table 6", "trecqa", "test", method, "train=TRAIN", "MAP", value,
                                 seeds=(seed,))), default=str) + "\n" for (method, seed), value in values.items()))
    return root


A = {("QRNN", 1): 0.75, ("QRNN", 2): 0.76, ("CTRN", 1): 0.74, ("CTRN", 2): 0.70}


def test_spread_finds_the_record_that_moved_and_the_mean_beside_the_seeds_sd(tmp_path):
    a = write(tmp_path / "a", A)
    b = write(tmp_path / "b", {**A, ("CTRN", 2): 0.72, ("LSTM", 1): 0.7})  # LSTM: only in b, not compared
    pairs = machines.compare(a, b, ["04_trecqa_ctrn"])
    assert len(pairs) == 4 and pairs["b - a"].abs().max() == pytest.approx(0.02)
    (row,) = machines.spread(pairs).to_dict("records")
    assert (row["records"], row["identical"]) == (4, 3)
    assert row["largest |b - a|, one seed"] == pytest.approx(0.02) and row["its record"].endswith("seed 2")
    assert row["largest |b - a|, mean of seeds"] == pytest.approx(0.01)  # CTRN's mean over its 2 seeds
    assert row["seeds' sd there"] == pytest.approx(0.0283, abs=1e-4)  # CTRN's 0.74 and 0.70 on a


def test_the_command_names_a_missing_folder(tmp_path, capsys):
    assert main(["machines", str(tmp_path / "nowhere")]) == 2
    assert "is not a folder" in capsys.readouterr().err
