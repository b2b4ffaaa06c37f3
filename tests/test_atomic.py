"""Every write is atomic: a writer that fails or is killed leaves the old file whole."""

from __future__ import annotations

import pytest

from reproq import atomic


def test_a_failing_writer_leaves_the_old_file_and_no_scratch(tmp_path):
    target = tmp_path / "settings.json"
    target.write_text("old")

    def half_then_fail(scratch):
        scratch.write_text("ne")
        raise OSError("disk full")

    with pytest.raises(OSError, match="disk full"):
        atomic.replace_atomically(target, half_then_fail)
    assert target.read_text() == "old" and [p.name for p in tmp_path.iterdir()] == ["settings.json"]


def test_write_json_round_trips(tmp_path):
    path = atomic.write_json(tmp_path / "sub" / "a.json", {"x": 1, "path": tmp_path})
    assert path.read_text().startswith("{") and '"x": 1' in path.read_text()


def test_read_json_names_an_unreadable_file_and_gives_none(tmp_path):
    torn = tmp_path / "settings.json"
    torn.write_text('{"a": 1')
    with pytest.warns(UserWarning, match=r"settings.json: unreadable .*; started afresh"):
        assert atomic.read_json(torn, otherwise="started afresh") is None
    assert atomic.read_json(tmp_path / "missing.json", otherwise="-") is None
    assert atomic.read_json(atomic.write_json(tmp_path / "ok.json", {"a": 1}), otherwise="-") == {"a": 1}


def test_a_data_folder_that_is_a_link_is_written_through_and_a_results_folder_link_is_not(tmp_path, monkeypatch):
    """A link to a shared copy of the data is a user's choice (the data folder is no committed or build folder);
    a folder link inside results/ is refused (issue 55)."""
    from reproq import paths

    monkeypatch.setattr(paths, "ROOT", tmp_path / "repo")
    (tmp_path / "shared").mkdir()
    (tmp_path / "repo" / "results").mkdir(parents=True)
    (tmp_path / "repo" / "data").symlink_to(tmp_path / "shared")
    atomic.write_text(tmp_path / "repo" / "data" / "askubuntu" / "dev.txt", "ok")
    assert (tmp_path / "shared" / "askubuntu" / "dev.txt").read_text() == "ok"
    (tmp_path / "repo" / "results" / "00_x").symlink_to(tmp_path / "shared")
    with pytest.raises(ValueError, match="00_x is a symbolic link"):
        atomic.write_text(tmp_path / "repo" / "results" / "00_x" / "t.csv", "no")
