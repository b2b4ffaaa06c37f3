"""The two install paths agree: every requirement of pyproject.toml (with the dev and anchor extras) is in
environment.yml with the same bound, and conda's torch bound admits the Makefile's."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

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
