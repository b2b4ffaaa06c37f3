"""Every decimal typed into the README, the guide or a notebook's Markdown is a paper's printed number: the study's own
numbers are generated from its records (reproq.report.prose; the reading cells: tests/test_readings.py)."""

from __future__ import annotations

import json
import shutil

import pytest

from reproq import paths
from reproq.report import guide, prose


def test_every_typed_number_of_the_readme_the_guide_and_the_notebooks_is_a_papers():
    """Issue 41's count of typed result decimals was 203 when counted; the study's numbers are generated since."""
    typed = prose.check()
    assert not typed, "typed decimals no paper prints (generate them from the records: a reading, a block):\n" + \
        "\n".join(f"  {t.where}: {t.text}   | {t.line[:120]}" for t in typed)


@pytest.fixture
def copy(tmp_path):
    """A copy of the README, the guide's pages and the notebooks, to plant numbers in."""
    shutil.copytree(paths.ROOT / "notebooks", tmp_path / "notebooks")
    shutil.copy(paths.ROOT / "README.md", tmp_path / "README.md")
    shutil.copytree(paths.ROOT / guide.GUIDE, tmp_path / guide.GUIDE)
    return tmp_path


def plant(root, notebook: str, text: str) -> None:
    """Append a typed Markdown cell holding ``text`` to ``root/notebooks/<notebook>.ipynb``."""
    path = root / "notebooks" / f"{notebook}.ipynb"
    nb = json.loads(path.read_text())
    nb["cells"].append({"cell_type": "markdown", "id": "planted", "metadata": {}, "source": [text]})
    path.write_text(json.dumps(nb))


def test_a_result_of_the_study_typed_by_hand_fails_and_a_quoted_paper_number_does_not(copy):
    """A record's own value typed into its notebook's Markdown fails too: generate it (a reading cell)."""
    first = json.loads((paths.ROOT / "results" / "04_trecqa_ctrn" / "tay2018_table6.jsonl").read_text().splitlines()[0])
    ours = f"{first['value']:.5f}"  # at three decimals it may be a paper's number by chance (0.742 is)
    plant(copy, "04_trecqa_ctrn", f"QRNN on TRAIN reaches {ours} MAP, the paper's 0.7582.")
    assert [(t.text, t.where.split(",")[0]) for t in prose.check(copy)] == [(ours, "04_trecqa_ctrn.ipynb")]


@pytest.mark.parametrize("place", ["README", "guide"])
def test_a_typed_number_fails_on_a_reader_page(copy, place):
    page = copy / "README.md" if place == "README" else copy / guide.GUIDE / "running.md"
    page.write_text(page.read_text() + "\n- **TrecQA** (notebook 04): QRNN reaches 0.91357 MAP.\n")
    assert [(t.text, t.where.split(":")[0]) for t in prose.check(copy)] == \
        [("0.91357", str(page.relative_to(copy)))]


def test_what_is_not_a_typed_number():
    text = """Python ≥ 3.11 and torch==2.13.0; Lucene 4.10 and 8.8.1; MIT 6.864 project; §4.2 and § 6.1.

```python
x = 0.25
```
Inline `lr = 0.001` is code. <!-- cost:start -->
| 02 | 5.9 |
<!-- cost:end -->
But 0.757 is, and so are −0.009, 1,234.5 and 52.0."""
    assert [t.text for t in prose.typed_numbers(text)] == ["0.757", "-0.009", "1234.5", "52.0"]
    assert [t.where for t in prose.typed_numbers(text, "README.md")][0] == "README.md:9"


def test_a_value_rounds_one_way_and_a_fraction_reads_as_a_percentage_only_from_1_or_with_its_sign():
    number = lambda text: prose.typed_numbers(text)[0]  # noqa: E731
    pool = prose.Pool([0.74848])
    assert pool.holds(number("0.748")) and not pool.holds(number("0.749"))
    assert prose.Pool([0.5204]).holds(number("52.0")) and not prose.Pool([0.5204]).holds(number("52.1"))
    # only a fraction reads as a percentage: 1.497 (a ratio, seconds, a perplexity) is not "149.7"
    assert not prose.Pool([1.497]).holds(number("149.7"))
    # a number below 1 is a percentage only with its sign: 0.0091 does not hold "0.91357 MAP", it holds "0.91 %"
    assert not prose.Pool([0.0091]).holds(number("0.91357 MAP")) and prose.Pool([0.0091]).holds(number("0.91 %"))


def _a_wrong_two_decimal_number() -> str:
    """A two-decimal number Smolyakov & Srikant print nowhere that another paper prints: quoted as theirs with a wrong
    digit, only the paper the sentence names can tell."""
    theirs, every = prose.paper_pool(["smolyakov2017"]), prose.paper_pool()
    for hundredths in range(1, 100):
        typed = prose.typed_numbers(f"0.{hundredths:02d}")[0]
        if every.holds(typed) and not theirs.holds(typed):
            return typed.text
    raise AssertionError("no such number: choose another paper")


@pytest.mark.parametrize("place", ["README", "guide", "notebook"])
@pytest.mark.parametrize("kind", ["a paper's number, a wrong digit at two decimals", "a count in millions"])
def test_each_kind_of_unsupported_number_fails_in_each_place(copy, kind, place):
    """Issue 52's two numbers that passed: a paper's number quoted at two decimals with a wrong digit, and a number
    with a K or M suffix ("1.7M words"), which was never read."""
    number = _a_wrong_two_decimal_number() if kind.startswith("a paper's") else "9.87M"
    text = {"a paper's number, a wrong digit at two decimals":
            f"Smolyakov & Srikant print a test MRR of {number} for their CNN (notebook 03).",
            "a count in millions": f"TrecQA's texts hold {number} words (notebook 04)."}[kind]
    if place == "notebook":
        plant(copy, "03_pooling_body_smolyakov" if kind.startswith("a paper's") else "04_trecqa_ctrn", text)
    else:
        page = copy / "README.md" if place == "README" else copy / guide.GUIDE / "running.md"
        page.write_text(page.read_text() + f"\n{text}\n")
    assert [t.text for t in prose.check(copy)] == [number]
