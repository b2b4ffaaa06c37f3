"""Shared fixtures.

Real data comes through ``reproq.data.sources`` (the data dir, filled from ``REPROQ_DATA_MIRROR`` or
GitHub). Where it cannot be had a test that needs it is skipped — except under CI (``CI=true``), where
the mirror is part of the contract and a missing file fails the test instead.
"""

from __future__ import annotations

import json
import os

import pytest

from reproq.data import sources
from reproq.data.errors import MissingDataError


@pytest.fixture(scope="session")
def real_data():
    """``real_data(dataset, path) -> Path``: the verified local file, or skip (fail under CI)."""

    def need(dataset: str, path: str):
        try:
            return sources.require(dataset, path)
        except MissingDataError as exc:
            if os.environ.get("CI") == "true":
                pytest.fail(f"real data is required under CI: {exc}")
            pytest.skip(str(exc))

    return need


@pytest.fixture(autouse=True, scope="session")
def _scratch_build(tmp_path_factory):
    """Keep test runs (smoke notebooks, synthetic corpora) out of the developer's build/ folder."""
    if "REPROQ_BUILD" not in os.environ:
        os.environ["REPROQ_BUILD"] = str(tmp_path_factory.mktemp("build"))
    yield


@pytest.fixture(scope="session")
def chromium():
    """Debian's Chromium, which the site tests open pages in: skipped without it, failed under CI (``.ci/run``
    installs it)."""
    from reproq.report import browser

    if browser.chromium() is None:
        if os.environ.get("CI") == "true":
            pytest.fail("Chromium is required under CI (.ci/run installs Debian's chromium)")
        pytest.skip("no chromium here (apt-get install chromium)")


@pytest.fixture
def notebook_dir(tmp_path, monkeypatch):
    """An empty notebooks folder the runner reads instead of notebooks/, and a build folder of the test's own."""
    from reproq import paths

    monkeypatch.setattr(paths, "NOTEBOOKS_DIR", tmp_path / "notebooks")
    monkeypatch.setenv("REPROQ_BUILD", str(tmp_path / "build"))
    (tmp_path / "notebooks").mkdir()
    return tmp_path / "notebooks"


def _shift(path, value: float, **where) -> None:
    """Add ``value`` to the value of every record of the jsonl ``path`` whose fields match ``where``."""
    lines = [json.loads(line) for line in path.read_text().splitlines()]
    for r in lines:
        if all(r[k] == v for k, v in where.items()):
            r["value"] += value
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in lines))


@pytest.fixture
def shift():
    """``shift(path, value, **where)``: a record file's matching values moved, to see a reading's words follow."""
    return _shift


def _add_seed(path, seed: int, like: int, offset: float = 0.0, **where) -> None:
    """Copy every record of the jsonl ``path`` of seed ``like`` as seed ``seed``, ``offset`` added to the copies that
    match ``where``: a third seed, so that an interval over the seeds exists (it needs three distinct values)."""
    lines = [json.loads(line) for line in path.read_text().splitlines()]
    copies = [{**r, "seeds": [seed], "value": r["value"] + offset * all(r[k] == v for k, v in where.items())}
              for r in lines if r["seeds"] == [like]]
    assert copies, f"{path.name} has no record of seed {like}"
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in lines + copies))


@pytest.fixture
def add_seed():
    """``add_seed(path, seed, like, offset, **where)``: a record file given another seed (:func:`_add_seed`)."""
    return _add_seed
