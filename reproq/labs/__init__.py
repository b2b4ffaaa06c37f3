"""Course labs built from the study: nbgrader sources under ``labs/source/`` (one notebook each, solutions and hidden
tests marked), the student release and autograding (``course``), and the autograded checks that name a student's
mistake (``checks``)."""
