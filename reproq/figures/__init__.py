"""How the study's figures are drawn: matplotlib from what is already computed (records, runs' histories, scores).

Kept apart from what trains (:mod:`reproq.papers`, :mod:`reproq.question_retrieval`, :mod:`reproq.answer_selection`):
no trained number depends on this package, so no run's :class:`reproq.train.checkpoint.Code` reaches it, and a change
to a figure is drawn again from the runs already checkpointed rather than trained again. One module per paper, as in
:mod:`reproq.papers`; :mod:`reproq.figures.retrieval` holds the learning curves of the question-retrieval notebooks.
Each function returns a matplotlib figure that a notebook saves with ``Run.save_figure``.
"""
