"""Huge pages for torch's large CPU buffers (set when reproq is imported) change speed, not numbers."""

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


def test_huge_pages_are_asked_for_and_change_no_number():
    assert os.environ["THP_MEM_ALLOC_ENABLE"] in ("0", "1")  # importing reproq set it, unless the user did
    digests = []
    for setting in ("0", "1"):
        env = {**os.environ, "THP_MEM_ALLOC_ENABLE": setting, "OMP_NUM_THREADS": "1"}
        done = subprocess.run([sys.executable, "-c", STEP], env=env, capture_output=True, text=True, check=True)
        digests.append(done.stdout.strip())
    assert digests[0] == digests[1] and len(digests[0]) == 40
