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


LOCK_LINES = {  # each form a line of requirements.lock may take (uv's output)
    "pin": r"([A-Za-z0-9_.\-]+)==(\S+) \\", "hash": r"    --hash=sha256:([0-9a-f]{64})( \\)?",
    "via": r"    # via", "via one": r"    # via (\S.*)", "via each": r"    #   (\S.*)", "comment": r"# .*"}


def _locked(text: str | None = None) -> dict[str, tuple[str, list[str], set[str]]]:
    """requirements.lock (or ``text``): package -> (its pinned version, the sha256 hashes of its files, what it is
    there for: the packages or ``reproq (pyproject.toml)`` that require it); ValueError at a line of no form of
    :data:`LOCK_LINES` (a misspelt ``--hash``, a hash of another length, a stray word)."""
    locked, name = {}, None
    lines = (paths.ROOT / "requirements.lock").read_text() if text is None else text
    for number, line in enumerate(lines.splitlines(), 1):
        kind, found = next(((k, m) for k, f in LOCK_LINES.items() if (m := re.fullmatch(f, line))), (None, None))
        if kind is None or (kind != "comment" and kind != "pin" and name is None):
            raise ValueError(f"requirements.lock, line {number}: {line!r} is no line of a lock")
        if kind == "pin":
            name = found[1].lower().replace("_", "-")
            locked[name] = (found[2], [], set())
        elif kind == "hash":
            locked[name][1].append(found[1])
        elif kind in ("via one", "via each"):
            locked[name][2].add(found[1].split(" (")[0].lower().replace("_", "-") if "pyproject" not in found[1]
                                else "reproq")
    return locked


def _unnamed(locked: dict, wanted: set[str]) -> list[str]:
    """The locked packages the project does not need: not in ``wanted`` (pyproject's), and required by no locked
    package that is needed."""
    needed, grew = {n for n in locked if n in wanted}, True
    while grew:
        more = {n for n, (_, _, via) in locked.items() if n not in needed and via & needed}
        needed, grew = needed | more, bool(more)
    return sorted(set(locked) - needed)


def test_the_lock_pins_every_requirement_within_its_bound_with_hashes_and_setup_installs_it():
    """Issue 44: a committed lock of the full pip dependency set with hashes, which ``make setup`` installs."""
    from packaging.requirements import Requirement

    project = tomllib.loads((paths.ROOT / "pyproject.toml").read_text())["project"]
    locked = _locked()
    assert len(locked) > 100 and all(hashes for _, hashes, _ in locked.values())
    assert "torch" not in locked and not [name for name in locked if name.startswith("nvidia")]
    wanted = [Requirement(r) for r in project["dependencies"] + project["optional-dependencies"]["dev"]]
    outside = [str(r) for r in wanted if r.name != "torch" and (r.name.lower() not in locked
                                                               or locked[r.name.lower()][0] not in r.specifier)]
    assert not outside, f"requirements.lock lacks these or pins them outside their bounds: {outside}"
    assert not _unnamed(locked, {r.name.lower() for r in wanted}), "requirements.lock holds packages nothing needs"
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


@pytest.mark.parametrize("damage", ["a misspelt --hash", "a hash of another length", "an extra package"])
def test_the_lock_test_refuses_a_damaged_lock(damage):
    """Issue 55: the lock test passed a requirements.lock with a misspelt --hash and an extra package."""
    text = (paths.ROOT / "requirements.lock").read_text()
    if damage == "a misspelt --hash":
        text = text.replace("    --hash=sha256:", "    --hsh=sha256:", 1)
    elif damage == "a hash of another length":
        text = re.sub(r"(--hash=sha256:[0-9a-f]{64})", r"\1a", text, count=1)
    else:
        text += "leftpad==1.0 \\\n    --hash=sha256:" + "0" * 64 + "\n    # via\n    #   reproq (pyproject.toml)\n"
    project = tomllib.loads((paths.ROOT / "pyproject.toml").read_text())["project"]
    wanted = {re.match(r"[A-Za-z0-9_.\-]+", r)[0].lower() for r in
              project["dependencies"] + project["optional-dependencies"]["dev"]}
    if damage == "an extra package":
        assert _unnamed(_locked(text), wanted) == ["leftpad"]
    else:
        with pytest.raises(ValueError, match="is no line of a lock"):
            _locked(text)


def test_a_flipped_hash_passes_the_lock_test_and_is_refused_by_the_install_setup_runs(tmp_path):
    """Issue 55 (b12489a, Why 5): a hash with one digit flipped is a line of the lock's form, which the lock test
    cannot refuse offline (it has no file to hash); the install ``make setup`` runs from the lock refuses it. Here a
    wheel made on the spot, locked with its hash flipped and with its own hash, installed offline with the flags of
    the Makefile's install from the lock."""
    import hashlib
    import subprocess
    import sys
    import zipfile

    wheel = tmp_path / "wheels" / "reproq_probe-1.0-py3-none-any.whl"
    wheel.parent.mkdir()
    files = {"reproq_probe/__init__.py": "",
             "reproq_probe-1.0.dist-info/METADATA": "Metadata-Version: 2.1\nName: reproq-probe\nVersion: 1.0\n",
             "reproq_probe-1.0.dist-info/WHEEL": "Wheel-Version: 1.0\nGenerator: a test\nRoot-Is-Purelib: true\n"
                                                "Tag: py3-none-any\n"}
    with zipfile.ZipFile(wheel, "w") as archive:
        for name, text in files.items():
            archive.writestr(name, text)
        archive.writestr("reproq_probe-1.0.dist-info/RECORD",
                         "".join(f"{name},,\n" for name in [*files, "reproq_probe-1.0.dist-info/RECORD"]))
    digest = hashlib.sha256(wheel.read_bytes()).hexdigest()
    flipped = digest[:-1] + ("1" if digest[-1] == "0" else "0")
    (flags,) = re.findall(r"pip install (.*) -r \$\(LOCK\)", (paths.ROOT / "Makefile").read_text())
    said = []
    for locked in (flipped, digest):
        lock = tmp_path / f"{locked}.lock"
        lock.write_text(f"reproq-probe==1.0 \\\n    --hash=sha256:{locked}\n    # via\n"
                        "    #   reproq (pyproject.toml)\n")
        assert _locked(lock.read_text()) == {"reproq-probe": ("1.0", [locked], {"reproq"})}  # the lock test passes it
        done = subprocess.run([sys.executable, "-m", "pip", "install", *flags.split(), "-r", str(lock), "--no-index",
                               "--find-links", str(wheel.parent), "--target", str(tmp_path / "installed" / locked)],
                              capture_output=True, text=True, timeout=120, check=False)
        said.append((done.returncode, "DO NOT MATCH THE HASHES" in done.stderr))
    assert said == [(1, True), (0, False)], said  # refused with the flipped hash; installed with its own
