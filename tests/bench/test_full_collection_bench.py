"""The full-collection benchmark runs and writes its numbers (a smoke run: no timing is asserted)."""

from __future__ import annotations

import json

import numpy as np
import pytest

from reproq.bench import full_collection

pytest.importorskip("bm25s")


def test_smoke_benchmark_writes_json_and_csv(tmp_path):
    out = tmp_path / "bench" / "full_collection.json"
    result = full_collection.main(out, profile="smoke")
    saved = json.loads(out.read_text())
    names = [row["scorer"] for row in saved["rows"]]
    assert names == [f"Lucene {n}" for n in ("TFIDF", "BM25", "IB", "DFR", "LMDirichlet", "LMJelinekMercer")] + [
        "BOW-CNN", "CNN alone", "bm25s (yardstick)"]
    assert saved["collection"]["documents"] == 3_000 and saved["queries"] == 50
    assert all(row["queries_per_s"] > 0 for row in saved["rows"]) and saved["rows"][-1]["relative_to_bm25s"] == 1
    assert out.with_suffix(".csv").read_text().count("\n") == len(names) + 1
    assert result["rows"] == saved["rows"]


def test_the_synthetic_collection_is_fixed_by_its_seed():
    a, b = full_collection.collection(50, 8, 30), full_collection.collection(50, 8, 30)
    assert a == b and all(a) and np.mean([len(d) for d in a]) == pytest.approx(8, abs=2)
