"""The two install paths agree: every requirement of pyproject.toml (with the dev and anchor extras) is in
environment.yml with the same bound, and conda's torch bound admits the Makefile's."""

from __future__ import annotations

import re
import tomllib

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
