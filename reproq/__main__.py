"""``python -m reproq``: the same command as ``reproq`` (:mod:`reproq.cli`)."""

import sys

from reproq.cli import main

sys.exit(main())
