"""dos Santos, Barbosa, Bogdanova, Zadrozny. *Learning Hybrid Representations to Retrieve Semantically Equivalent
Questions*. ACL 2015 (seed ``002_1b2fe520115214a8.txt``; its Figures 1-2 are architecture only)."""

from __future__ import annotations

from reproq.papers.lei2016 import ASKUBUNTU
from reproq.papers.paper import Claim, Paper

PAPER = Paper(
    key="dossantos2015", short="dos Santos et al. 2015",
    citation="dos Santos, Barbosa, Bogdanova, Zadrozny. *Learning Hybrid Representations to Retrieve Semantically "
             "Equivalent Questions*, ACL 2015",
    topic="BOW-CNN for duplicate questions (AskUbuntu)",
    has="BOW-CNN, CNN alone, six Lucene similarities, full-collection retrieval and Accuracy@k (Tables 1–5)",
    seed_file="002_1b2fe520115214a8.txt",
    claims=(Claim("BOW-CNN > TF-IDF on AskUbuntu titles (Table 3)", "BOW-CNN", "TFIDF", "Accuracy@1",
                  dict(table="Table 3", dataset="askubuntu", split="test", setting="title")),),
    stand_in={"askubuntu": ASKUBUNTU},
    unavailable={"english": "dos Santos et al.'s English StackExchange set is not available here"},
    notebooks=("10_dos_santos",),
)
