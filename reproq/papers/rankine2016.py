"""Rankine. *Question Retrieval*. Harvard CS287 project, 2016 (seed ``004_afb19b87d6db3268.txt``; no figures)."""

from __future__ import annotations

from reproq.papers.lei2016 import ASKUBUNTU
from reproq.papers.paper import Claim, Paper

PAPER = Paper(
    key="rankine2016", short="Rankine 2016",
    citation="Rankine. *Question Retrieval*, Harvard CS287 project, 2016",
    topic="CBOW and GRU variants on AskUbuntu",
    has="BOW, TF-IDF, CBOW, weighted CBOW, GRU, CNN on AskUbuntu; separate title and body encoders (Table 1)",
    seed_file="004_afb19b87d6db3268.txt",
    claims=(Claim("weighted CBOW > TF-IDF on AskUbuntu (Table 1)", "Weighted CBOW", "TF-IDF", "MRR",
                  dict(table="Table 1", dataset="askubuntu", split="test")),),
    stand_in={"askubuntu": ASKUBUNTU},
    notebooks=("11_rankine",),
)
