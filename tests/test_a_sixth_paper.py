"""A sixth paper is one module (with its printed numbers beside it) and one notebook (issue 43): dropped into a copy
of the project, with no other file touched, it is found, its profile settings reach its notebook, the runner runs it
in the smoke profile before the report (whose number it follows), and the report sets its number beside the
paper's."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys

import nbformat
import pytest

from reproq import paths

pytestmark = pytest.mark.slow

MODULE = '''"""Toy et al. 2026: the sixth paper of a test."""

from dataclasses import dataclass

from reproq.papers.paper import Paper

PAPER = Paper(key="toy2026", short="Toy et al. 2026", citation="Toy, A. (2026). A test paper.", topic="a test",
              has="Table 1: one number", seed_file="", notebooks=("15_toy_paper",))
SECTION = "toy"


@dataclass(frozen=True, kw_only=True)
class Toy:
    seeds: tuple[int, ...]
    size: int


PROFILES = {"smoke": Toy(seeds=(7,), size=3), "cpu": Toy(seeds=(1, 2), size=30), "paper": Toy(seeds=(1,), size=300)}
'''

NUMBERS = """paper,seed_file,table,dataset,split,method,setting,metric,value,note
toy2026,,Table 1,-,test,Toy,-,MAP,31.0,
"""

CELLS = ['PROFILE = "cpu"  # smoke | cpu | paper\nSEEDS = None',
         ("from reproq.notebook import setup\n"
          'profile, toy, seeds, checkpoints, out = setup("15_toy_paper", profile=PROFILE, seeds=SEEDS, section="toy",\n'
          '                                            checkpoints="toy")'),
         ('records = out.provenance().records({"MAP": toy.size / 10}, paper="toy2026", table="Table 1", dataset="-",\n'
          '                                   split="test", method="Toy", seeds=seeds)\n'
          'out.save_records(records, "toy2026_table1")')]

REPORT = """
import json, sys
from reproq import notebook_schedule, papers, paths, runner
from reproq.report import verdicts
results = paths.output_dirs("smoke")[0]
built = verdicts.build(results_dir=results)
print(json.dumps({"papers": list(papers.PAPERS), "order": [nb.stem for nb in runner.notebooks()],
                  "lanes": [[nb.stem for nb in u.notebooks] for u in notebook_schedule.plan(runner.notebooks(), {})[1]],
                  "rows": built.rows[built.rows.paper == "toy2026"][["method", "metric", "mean", "gap", "verdict"]]
                          .astype(str)
                          .to_dict("records")}))
"""


def test_a_sixth_paper_is_its_module_and_its_notebook(tmp_path):
    root = tmp_path / "project"
    shutil.copytree(paths.ROOT / "reproq", root / "reproq", ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copytree(paths.NOTEBOOKS_DIR, root / "notebooks")
    before = {p.relative_to(root): p.read_bytes() for p in root.rglob("*") if p.is_file()}
    (root / "reproq" / "papers" / "toy2026.py").write_text(MODULE)
    (root / "reproq" / "papers" / "toy2026_numbers.csv").write_text(NUMBERS)
    notebook = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(c) for c in CELLS])
    notebook.cells[0].metadata["tags"] = ["parameters"]
    notebook.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    nbformat.write(notebook, root / "notebooks" / "15_toy_paper.ipynb")

    env = {**os.environ, "PYTHONPATH": str(root), "REPROQ_BUILD": str(tmp_path / "build")}
    ran = subprocess.run([sys.executable, "-m", "reproq", "run", "--profile", "smoke", "--only", "15"], env=env,
                         cwd=root, capture_output=True, text=True, timeout=600, check=False)
    assert ran.returncode == 0, ran.stderr[-2000:]
    reported = subprocess.run([sys.executable, "-c", REPORT], env=env, cwd=root, capture_output=True, text=True,
                              timeout=600, check=False)
    assert reported.returncode == 0, reported.stderr[-2000:]
    said = json.loads(reported.stdout)
    assert said["papers"][-1] == "toy2026" and len(said["papers"]) == 6
    assert said["order"][-2:] == ["15_toy_paper", "13_report"]  # the report runs last, by its role
    assert ["15_toy_paper"] in said["lanes"]
    assert [(r["method"], r["metric"]) for r in said["rows"]] == [("Toy", "MAP")]
    assert float(said["rows"][0]["mean"]) == pytest.approx(0.3)  # the smoke profile's size, from the module
    assert float(said["rows"][0]["gap"]) == pytest.approx(-0.01)  # 0.30 beside 31.0 read as a percent: 0.31
    assert said["rows"][0]["verdict"] == "inconclusive"  # a result of training from one seed: no interval
    after = {p.relative_to(root): p.read_bytes() for p in root.rglob("*") if p.is_file() and "__pycache__" not in p.parts}
    assert {str(p) for p in after if p not in before} == {"reproq/papers/toy2026.py", "reproq/papers/toy2026_numbers.csv",
                                                          "notebooks/15_toy_paper.ipynb"}
    assert all(after[p] == before[p] for p in before)  # no other file touched
