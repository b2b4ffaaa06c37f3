"""The reproq command: one clear message and an exit code, never a traceback."""

from __future__ import annotations

import pytest

from reproq import cli


def test_status_lists_every_file_with_its_state(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("REPROQ_DATA", str(tmp_path))
    (tmp_path / "askubuntu").mkdir()
    (tmp_path / "askubuntu" / "dev.txt").write_text("not the real file\n")
    assert cli.main(["data", "status", "askubuntu"]) == 0
    out = capsys.readouterr().out
    assert "askubuntu/dev.txt" in out and "corrupt" in out and "askubuntu/test.txt" in out and "missing" in out


def test_verify_fails_on_a_corrupt_file(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("REPROQ_DATA", str(tmp_path))
    (tmp_path / "askubuntu").mkdir()
    (tmp_path / "askubuntu" / "dev.txt").write_text("not the real file\n")
    assert cli.main(["data", "verify", "askubuntu"]) == 1
    assert "reproq data fetch askubuntu" in capsys.readouterr().err


def test_fetch_from_the_mirror_then_verify(tmp_path, monkeypatch, capsys, real_data):
    real_data("trecqa", "TrecQA/data/DEV.xml")  # the mirror is here (or the test is skipped / fails in CI)
    monkeypatch.setenv("REPROQ_DATA", str(tmp_path))
    assert cli.main(["data", "fetch", "wikiqa"]) == 0
    assert cli.main(["data", "verify", "wikiqa"]) == 0
    assert "12 file(s) present and checked, 0 corrupt" in capsys.readouterr().out


@pytest.mark.parametrize("argv, message", [
    (["data", "fetch", "nope"], "unknown dataset 'nope'"),
    (["run", "--only", "99"], "no notebook matches 99"),
    (["bench", "nope"], "unknown benchmark 'nope'"),
])
def test_bad_arguments_get_one_line_and_exit_2(argv, message, capsys):
    assert cli.main(argv) == 2
    err = capsys.readouterr().err
    assert message in err and "Traceback" not in err


def test_param_values_are_json_when_they_can_be():
    parser = cli.build_parser()
    args = parser.parse_args(["run", "-p", "SEEDS=[1,2]", "-p", "NAME=cnn"])
    assert dict(args.param) == {"SEEDS": [1, 2], "NAME": "cnn"}
