"""Results: records and their provenance (``records``), the papers' numbers and side-by-side tables
(``tables``), and the :class:`Outputs` through which a notebook writes (``outputs``).

A notebook needs only this package's top level::

    out = results.Outputs("01_lexical_baselines", profile=PROFILE, device=DEVICE)
    records = out.provenance(files).records(values, paper="lei2016", table="Table 2", ...)
    out.report(records, "lei2016_table2_bm25", scale=100, caption="Lei et al. 2016 Table 2, BM25 row.")
"""

from reproq.results.records import KEYS, Provenance, Record, code_version, records_frame, run_records, summarize
from reproq.results.paired import Difference, claim, difference_of_differences, paired_difference
from reproq.results.outputs import Outputs, banner
from reproq.results.tables import compare, format_table, paper_layout, paper_numbers, paper_value, side_by_side

__all__ = ["KEYS", "Difference", "Outputs", "Provenance", "Record", "banner", "claim", "code_version", "compare",
           "difference_of_differences", "format_table", "paired_difference", "paper_layout", "paper_numbers",
           "paper_value", "records_frame", "run_records", "side_by_side", "summarize"]
