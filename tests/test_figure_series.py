"""No two series of a figure look alike (issue 44: two floors in one dotted grey in Tay et al.'s Table 6 seeds plot):
every figure a notebook saves is checked (``Outputs.save_figure``: :func:`reproq.results.outputs.series_clashes`), so
the notebooks' smoke runs check every figure function on the shapes of data it is given; here the check itself."""

from __future__ import annotations

import matplotlib
import pytest

from reproq.results import outputs
from reproq.results.outputs import Outputs, series_clashes

matplotlib.use("Agg")


@pytest.fixture()
def axes():
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots()
    yield fig, ax
    plt.close(fig)


def test_two_dotted_lines_of_one_colour_clash_whatever_their_dots(axes):
    fig, ax = axes
    ax.axhline(0.7, color="#555555", linestyle=":", label="overlap count")
    ax.axhline(0.8, color="#555555", linestyle=(0, (1, 3)), label="anchor")
    ax.set_title("train=TRAIN")
    assert series_clashes(fig) == [("in panel 'train=TRAIN', 'overlap count' and 'anchor' are drawn alike (colour, "
                                    "kind of line, marker)")]
    ax.get_lines()[1].set_color("#8172b3")
    assert series_clashes(fig) == []


def test_kinds_of_line_that_a_reader_tells_apart_do_not_clash(axes):
    fig, ax = axes
    for i, style in enumerate(["-", "--", ":", "-."]):
        ax.plot([0, 1], [i, i + 1], color="grey", linestyle=style)
    ax.plot([0, 1], [5, 6], color="grey", linestyle="-", marker="o")  # a marker tells it from the solid line
    assert series_clashes(fig) == []
    ax.plot([0, 1], [7, 8], color="grey", linestyle=(0, (6, 2)))  # another dashed grey line
    assert len(series_clashes(fig)) == 1


def test_a_line_drawn_exactly_over_another_is_said_unless_drawn_otherwise(axes):
    fig, ax = axes
    ax.plot([0, 1, 2], [0.1, 0.5, 0.9], color="C0", label="CNN, direct")
    ax.plot([0, 1, 2], [0.1, 0.5, 0.9], color="C1", label="CNN, adversarial")
    assert series_clashes(fig) == ["in a panel, 'CNN, direct' and 'CNN, adversarial' are drawn one over the other"]
    ax.get_lines()[1].set_linestyle("--")  # what coinciding ROC curves get: the one below still shows
    assert series_clashes(fig) == []


def test_error_bars_caps_are_no_series(axes):
    fig, ax = axes
    ax.errorbar([0, 1, 2], [1, 2, 3], yerr=[0.1, 0.2, 0.1], capsize=3, color="C0")  # top and bottom caps: alike
    ax.errorbar([0, 1, 2], [2, 3, 4], yerr=[0.1, 0.2, 0.1], capsize=3, color="C1", linestyle="--")
    assert series_clashes(fig) == []


def test_a_figure_with_series_drawn_alike_is_not_saved(axes, tmp_path, monkeypatch):
    fig, ax = axes
    ax.plot([0, 1], [0, 1], color="k", label="BM25")
    ax.plot([0, 1], [1, 0], color="k", label="overlap")
    monkeypatch.setattr(outputs.paths, "output_dirs", lambda profile: (tmp_path / "results", tmp_path / "figures"))
    out = Outputs("00_x", profile="cpu")
    with pytest.raises(ValueError, match="figure 'f': in a panel, 'BM25' and 'overlap' are drawn alike"):
        out.save_figure(fig, "f", synthetic=False)
    assert not list((tmp_path / "figures").rglob("*.png"))


def test_seaborn_error_bars_are_no_series_but_reference_lines_are(axes):
    import pandas as pd
    import seaborn as sns

    fig, ax = axes
    sns.barplot(pd.DataFrame({"s": [1.0, 1.2, 2.0, 2.4], "m": ["QRNN", "QRNN", "CTRN", "CTRN"]}), x="s", y="m", ax=ax)
    assert series_clashes(fig) == []  # two grey error bars of one style
    ax.axvline(1.5, color="grey", linestyle="--", label="BM25")
    ax.axvline(1.7, color="grey", linestyle="--", label="overlap")
    assert len(series_clashes(fig)) == 1


def test_lines_on_the_same_points_drawn_with_plot_seen_all_show(axes):
    from reproq.figures import plot_seen

    fig, ax = axes
    for label in ("CNN direct", "CNN λ = 0.001", "CNN λ = 0.1"):
        plot_seen(ax, [0, 1], [0.9, 0.6], color=f"C{len(ax.get_lines())}", marker="o", label=label)
    assert series_clashes(fig) == []
    assert [line.get_linewidth() for line in ax.get_lines()] == [1.5 + 5.0, 1.5 + 2.5, 1.5]  # the earliest widest
    assert ax.get_lines()[2].get_label() == "CNN λ = 0.1 (on CNN direct's points)"


def test_a_series_a_reader_cannot_see_at_the_saved_resolution_is_said(axes):
    """Issue 54: a series under another (Smolyakov's Figures 10 and 12-14, notebook 03's learning curves) passed the
    check of likeness, being drawn otherwise, yet could not be seen: the check now renders the figure."""
    fig, ax = axes
    ax.plot([0, 1, 2], [0.1, 0.5, 0.9], color="C0", linewidth=4, label="below")
    ax.plot([0, 1, 2], [0.1, 0.5, 0.9], color="C1", linewidth=6, label="over it")
    assert series_clashes(fig) == []  # another colour and width: not alike, not the same line
    (said,) = outputs.hidden_series(fig)
    assert "'below' cannot be seen at 120 dpi" in said
    ax.get_lines()[0].set_linestyle("--")  # dashed, under a wider line: still hidden
    assert len(outputs.hidden_series(fig)) == 1
    ax.get_lines()[0].set_marker("o")  # its markers stand out of the line over it
    ax.get_lines()[0].set_markersize(12)
    assert outputs.hidden_series(fig) == []
    with pytest.raises(ValueError, match="cannot be seen"):
        ax.get_lines()[0].set_marker("None")
        Outputs("03_demo", profile="smoke").save_figure(fig, "hidden", synthetic=False)
