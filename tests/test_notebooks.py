"""Every notebook runs end to end in the smoke profile, and what it writes says where it came from."""

from __future__ import annotations

import json

import pytest

from reproq import paths, runner

NOTEBOOKS = runner.notebooks()


@pytest.mark.notebook
@pytest.mark.parametrize("notebook", NOTEBOOKS, ids=[p.stem for p in NOTEBOOKS])
def test_notebook_runs_in_smoke_profile(notebook, real_data):
    real_data("askubuntu", "dev.txt")  # the notebooks need the small real files: fail under CI without them
    outcome = runner.run_notebook(notebook, profile="smoke", force=True, progress=False)
    assert outcome.status == "ran" and outcome.executed.is_file()
    results_dir, figures_dir = paths.output_dirs("smoke")
    written = list((results_dir / notebook.stem).glob("*")) + list((figures_dir / notebook.stem).glob("*"))
    assert written, f"{notebook.stem} wrote no results or figures"
    for settings in (d / notebook.stem / "settings.json" for d in (results_dir, figures_dir)):
        if settings.is_file():
            for name, entry in json.loads(settings.read_text()).items():
                assert entry["profile"] == "smoke" and entry["notebook"] == notebook.stem
                assert ("__synthetic" in name) == bool(entry["synthetic"]), name


def test_notebooks_are_committed_without_outputs():
    for notebook in NOTEBOOKS:
        cells = json.loads(notebook.read_text())["cells"]
        assert not [c for c in cells if c["cell_type"] == "code" and (c.get("outputs") or c.get("execution_count"))], \
            f"{notebook.name} has outputs: strip them before committing"
        tagged = [c for c in cells if "parameters" in c.get("metadata", {}).get("tags", [])]
        assert len(tagged) == 1, f"{notebook.name} needs exactly one cell tagged 'parameters'"
        source = "".join(tagged[0]["source"])
        for name in ("PROFILE", "SEEDS", "DEVICE"):
            assert f"{name} =" in source, f"{notebook.name}: the parameters cell lacks {name}"


def test_notebooks_define_no_functions_or_classes():
    for notebook in NOTEBOOKS:
        for cell in json.loads(notebook.read_text())["cells"]:
            if cell["cell_type"] == "code":
                source = "".join(cell["source"])
                assert "\ndef " not in f"\n{source}" and "\nclass " not in f"\n{source}", \
                    f"{notebook.name}: helpers belong in the reproq library, not in a notebook"
