"""How the study's figures are drawn: matplotlib from what is already computed (records, runs' histories, scores).

Kept apart from what trains (:mod:`reproq.papers`, :mod:`reproq.question_retrieval`, :mod:`reproq.answer_selection`):
no trained number depends on this package, so no run's :class:`reproq.train.checkpoint.Code` reaches it, and a change
to a figure is drawn again from the runs already checkpointed rather than trained again. One module per paper, as in
:mod:`reproq.papers`; :mod:`reproq.figures.retrieval` holds the learning curves of the question-retrieval notebooks.
Each function returns a matplotlib figure that a notebook saves with ``Run.save_figure``.
"""


def plot_seen(ax, x, y, **style):
    """``ax.plot(x, y, **style)``, but where its points are those of lines already drawn on ``ax`` it goes on top of
    them and each of those is widened underneath (the earliest the widest), so that every one still shows; a
    labelled line says whose points it shares. Returns the line."""
    import numpy as np

    (line,) = ax.plot(x, y, **style)
    points = line.get_xydata()
    under = [other for other in ax.get_lines()[:-1] if other.get_visible() and other.get_xydata().shape == points.shape
             and np.allclose(other.get_xydata(), points, equal_nan=True)]
    for k, other in enumerate(reversed(under), 1):
        other.set_linewidth(line.get_linewidth() + 2.5 * k)
    if under and not line.get_label().startswith("_"):
        line.set_label(f"{line.get_label()} (on {under[0].get_label()}'s points)")
    return line
