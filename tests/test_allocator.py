"""Huge pages for torch's large CPU buffers (set by the commands that start the study's processes, never by importing
reproq) change speed, not numbers."""

from __future__ import annotations

import os
import subprocess
import sys

STEP = """
import hashlib, torch
from reproq.models.rcnn import RCNN, RCNNConfig
torch.manual_seed(0)
model = RCNN(RCNNConfig(input_dim=50, hidden_dim=100))
x = torch.randn(300, 40, 50, requires_grad=True)  # projections of 300 x 40 x 300 floats: 14 MB, above 2 MB
model(x, torch.ones(300, 40, dtype=torch.bool)).square().sum().backward()
digest = hashlib.sha1(x.grad.numpy().tobytes())
for p in model.parameters():
    digest.update(p.grad.numpy().tobytes())
print(digest.hexdigest())
"""


def test_huge_pages_change_no_number():
    digests = []
    for setting in ("0", "1"):
        env = {**os.environ, "THP_MEM_ALLOC_ENABLE": setting, "OMP_NUM_THREADS": "1"}
        done = subprocess.run([sys.executable, "-c", STEP], env=env, capture_output=True, text=True, check=True)
        digests.append(done.stdout.strip())
    assert digests[0] == digests[1] and len(digests[0]) == 40


def test_importing_reproq_sets_no_environment_variable():
    """Issue 43: importing reproq set THP_MEM_ALLOC_ENABLE for whatever process imported it."""
    script = ("import os, sklearn, torch; before = dict(os.environ); import reproq, reproq.papers, reproq.runner; "
              "print(dict(os.environ) == before)")  # scikit-learn sets two KMP_ variables of its own when imported
    env = {k: v for k, v in os.environ.items() if k != "THP_MEM_ALLOC_ENABLE"}
    done = subprocess.run([sys.executable, "-c", script], env=env, capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "True"


def test_the_runners_kernels_ask_for_huge_pages(notebook_dir, monkeypatch):
    from reproq import runner
    from tests.test_runner import write_notebook

    monkeypatch.delenv("THP_MEM_ALLOC_ENABLE", raising=False)
    write_notebook(notebook_dir / "00_env.ipynb", "import os; open('thp.txt', 'w').write(os.environ['THP_MEM_ALLOC_ENABLE'])")
    list(runner.run(profile="smoke", progress=False))
    assert (notebook_dir / "thp.txt").read_text() == "1" and "THP_MEM_ALLOC_ENABLE" not in os.environ
