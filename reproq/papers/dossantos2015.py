"""dos Santos, Barbosa, Bogdanova, Zadrozny. *Learning Hybrid Representations to Retrieve Semantically Equivalent
Questions*. ACL 2015 (seed ``002_1b2fe520115214a8.txt``; its Figures 1-2 are architecture only).

Here: the paper's two networks and Table 5's starts of the word weights at a profile's scale
(:func:`dos_santos_configs`, :func:`table5_configs`) and Table 2's settings as records; training and the full
collection's evaluation are :mod:`reproq.question_retrieval.full_collection_training` and
:mod:`reproq.question_retrieval.full_collection`; notebook 10's committed words (``READINGS``) and its finding
(``FINDINGS``).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import asdict, dataclass, replace
from pathlib import Path

import pandas as pd

from reproq.baselines.lexical import FIELDS
from reproq.models.bow_cnn import BOWCNNConfig
from reproq.papers.lei2016 import ARCHITECTURE, ASKUBUNTU
from reproq.papers.paper import CONFIGURATION, DATA, Claim, Finding, Paper
from reproq.papers.wording import listed, versus
from reproq.profiles import Overrides, scaled
from reproq.question_retrieval.full_collection_training import DosSantosConfig
from reproq.results import Provenance, Record, paper_numbers, summarize

# its settings at each profile (reproq.papers.profile gathers them; its notebooks' setup(section=...) reads them)
SECTION = "dos_santos"


@dataclass(frozen=True, kw_only=True)
class DosSantos:
    """dos Santos et al.'s full-collection retrieval (:mod:`reproq.question_retrieval.full_collection_training`)."""

    seeds: tuple[int, ...]
    valid_queries: int  # Table 1: 1,991 validation queries (AskUbuntu)
    test_queries: int  # Table 1: 3,800 test queries
    scale: float  # convolution units relative to Table 2's (BOW-CNN 400, CNN alone 1,000)
    train: Overrides  # DosSantosConfig's settings changed (epochs, max_train_pairs, ...)


PROFILES = {
    "smoke": DosSantos(seeds=(1,), valid_queries=10, test_queries=20, scale=0.02, train=Overrides(DosSantosConfig, epochs=1, max_train_pairs=40)),
    # Table 1's share of the collection as queries (3,800 test and 1,991 validation of 167,765 questions)
    "cpu": DosSantos(seeds=(1, 2), valid_queries=240, test_queries=450, scale=0.25,
                     train=Overrides(DosSantosConfig, epochs=5, max_train_pairs=2_000)),
    "paper": DosSantos(seeds=(1, 2, 3, 4, 5), valid_queries=1_991, test_queries=3_800, scale=1.0, train=Overrides(DosSantosConfig)),
}

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
    return [record for name, config in dos_santos_configs(PROFILES["paper"], "title").items()
            for record in Provenance(ARCHITECTURE).records(
                {"context_window": config.model.width, "conv_units": config.model.conv_units,
                 "learning_rate": config.lr}, paper="dossantos2015", table="Table 2", dataset="-", split="-",
                method=name, config=asdict(config.model))]


TABLES = {"title": "Table 3", "title+body": "Table 4"}  # the fields of each of the paper's retrieval tables
# table5_configs' settings less their fields, as the reading names them (t learned from the IDF: Tables 3 and 4's)
T5_STARTS = {"t_init=IDF; t_updated=yes": "t learned from the IDF", "t_init=IDF; t_updated=no": "t frozen at the IDF",
             "t_init=ones; t_updated=yes": "t learned from ones"}
PRINTED = "Accuracy@k in percent of the queries, means over the seeds"  # how notebook 10's readings print numbers


def _split_line(records: Sequence[Record]) -> str:
    """Table 1: the split built here."""
    n = {r.split: int(r.value) for r in records if r.table == "Table 1"}
    return (f"- The split (Table 1): {n['train']:,} training pairs, {n['validation']:,} validation and {n['test']:,} "
            "test queries.") if {"train", "validation", "test"} <= set(n) else ""


