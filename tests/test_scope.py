"""The scope table counts the papers' rows our records cover and gives each item one status by one rule."""

from __future__ import annotations

import json

import pandas as pd
import pytest

from reproq import paths
from reproq.peak_memory import KEPT_PEAK
from reproq.papers.paper import CONFIGURATION, DATA, GIVEN, QUOTED, RESULT, SIZE
from reproq.report import guide, scope

NUMBERS = """paper,seed_file,table,dataset,split,method,setting,metric,value,note
lei2016,x.txt,Table 2,askubuntu,dev,BM25,pooling=-,MAP,52.0,
lei2016,x.txt,Table 2,askubuntu,dev,BM25,pooling=-,MRR,66.0,
lei2016,x.txt,Table 2,askubuntu,test,BM25,pooling=-,MAP,56.0,
lei2016,x.txt,Table 2,askubuntu,dev,CNN,pooling=mean,MAP,58.5,
lei2016,x.txt,Table 10,askubuntu,test,RCNN,pooling=last,MAP,60.7,
tay2018,y.txt,Table 4,yahooqa,test,CTRN,-,P@1,N/A,
rankine2016,z.txt,Table 1,askubuntu,test,GRU,-,MAP,50.0,
"""


def record(paper, table, method, *, split="dev", setting="pooling=-", metric="MAP", synthetic=False):
    return {"paper": paper, "table": table, "dataset": "askubuntu", "split": split, "method": method,
            "setting": setting, "metric": metric, "value": 0.5, "variant": "", "seeds": [0],
            "synthetic": synthetic, "config": {}, "data": {}, "code_version": "", "device": "cpu",
            "wall_time_s": None}


def write(results, notebook, name, records):
    folder = results / notebook
    folder.mkdir(parents=True, exist_ok=True)
    (folder / name).write_text("".join(json.dumps(r) + "\n" for r in records))


@pytest.fixture
def fake(tmp_path):
    """A results/ folder and a paper-numbers CSV with one item of each status."""
    results = tmp_path / "results"
    write(results, "01_a", "lei.jsonl", [record("lei2016", "Table 2", "BM25", metric=m) for m in ("MAP", "MRR")]
          + [record("lei2016", "Table 2", "BM25", split="valid")])  # a variant no paper row joins
    write(results, "02_b", "lei__synthetic.jsonl", [
        record("lei2016", "Table 2", "BM25", synthetic=True),  # same row as a real record: counted once
        record("lei2016", "Table 2", "CNN", setting="pooling=mean", synthetic=True),
        record("lei2016", "Table 10", "RCNN", split="test", setting="pooling=last", synthetic=True)])
    write(results, "05_runtime", "tay.jsonl", [record("tay2018", "Figure 3", "CTRN vs QRNN")])
    write(results, "06_c", "wikiqa.jsonl", [record("reproq", "WikiQA", "BM25")])
    (results / "06_c" / "settings.json").write_text("{}")  # not a record file
    csv = tmp_path / "numbers.csv"
    csv.write_text(NUMBERS)
    return results, csv


def row(table, paper, item):
    return table[(table.paper == paper) & (table.item == item)].iloc[0]


def test_status_rule():
    none, stand_in, real = pd.Series([], dtype=bool), pd.Series([True, True]), pd.Series([True, False])
    assert [scope.coverage(RESULT, s) for s in (none, stand_in, real)] == [
        "not built", "synthetic stand-in only", "trained or run on real data"]
    assert [scope.coverage(kind, real) for kind in (GIVEN, DATA, SIZE, CONFIGURATION, QUOTED)] == [
        "evaluated on real data", "evaluated on real data", "sizes and settings", "sizes and settings", "quoted"]
    assert scope.coverage(QUOTED, none) == "quoted"  # a quoted baseline covers nothing, run or not
    assert scope.status(pd.Series(["synthetic stand-in only", "sizes and settings", "quoted"])) == "sizes and settings"
    assert scope.status(pd.Series(["quoted", "quoted"])) == "quoted only"
    assert scope.status(pd.Series([], dtype=object)) == "not built"


def test_each_status_and_the_rows_covered(fake):
    table = scope.scope_table(*fake)
    lei2 = row(table, "lei2016", "Table 2")
    assert (lei2["paper rows"], lei2["rows covered"], lei2["real rows"]) == (3, 2, 1)  # test BM25 has none
    assert lei2.status == "evaluated on real data" and lei2["where"] == "01_a, 02_b"  # BM25: shipped scores
    assert lei2["covered by"] == {"evaluated on real data": 2, "synthetic stand-in only": 1, "not built": 1}
    lei10 = row(table, "lei2016", "Table 10")
    assert (lei10["paper rows"], lei10["rows covered"], lei10["real rows"]) == (1, 1, 0)
    assert lei10.status == "synthetic stand-in only" and lei10["where"] == "02_b"
    tay4 = row(table, "tay2018", "Table 4")
    assert (tay4["paper rows"], tay4["rows covered"], tay4.status, tay4["where"]) == (1, 0, "not built", "")
    fig = row(table, "tay2018", "Figure 3")  # a figure with records but no rows in the CSV
    assert pd.isna(fig["paper rows"]) and pd.isna(fig["rows covered"]) and fig.status == "trained or run on real data"
    assert row(table, "lei2016", "Figure 5").status == "not built"  # from FIGURES alone
    assert "reproq" not in set(table.paper)


