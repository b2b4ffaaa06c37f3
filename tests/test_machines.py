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


@pytest.mark.parametrize("damage, said", [
    ('{"paper": "tay2018"', "not a JSON record"),
    ("[1, 2]", "not a record (a JSON list, not an object)"),
    ('"value"', "not a record (a JSON string, not an object)"),
    ('{"paper": "tay2018", "table": "Table 6"}', "not a record (missing"),
    ({"value": "0.7"}, "'value' must be a number, got '0.7'"),
    ({"value": None}, "'value' must be a number, got None"),
    ({"seeds": "12"}, "'seeds' must be a list of integers, got '12'"),
    ({"seeds": [1.5]}, "'seeds' must be a list of integers, got [1.5]"),
    ({"method": 7}, "'method' must be a string, got 7"),
    # issue 55: each of these passed, or was a traceback
    ('{"paper": "tay2018", "value": ' + "[" * 100_000 + "]" * 100_000 + "}", "nested too deep"),
    ('{"paper": "tay2018", "table": "Table 6", "dataset": "trecqa", "split": "test", "method": "QRNN", "setting": "s",'
     ' "metric": "MAP", "value": 1e400}', "'value' must be a finite number, got inf"),
    ({"config": ["a", "list"]}, "'config' must be an object, got a JSON list"),
    ({"run": "threads=1"}, "'run' must be an object"),
    ({"synthetic": "false"}, "'synthetic' must be true or false, got 'false'"),
    ({"per_question": [True, False]}, "'per_question' must be a list of finite numbers"),
])
def test_a_malformed_record_is_one_line_naming_file_and_line(tmp_path, damage, said):
    """Issue 42: a malformed results folder for ``reproq machines`` gave tracebacks, errors naming no file, and a
    bad field that silently dropped a pairing (seeds as a string pair with nothing)."""
    here, other = write(tmp_path / "here", A), write(tmp_path / "other", A)
    path = other / "04_trecqa_ctrn" / "tay2018_table6.jsonl"
    good = json.loads(path.read_text().splitlines()[0])
    line = json.dumps({**good, **damage}) if isinstance(damage, dict) else damage
    path.write_text(path.read_text() + line + "\n")
    with pytest.raises(ValueError) as caught:
        machines.compare(here, other, ["04_trecqa_ctrn"])
    (message,) = str(caught.value).splitlines()
    assert message.startswith(f"{path}, line 5: ") and said in message


def test_a_cost_file_that_is_not_json_leaves_the_machine_unknown_in_one_warning(tmp_path):
    (tmp_path / "pipeline_cost.json").write_text('{"04_trecqa_ctrn": ')
    with pytest.warns(UserWarning, match="pipeline_cost.json: unreadable .* its machine is said unknown"):
        assert machines.machine_of(tmp_path, "04_trecqa_ctrn") == "unknown CPU (code ?)"
