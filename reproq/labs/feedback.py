"""What a student's feedback shows of the hidden tests: nothing but their messages.

nbgrader's ``generate_feedback`` renders the autograded notebook, in which ``autograde`` put the hidden tests back,
so by default a student's feedback page holds every hidden test: their code, and in a failed one's traceback the
lines around the failing assert (nbgrader issue 917: by design). A course that reuses its labs cannot hand that out.
:class:`HiddenTestsKept` is the preprocessor the course's ``nbgrader_config.py`` adds to ``generate_feedback``
(:data:`reproq.labs.course.SETTINGS`): it takes each hidden-test region out of the cell as the student's release
had it (nbgrader's own ``ClearHiddenTests``), and cuts the traceback of every failed test cell to its last line,
the error and the message the check gives (``AssertionError: two tied candidates must keep their order``), which
is what a student is meant to read.
"""

from __future__ import annotations

from nbgrader import utils
from nbgrader.preprocessors import ClearHiddenTests
from traitlets import List


class HiddenTestsKept(ClearHiddenTests):
    """``ClearHiddenTests`` for feedback: the hidden regions out of the test cells, and each test cell's error as
    one line (its name and message) without the traceback that quotes the test's code."""

    # the feedback's HTMLExporter sets every converter's display_data_priority; a preprocessor that does not take it
    # as a setting warns at every feedback page (nbgrader's GetGrades takes it so too); this one does not read it
    display_data_priority = List(config=True)

    def preprocess_cell(self, cell, resources, cell_index):
        cell, resources = super().preprocess_cell(cell, resources, cell_index)
        if cell.cell_type == "code" and utils.is_grade(cell) and not utils.is_solution(cell):
            for output in cell.get("outputs", []):
                if output.get("output_type") == "error":
                    output["traceback"] = [f"{output.get('ename', 'Error')}: {output.get('evalue', '')}"]
        return cell, resources