def test_records_that_join_none_of_the_papers_rows_build_nothing_and_say_where_they_are(fake):
    results, csv = fake
    on_dev = dict(record("tay2018", "Table 4", "CTRN", setting="-", metric="P@1"), dataset="yahooqa")  # paper: test
    write(results, "06_d", "yahooqa_dev.jsonl", [on_dev])
    table = scope.scope_table(results, csv)
    tay4 = row(table, "tay2018", "Table 4")
    assert (tay4["paper rows"], tay4["rows covered"], tay4["real rows"], tay4.status) == (1, 0, 0, "not built")
    assert tay4.elsewhere == "ours on yahooqa dev, the paper's on yahooqa test" and tay4["where"] == "06_d"
    assert row(table, "lei2016", "Table 2").elsewhere == ""  # some of its records join: no phrase
    said = "not built (ours on yahooqa dev, the paper's on yahooqa test)"
    assert f"| tay2018 | Table 4 | 1 | 0 | 0 | {said} | 06_d |" in scope.scope_markdown(table)
    tay = next(line for line in scope.papers_markdown(table).splitlines() if line.startswith("| Tay"))
    assert tay.split(" | ")[6] == "Table 4 (Table 4: ours on yahooqa dev, the paper's on yahooqa test)"


def test_papers_then_tables_in_numeric_order_then_figures(fake):
    table = scope.scope_table(*fake)
    assert list(dict.fromkeys(table.paper)) == ["lei2016", "tay2018", "smolyakov2017", "rankine2016"]
    lei = list(table[table.paper == "lei2016"].item)
    assert lei == ["Table 2", "Table 10", "Figure 3", "Figure 4", "Figure 5"]
    assert list(table[table.paper == "tay2018"].item) == ["Table 4", "Figure 3"]
    smol = [int(item.split()[1]) for item in table[table.paper == "smolyakov2017"].item]
    assert smol == sorted(smol) and smol[:3] == [1, 2, 8]


def test_every_table_of_the_real_csv_is_listed_and_nothing_is_built_without_records(tmp_path):
    table = scope.scope_table(tmp_path)
    numbers = pd.read_csv(paths.PAPER_NUMBERS_CSV, dtype=str, keep_default_na=False)
    assert set(zip(numbers.paper, numbers.table)) <= set(zip(table.paper, table.item))
    assert set(table.status) == {"not built"} and (table["rows covered"].dropna() == 0).all()
    assert row(table, "lei2016", "Table 2")["paper rows"] == 20  # ten methods, dev and test


def test_markdown_says_how_it_is_made_and_leaves_blanks(fake):
    results, csv = fake
    text = scope.scope_markdown(scope.scope_table(results, csv), scope.beyond_the_papers(results))
    lines = text.splitlines()
    assert "reproq scope" in lines[0] and "results/" in lines[0] and "synthetic stand-in only" in lines[0]
    assert lines[2] == "| paper | item | rows | covered | real | status | where |"
    assert "| tay2018 | Figure 3 |  |  |  | trained or run on real data | 05_runtime |" in lines
    assert "| lei2016 | Table 2 | 3 | 2 | 1 | evaluated on real data | 01_a, 02_b |" in lines
    assert lines[-1] == "Beyond the papers: WikiQA (06_c)"


README = "# Project\n\nintro\n<!-- scope:start -->\nold table\nold line\n<!-- scope:end -->\n\n## After\n"


def test_update_block_replaces_exactly_the_marked_block_of_the_page_that_holds_it(tmp_path):
    readme, guide = tmp_path / "README.md", tmp_path / "guide.md"
    readme.write_text("# Project\n\nno block here\n")
    guide.write_text(README)
    assert scope.update_block("| new |\n", block="scope", pages=[readme, guide]) == guide
    assert guide.read_text() == README.replace("old table\nold line\n", "| new |\n")
    assert scope.update_block("| new |", block="scope", pages=[readme, guide]) is None  # unchanged: not rewritten
    assert readme.read_text() == "# Project\n\nno block here\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["README.md", "guide.md"]  # no temporary file left behind
    readme.write_text(README)
    with pytest.raises(ValueError, match="2 pages have it"):  # a block in two pages: which one is the current?
        scope.update_block("| other |\n", block="scope", pages=[readme, guide])


@pytest.mark.parametrize("text", ["# Project\nno markers\n", "<!-- scope:start -->\nonly a start\n",
                                  "<!-- scope:end -->\n<!-- scope:start -->\n"])
def test_update_block_refuses_a_page_without_markers(tmp_path, text):
    readme = tmp_path / "NOTES.md"
    readme.write_text(text)
    with pytest.raises(ValueError, match="NOTES.md"):
        scope.update_block("table\n", block="scope", pages=[readme])
    assert readme.read_text() == text