def _retrieval(records: Sequence[Record]) -> pd.Series:
    """Tables 3 and 4's mean Accuracy@k, indexed by (setting, split, metric, method)."""
    return summarize([r for r in records if r.table in TABLES.values()]).set_index(
        ["setting", "split", "metric", "method"])["mean"].sort_index()


def _highest(values: pd.Series, lowest: bool = False) -> str:
    """``"<names> <value>"``: the highest (or lowest) of ``values`` in percent, every method that has it named."""
    end = values.min() if lowest else values.max()
    return f"{' / '.join(values.index[values == end])} {100 * end:.1f}"


def _similarities_line(at: pd.Series, metrics: Sequence[str]) -> str:
    """The six Lucene similarities' range on test, per metric and fields (the lowest and highest, named)."""
    def span(fields: str, metric: str) -> str:
        rows = at[fields, "test", metric].drop(list(DOS_SANTOS_UNITS), errors="ignore")
        return f"{fields} from {_highest(rows, lowest=True)} to {_highest(rows)}"
    return "- The six Lucene similarities, test " + "; ".join(
        f"{metric}: " + ", ".join(span(fields, metric) for fields in FIELDS) for metric in metrics) + "."


def _networks_lines(records: Sequence[Record], at: pd.Series, splits: Sequence[str], paper: bool) -> list[str]:
    """Per fields and split: BOW-CNN, CNN alone and TFIDF's Accuracy@1, each network over TFIDF paired by seed
    (TFIDF, trained on nothing, pairs with every seed); with ``paper``, the paper's AskUbuntu test numbers beside."""
    theirs = paper_numbers("dossantos2015").query("dataset == 'askubuntu' and metric == 'Accuracy@1'")
    lines = []
    for fields, table in TABLES.items():
        for split in splits:
            shown = at[fields, split, "Accuracy@1"]
            said = "test" if split == "test" else "validation"
            line = (f"- {table} ({fields}), {said} Accuracy@1: BOW-CNN {100 * shown['BOW-CNN']:.1f}, CNN alone "
                    f"{100 * shown['CNN']:.1f}, TFIDF {100 * shown['TFIDF']:.1f}")
            if paper and split == "test":
                printed = theirs[theirs.table == table].set_index("method")["value"]
                line += (f" (the paper: BOW-CNN {100 * printed['BOW-CNN']:.1f}, CNN {100 * printed['CNN']:.1f}, its "
                         f"highest similarity {_highest(printed.drop(list(DOS_SANTOS_UNITS)))})")
            lines.append(line + "; " + "; ".join(
                versus(records, network, "TFIDF", metric="Accuracy@1", table=table, split=split)
                for network in ("BOW-CNN", "CNN")) + ".")
    return lines


def _collapse_line(records: Sequence[Record], folder: Path, networks: Sequence[str]) -> str:
    """How alike ``networks``' convolutional vectors of 200 questions are, untrained and after the last epoch (the
    mean cosine of ``training_history``, mean over the seeds), and the epoch validation kept for each seed (the
    records' ``best_epoch``; 0: the untrained network)."""
    found = sorted(Path(folder).glob("training_history*.csv"))
    if not found:
        return ""
    history = pd.read_csv(found[0])
    ends = history.groupby(["network", "fields", "seed"], sort=False)["mean cosine, conv vectors"].agg(
        ["first", "last"]).groupby(level=["network", "fields"], sort=False).mean()
    kept: dict[tuple[str, str], list[int]] = {}
    for r in sorted(records, key=lambda r: r.seeds):
        if r.table in TABLES.values() and r.split == "test" and r.metric == "Accuracy@1" and r.seeds:
            kept.setdefault((r.method, r.setting), []).append(r.config["best_epoch"])
    return ("- Mean cosine between the convolutional vectors of 200 questions, untrained → last epoch (near 1: every "
            "question alike), and the epoch validation kept per seed: " + "; ".join(
                f"{'CNN alone' if network == 'CNN' else network}, {fields} {row['first']:.3f} → {row['last']:.3f}, "
                f"kept {', '.join(map(str, kept.get((network, fields), [])))}"
                for (network, fields), row in ends.iterrows() if network in networks) + ".")


