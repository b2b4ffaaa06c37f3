"""The reproduction report: what the committed records say about each paper, read back from ``results/``.

- :mod:`~reproq.report.verdicts`: every number of the papers beside ours, one verdict per row by one rule, the papers'
  claims tested seed by seed (:func:`~reproq.report.verdicts.build`);
- :mod:`~reproq.report.scope`: what the study covers, item by item, and the README's generated tables;
- :mod:`~reproq.report.items`: what the pages say of one table or figure, the same on GitHub and in the book;
- :mod:`~reproq.report.pages`: one Markdown page per paper (``results/<the report notebook>/<paper>.md``);
- :mod:`~reproq.report.book`: the study as a book (Sphinx, MyST-NB): the summary, the papers' pages, the executed
  notebooks and the guide, searchable offline; :mod:`~reproq.report.browser` reads it back in a real browser;
- :mod:`~reproq.report.prose`: every number typed into the README, the guide and the notebooks is a paper's (the
  study's own are generated).

:mod:`reproq.results` is what the notebooks write with (records, tables, the ``Outputs``); this package only reads.
"""
