"""dos Santos, Barbosa, Bogdanova, Zadrozny. *Learning Hybrid Representations to Retrieve Semantically Equivalent
Questions*. ACL 2015 (seed ``002_1b2fe520115214a8.txt``; its Figures 1-2 are architecture only).

Here: the paper's two networks and Table 5's starts of the word weights at a profile's scale
(:func:`dos_santos_configs`, :func:`table5_configs`) and Table 2's settings as records; training and the full
collection's evaluation are :mod:`reproq.question_retrieval.full_collection_training` and
:mod:`reproq.question_retrieval.full_collection`.
"""

from __future__ import annotations

from dataclasses import asdict, replace

from reproq import profiles
from reproq.models.bow_cnn import BOWCNNConfig
from reproq.papers.lei2016 import ARCHITECTURE, ASKUBUNTU
from reproq.papers.paper import CONFIGURATION, DATA, Claim, Paper
from reproq.profiles import DosSantos, scaled
from reproq.question_retrieval.full_collection_training import DosSantosConfig
from reproq.results import Provenance, Record

PAPER = Paper(
    key="dossantos2015", short="dos Santos et al. 2015",
    citation="dos Santos, Barbosa, Bogdanova, Zadrozny. *Learning Hybrid Representations to Retrieve Semantically "
             "Equivalent Questions*, ACL 2015",
    topic="BOW-CNN for duplicate questions (AskUbuntu)",
    has="BOW-CNN, CNN alone, six Lucene similarities, full-collection retrieval and Accuracy@k (Tables 1–5)",
    seed_file="002_1b2fe520115214a8.txt",
    claims=(Claim("BOW-CNN > TFIDF on AskUbuntu titles, test (Table 3)", "BOW-CNN", "TFIDF", "Accuracy@1",
                  dict(table="Table 3", dataset="askubuntu", split="test", setting="title"),
                  beside=("Accuracy@5", "Accuracy@10"),
                  quote="\"For both datasets, BOW-CNN outperforms the six IR algorithms for both title and all "
                        "settings\" (§4, Comparison with Baselines)"),),
    stand_in={"askubuntu": ASKUBUNTU},
    unavailable={"english": "dos Santos et al.'s English StackExchange set is not available here"},
    kinds={("Table 1",): DATA, ("Table 2",): CONFIGURATION},  # Table 2: the settings our configs copy
    notebooks=("10_dos_santos",),
)


DOS_SANTOS_UNITS = {"CNN": 1_000, "BOW-CNN": 400}  # dos Santos et al. Table 2: convolutional units

DOS_SANTOS_LR = {"CNN": 0.05, "BOW-CNN": 0.01}  # Table 2: learning rates

def dos_santos_configs(d: DosSantos, fields: str) -> dict[str, DosSantosConfig]:
    """dos Santos et al. Tables 3 and 4's two networks for ``fields`` ("title" or "title+body"): CNN alone and
    BOW-CNN (t from IDF, learned), Table 2's units (scaled by the profile) and learning rates."""
    return {name: DosSantosConfig(model=BOWCNNConfig(conv_units=scaled(units, d.scale), bow=name == "BOW-CNN"),
                                  fields=fields, lr=DOS_SANTOS_LR[name], **d.train)
            for name, units in DOS_SANTOS_UNITS.items()}

def table5_configs(d: DosSantos, fields: str) -> dict[str, DosSantosConfig]:
    """dos Santos et al. Table 5's starts of BOW-CNN's word weights t, keyed as the paper's settings: IDF learned (the
    Tables 3–4 network), IDF frozen, ones learned."""
    bow_cnn = dos_santos_configs(d, fields)["BOW-CNN"]
    return {f"{fields}; t_init={'IDF' if start == 'idf' else start}; t_updated={'yes' if learned else 'no'}":
            replace(bow_cnn, model=replace(bow_cnn.model, t_init=start, train_t=learned))
            for start, learned in (("idf", True), ("idf", False), ("ones", True))}


def dos_santos_table2_records() -> list[Record]:
    """dos Santos et al. Table 2 — context window, convolutional units, learning rate — of the networks the `paper`
    profile trains (:func:`dos_santos_configs`). Depends on no data."""
    return [record for name, config in dos_santos_configs(profiles.get("paper").dos_santos, "title").items()
            for record in Provenance(ARCHITECTURE).records(
                {"context_window": config.model.width, "conv_units": config.model.conv_units,
                 "learning_rate": config.lr}, paper="dossantos2015", table="Table 2", dataset="-", split="-",
                method=name, config=asdict(config.model))]
