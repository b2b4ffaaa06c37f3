"""The two install paths agree: every requirement of pyproject.toml (with the dev and anchor extras) is in
environment.yml with the same bound, and conda's torch bound admits the Makefile's."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

import pytest
import yaml

from reproq import paths

CONDA_NAMES = {"torch": "pytorch"}  # where conda-forge names a package otherwise


def requirement(text: str) -> tuple[str, str]:
    """``"pandas>=2.0"`` -> ``("pandas", ">=2.0")``; conda's ``=1.2`` written as ``==1.2``."""
    name, bound = re.match(r"\s*([A-Za-z0-9_.\-]+)\s*(.*)", text.split("#")[0]).groups()
    bound = bound.strip().replace(" ", "")
    return name.lower(), ("==" + bound[1:] if re.fullmatch(r"=[^=].*", bound) else bound)


def test_environment_yml_has_every_requirement_with_its_bound():
    project = tomllib.loads((paths.ROOT / "pyproject.toml").read_text())["project"]
    wanted = dict(map(requirement, project["dependencies"] + project["optional-dependencies"]["dev"]
                      + project["optional-dependencies"]["anchor"]))
    environment = yaml.safe_load((paths.ROOT / "environment.yml").read_text())
    assert environment["channels"] == ["conda-forge", "nodefaults"]
    entries = environment["dependencies"]
    pip = next(e["pip"] for e in entries if isinstance(e, dict))
    have = dict(requirement(e) for e in entries if isinstance(e, str)) | dict(requirement(e) for e in pip
                                                                              if not e.startswith("-e"))
    makefile = re.search(r"^TORCH \?= torch==(\S+)", (paths.ROOT / "Makefile").read_text(), re.MULTILINE)[1]
    from packaging.specifiers import SpecifierSet

    assert makefile in SpecifierSet(have.pop("pytorch"))  # the committed results' torch is one conda may install
    wanted.pop("torch")
    missing = {name: bound for name, bound in wanted.items() if have.get(CONDA_NAMES.get(name, name)) != bound}
    assert not missing, f"environment.yml lacks or bounds otherwise: {missing}"
    assert "cxx-compiler" in have  # the RCNN kernel's compiler
    assert have["python"] == project["requires-python"].replace(" ", "")  # both paths bound Python alike


def _setup_commands(tmp_path, path: str, *make_args: str) -> str:
    """What ``make setup`` would run for a fresh environment, with ``path`` as PATH (``make -n``: nothing runs)."""
    import os
    import shutil
    import subprocess

    venv = tmp_path / "venv"
    done = subprocess.run([shutil.which("make"), "-n", "-B", f"{venv}/.installed", f"VENV={venv}", *make_args],
                          cwd=paths.ROOT, capture_output=True, text=True, env={**os.environ, "PATH": path},
                          timeout=60)
    assert done.returncode == 0, done.stderr
    return next(line for line in done.stdout.splitlines() if '"torch==' in line)


def test_setup_takes_torch_from_the_cpu_index_where_no_nvidia_gpu_is_found(tmp_path):
    import os
    import platform

    cpu_index = "--extra-index-url https://download.pytorch.org/whl/cpu"
    fake = tmp_path / "bin"
    fake.mkdir()
    (fake / "nvidia-smi").write_text("#!/bin/sh\n")
    (fake / "nvidia-smi").chmod(0o755)
    plain = os.pathsep.join(p for p in os.environ["PATH"].split(os.pathsep) if not (Path(p) / "nvidia-smi").exists())
    if platform.system() == "Linux":
        assert _setup_commands(tmp_path, plain).endswith(cpu_index)
    assert cpu_index not in _setup_commands(tmp_path, f"{fake}{os.pathsep}{plain}")  # a GPU: its CUDA build
    assert cpu_index not in _setup_commands(tmp_path, plain, "TORCH_INDEX=")  # overridden


def _locked() -> dict[str, tuple[str, list[str]]]:
    """requirements.lock: package -> (its pinned version, the sha256 hashes of its files)."""
    locked, name = {}, None
    for line in (paths.ROOT / "requirements.lock").read_text().splitlines():
        if pinned := re.match(r"([A-Za-z0-9_.\-]+)==(\S+)", line):
            name = pinned[1].lower().replace("_", "-")
            locked[name] = (pinned[2], [])
        elif hashed := re.match(r"\s+--hash=sha256:([0-9a-f]{64})", line):
            locked[name][1].append(hashed[1])
    return locked


def test_the_lock_pins_every_requirement_within_its_bound_with_hashes_and_setup_installs_it():
    """Issue 44: a committed lock of the full pip dependency set with hashes, which ``make setup`` installs."""
    from packaging.requirements import Requirement

    project = tomllib.loads((paths.ROOT / "pyproject.toml").read_text())["project"]
    locked = _locked()
    assert len(locked) > 100 and all(hashes for _, hashes in locked.values())
    assert "torch" not in locked and not [name for name in locked if name.startswith("nvidia")]
    wanted = [Requirement(r) for r in project["dependencies"] + project["optional-dependencies"]["dev"]]
    outside = [str(r) for r in wanted if r.name != "torch" and (r.name.lower() not in locked
                                                               or locked[r.name.lower()][0] not in r.specifier)]
    assert not outside, f"requirements.lock lacks these or pins them outside their bounds: {outside}"
    makefile = (paths.ROOT / "Makefile").read_text()
    assert "pip install --quiet --require-hashes -r $(LOCK)" in makefile and "LOCK ?= " in makefile


@pytest.mark.notebook
def test_the_conda_paths_commands_run_notebook_00_on_the_pip_environment(real_data, tmp_path):
    """Issue 44: the README's conda command sequence, run as written (the environment's commands first on PATH, as
    ``conda activate`` puts them) on this pip environment, at the smoke profile and notebook 00 only: the fetch exits
    0 whatever cannot be fetched, and the run writes its folder, not the committed study."""
    import os
    import subprocess
    import sys

    real_data("trecqa", "TrecQA/data/DEV.xml")  # the mirror is here (or the test is skipped / fails in CI)
    readme = (paths.ROOT / "README.md").read_text()
    block = re.search(r"```bash\nconda env create -f environment.yml && conda activate reproq\n(.*?)```", readme,
                      re.DOTALL)[1]
    reproduce = next(line.split("#")[0].strip() for line in block.splitlines() if line.startswith("reproq "))
    assert reproduce == "reproq data fetch && reproq run"
    env = {**os.environ, "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}",
           "REPROQ_BUILD": str(tmp_path / "build")}
    done = subprocess.run(["bash", "-c", f"{reproduce} --profile smoke --only 00"], cwd=paths.ROOT, env=env,
                          capture_output=True, text=True, timeout=900, check=False)
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    assert "ran      00_datasets" in done.stdout + done.stderr
    assert (tmp_path / "build" / "smoke").is_dir()
