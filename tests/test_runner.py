"""The papermill batch: order, resume, and failures that name the notebook and the cell."""

from __future__ import annotations

import nbformat
import pytest

from reproq import paths, runner


def write_notebook(path, *cells):
    nb = nbformat.v4.new_notebook()
    params = nbformat.v4.new_code_cell('PROFILE = "cpu"  # smoke | cpu | paper\nVALUE = 1')
    params.metadata["tags"] = ["parameters"]
    nb.cells = [params] + [nbformat.v4.new_code_cell(c) for c in cells]
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    nbformat.write(nb, path)


@pytest.fixture
def notebook_dir(tmp_path, monkeypatch):
    monkeypatch.setattr(paths, "NOTEBOOKS_DIR", tmp_path / "notebooks")
    monkeypatch.setenv("REPROQ_BUILD", str(tmp_path / "build"))
    (tmp_path / "notebooks").mkdir()
    return tmp_path / "notebooks"


def test_notebooks_are_ordered_and_selectable(notebook_dir):
    for name in ["01_b", "00_a", "10_c", "scratch"]:
        write_notebook(notebook_dir / f"{name}.ipynb", "pass")
    assert [p.stem for p in runner.notebooks()] == ["00_a", "01_b", "10_c"]
    assert [p.stem for p in runner.notebooks(["01"])] == ["01_b"]
    with pytest.raises(ValueError, match="no notebook matches 99"):
        runner.notebooks(["99"])


def test_run_skips_unchanged_inputs_and_reruns_on_change(notebook_dir, tmp_path):
    write_notebook(notebook_dir / "00_ok.ipynb", "open('out.txt', 'a').write(f'{PROFILE} {VALUE}\\n')")
    first = list(runner.run(profile="smoke", progress=False))
    assert [o.status for o in first] == ["ran"] and first[0].executed.is_file()
    assert first[0].executed.is_relative_to(tmp_path / "build")
    assert [o.status for o in runner.run(profile="smoke", progress=False)] == ["skipped"]
    assert [o.status for o in runner.run(profile="smoke", parameters={"VALUE": 2}, progress=False)] == ["ran"]
    assert [o.status for o in runner.run(profile="smoke", parameters={"VALUE": 2}, force=True,
                                         progress=False)] == ["ran"]
    assert (notebook_dir / "out.txt").read_text().splitlines() == ["smoke 1", "smoke 2", "smoke 2"]


def test_failure_names_notebook_and_cell_and_keeps_earlier_results(notebook_dir):
    write_notebook(notebook_dir / "00_fine.ipynb", "x = 1")
    write_notebook(notebook_dir / "01_broken.ipynb", "y = 2", "raise RuntimeError('boom')")
    write_notebook(notebook_dir / "02_never.ipynb", "z = 3")
    outcomes = []
    with pytest.raises(runner.NotebookFailed, match=r"01_broken.ipynb failed in the cell starting `raise RuntimeError\('boom'\)` "
                       r"\(execution count 4\) with RuntimeError: boom"):
        for outcome in runner.run(profile="smoke", progress=False):
            outcomes.append(outcome)
    assert [o.notebook for o in outcomes] == ["00_fine"]
    # the finished notebook is not run again when the batch resumes
    with pytest.raises(runner.NotebookFailed):
        list(runner.run(profile="smoke", progress=False))
    assert runner._stamp("smoke", notebook_dir / "00_fine.ipynb").is_file()
    assert not runner._stamp("smoke", notebook_dir / "01_broken.ipynb").is_file()
    assert next(runner.run(profile="smoke", progress=False)).status == "skipped"


def test_unknown_profile_is_refused():
    with pytest.raises(ValueError, match="profile must be one of"):
        list(runner.run(profile="gpu"))
