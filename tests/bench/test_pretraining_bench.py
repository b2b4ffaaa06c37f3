"""The pre-training benchmark runs and writes its numbers (a smoke run: no timing is asserted)."""

from __future__ import annotations

import json

from reproq.bench import pretraining


def test_smoke_benchmark_writes_json_and_csv(tmp_path):
    out = tmp_path / "bench" / "pretraining.json"
    result = pretraining.main(out, profile="smoke")
    saved = json.loads(out.read_text())
    assert saved["batch"] == {"pairs": 4, "title_words": 3, "context_words": 6, "vocabulary": 500}
    names = [row["model"] for row in saved["rows"]]
    assert names[0] == "torch.nn.LSTM d=240 encoder-decoder" and names[-1].startswith("output layer + softmax")
    assert {"lstm d=240 encoder-decoder (ours)", "gru d=280 encoder-decoder (ours)",
            "rcnn d=400 encoder-decoder (ours)"} <= set(names)
    assert all(row["title_words_per_s"] > 0 for row in saved["rows"]) and saved["rows"][0]["relative_to_torch_lstm"] == 1
    rcnn = next(r for r in saved["rows"] if r["model"].startswith("rcnn"))
    assert rcnn["parameters"] == 2 * 400_800 + 400 * 500 + 500  # encoder, decoder, output layer over the vocabulary
    assert out.with_suffix(".csv").read_text().count("\n") == len(names) + 1
    assert result["rows"] == saved["rows"]