def _pages() -> str:
    """The reader pages' text: the README and the guide's pages, where the generated blocks are."""
    return "\n".join(page.read_text() for page in guide.reader_pages())


def test_the_guide_shows_the_scope_of_the_committed_results():
    """The guide's scope table is the one the committed records give: regenerate it with `reproq scope --write`."""
    markdown = scope.scope_markdown(scope.scope_table(), scope.beyond_the_papers())
    assert markdown in _pages(), "the scope table is stale: run `reproq scope --write`"


def test_cost_table_from_the_runners_file(tmp_path):
    cost = tmp_path / "pipeline_cost.json"
    cost.write_text(json.dumps({"10_dos_santos": {
        "seconds": 816.0, "peak_memory_mb": 3072, "threads": 1, "cpu": "AMD EPYC", "cores": 2,
        "load_average_before": [1.0, 1.0, 1.0], "load_average_after": [2.0, 1.5, 1.2], "code_version": "0.1.0+gabc"}}))
    text = scope.cost_markdown(cost)
    assert "| `10_dos_santos` | 13.6 | 3.0* | 1 | 1.0 → 2.0 | AMD EPYC (2 cores) | 0.1.0+gabc |" in text
    assert "| all" not in text  # a total only sums several notebooks
    two = json.loads(cost.read_text())
    two["11_rankine"] = dict(two["10_dos_santos"], seconds=184.0, peak_memory_mb=1024)
    cost.write_text(json.dumps(two))
    assert "| all 2, summed | 16.7 | 3.0 (largest) |" in scope.cost_markdown(cost)
    assert "none recorded yet" in scope.cost_markdown(cost)
    machine = {k: two["10_dos_santos"][k] for k in ("threads", "cpu", "cores", "load_average_before",
                                                    "code_version")}
    (tmp_path / "pipeline_wall.json").write_text(json.dumps({
        "jobs=1": dict(machine, seconds=1002.0, jobs=1, notebooks=2, finished="2026-11-26T03:00:00+0000"),
        "jobs=2": dict(machine, seconds=600.0, jobs=2, notebooks=2, notebook_seconds=1020.0,
                       finished="2026-11-26T04:00:00+0000")}))
    walls = scope.cost_markdown(cost)
    assert "- one after another: 16.7 min for 2 notebooks, 1 thread(s) each, AMD EPYC (2 cores)" in walls
    assert "- 2 at a time: 10.0 min for 2 notebooks (their own times summed: 17.0 min)" in walls
    assert "none recorded" not in walls
    # peaks a runner only sampled are marked, kept peaks are not
    assert "sampled every half second" in text
    two["10_dos_santos"]["peak_memory_read"] = two["11_rankine"]["peak_memory_read"] = KEPT_PEAK
    cost.write_text(json.dumps(two))
    assert "*" not in scope.cost_markdown(cost)
    readme = tmp_path / "README.md"
    readme.write_text("a\n<!-- scope:start -->\nold\n<!-- scope:end -->\n<!-- cost:start -->\nold\n<!-- cost:end -->\n")
    assert scope.update_block(text, block="cost", pages=[readme]) == readme
    assert "old\n<!-- scope:end -->" in readme.read_text() and "13.6" in readme.read_text()
    assert "not been run" in scope.cost_markdown(tmp_path / "missing.json")


def test_the_readme_opens_with_the_papers_table_of_the_committed_results():
    """The README's first table (what each paper has, what is built of it) comes from the records: regenerate it with
    `reproq scope --write`."""
    markdown = scope.papers_markdown(scope.scope_table())
    assert markdown in (paths.ROOT / "README.md").read_text(), "README papers table is stale: run `reproq scope --write`"


def test_the_papers_table_lists_each_item_under_its_status(fake):
    results, csv = fake
    text = scope.papers_markdown(scope.scope_table(results, csv), results)
    lei = next(line for line in text.splitlines() if line.startswith("| Lei"))
    # Table 2: 2 of its 4 numbers re-score shipped scores on real data, 1 only on the stand-in, 1 has no record;
    # Table 10 only synthetic records; the figures nothing
    assert lei.split(" | ")[2:] == ["—", "Table 2 (2 of 4)", "—", "Tables 2 (1 of 4), 10",
                                    "Table 2 (1 of 4), Figures 3, 4, 5", "—",
                                    "[lei2016](results/13_report/lei2016.md) |"]


def _block(text: str, name: str) -> str:
    return text.split(f"<!-- {name}:start -->\n", 1)[1].split(f"<!-- {name}:end -->", 1)[0]


def test_the_readmes_threads_block_is_the_benchmarks_file(tmp_path):
    """The README's thread ratios come from ``reproq bench threads``'s file; another measurement changes them."""
    assert _block(_pages(), "threads") == scope.threads_markdown(), \
        "run `reproq scope --write`"
    bench = json.loads((paths.ROOT / "results" / "bench" / "threads_1thread.json").read_text())
    bench["rows"][1]["seconds_per_step"] *= 2
    (tmp_path / "threads_1thread.json").write_text(json.dumps(bench))
    assert scope.threads_markdown(tmp_path / "threads_1thread.json") != scope.threads_markdown()