def _table5_lines(records: Sequence[Record]) -> list[str]:
    """Table 5's three starts of t on AskUbuntu, test Accuracy@1 (mean ± sd), the paper's English numbers beside,
    and t learned from the IDF over each other start, paired by seed."""
    by_start = [replace(r, method=T5_STARTS[start], setting=fields) for r in records if r.table == "Table 5"
                for fields, start in [r.setting.split("; ", 1)]]  # a start of t is a "method", paired as methods are
    shown = summarize(r for r in by_start if r.split == "test" and r.metric == "Accuracy@1").set_index(
        ["setting", "method"])
    theirs = paper_numbers("dossantos2015", "Table 5").query("metric == 'Accuracy@1'").set_index("setting")["value"]
    learned, *others = T5_STARTS.values()
    lines = []
    for fields in FIELDS:
        if fields not in shown.index.get_level_values("setting"):
            continue
        rows = shown.loc[fields]
        lines.append(f"- Table 5 ({fields}), test Accuracy@1 (mean ± sd; the paper's, English, beside): " + ", ".join(
            f"{name} {100 * rows.loc[name, 'mean']:.1f} ± {100 * rows.loc[name, 'std']:.1f}"
            + (f" ({100 * theirs[f'{fields}; {start}']:.1f})" if f"{fields}; {start}" in theirs else "")
            for start, name in T5_STARTS.items() if name in rows.index) + "; " + "; ".join(
            versus(by_start, learned, other, metric="Accuracy@1", table="Table 5", split="test", setting=fields)
            for other in others) + ".")
    return lines


BENCH = "full-collection_1thread.json"  # `reproq bench full-collection`'s file in results/bench/


def _speed_line(folder: Path) -> str:
    """`reproq bench full-collection` at the paper's scale (``results/bench/``): queries per second of each scorer,
    and its ratio to ``bm25s`` in the same run."""
    path = Path(folder).parent / "bench" / BENCH
    if not path.exists():
        return ""
    bench = json.loads(path.read_text())
    return (f"- Speed at their scale (`reproq bench full-collection`: {bench['collection']['documents']:,} questions, "
            f"{bench['threads']} thread(s), {bench['cpu']}, code {bench['code_version']}), queries/s (× `bm25s` in "
            "the same run): " + ", ".join(f"{r['scorer'].removeprefix('Lucene ')} {r['queries_per_s']:.0f} "
                                          f"({r['relative_to_bm25s']:.2f}×)" for r in bench["rows"]
                                          if not r["scorer"].startswith("bm25s")) + ".")


def full_collection_reading(records: Sequence[Record], folder: Path) -> str:
    """Notebook 10's committed words: the split, the similarities' range, the networks against TFIDF on test and
    validation with the paper's numbers beside, how alike the convolutional vectors become and the kept epochs,
    Table 5's starts of t, and the speed at the paper's scale."""
    at = _retrieval(records)
    return listed(records, PRINTED, [
        _split_line(records), _similarities_line(at, ("Accuracy@1", "Accuracy@10")),
        *_networks_lines(records, at, ("test", "dev"), paper=True),
        _collapse_line(records, folder, tuple(DOS_SANTOS_UNITS)), *_table5_lines(records), _speed_line(folder)])


def summary_reading(records: Sequence[Record], folder: Path) -> str:
    """Notebook 10 in short, for the guide's findings: the split, the similarities' test Accuracy@10, the networks
    against TFIDF on test, how alike CNN alone's convolutional vectors become, and the speed."""
    at = _retrieval(records)
    return listed(records, PRINTED, [
        _split_line(records), _similarities_line(at, ("Accuracy@10",)),
        *_networks_lines(records, at, ("test",), paper=False), _collapse_line(records, folder, ("CNN",)),
        _speed_line(folder)])


READINGS = {"full_collection": full_collection_reading,  # notebook 10's committed words (reproq.report.readings)
            "summary": summary_reading}
FINDINGS = (Finding(folder="10_dos_santos", reading="summary",
                    lead="dos Santos et al. Tables 1, 3–5 (notebook 10), full-collection retrieval on the stand-in "
                         "(never a reproduction)"),)
