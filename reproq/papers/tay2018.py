"""Tay, Luu, Hui. *Cross Temporal Recurrent Networks for Ranking Question Answer Pairs*. AAAI 2018 (seed
``001_9157be3a3951a43e.txt``)."""

from __future__ import annotations

from reproq.papers.paper import Claim, Paper

TRECQA_TEST = dict(table="Table 6", dataset="trecqa", split="test")

PAPER = Paper(
    key="tay2018", short="Tay et al. 2018",
    citation="Tay, Luu, Hui. *Cross Temporal Recurrent Networks for Ranking Question Answer Pairs*, AAAI 2018",
    topic="QRNN and CTRN for answer ranking (TrecQA, QatarLiving, YahooQA)",
    has="QRNN, CTRN and baselines on TrecQA, QatarLiving, YahooQA (Tables 2–7, runtime Figure 3)",
    seed_file="001_9157be3a3951a43e.txt",
    # section "Runtime Comparison" (Figures 1-2 are architecture)
    figures=(("Figure 3", "runtime of all recurrent models on TrecQA TRAIN-ALL, d = 800"),),
    claims=(Claim("CTRN > QRNN on TrecQA, trained on TRAIN (Table 6)", "CTRN", "QRNN", "MAP",
                  dict(TRECQA_TEST, setting="train=TRAIN")),
            Claim("CTRN > QRNN on TrecQA, trained on TRAIN-ALL (Table 6)", "CTRN", "QRNN", "MAP",
                  dict(TRECQA_TEST, setting="train=TRAIN-ALL")),
            Claim("QRNN > LSTM on TrecQA, trained on TRAIN (Table 6)", "QRNN", "LSTM", "MAP",
                  dict(TRECQA_TEST, setting="train=TRAIN"))),
    unavailable={"yahooqa": "YahooQA's env.pkl.zip has no pinned hash, so it is never downloaded"},
    notebooks=("00_datasets", "01_lexical_baselines", "04_trecqa_ctrn", "05_runtime", "06_qatarliving_wikiqa"),
)
