"""Speed benchmarks (``reproq bench``): each module's ``main(out, profile=)`` writes its numbers to a file,
as ratios against a reference measured in the same run — never a timed test."""
