"""reproq: a reproduction study of neural question retrieval and answer ranking.

Importing it changes nothing around it (no environment variable): what the processes it starts run with (threads,
huge pages, the executor) is set by the command that starts them (:mod:`reproq.runner`, ``reproq bench``).
"""

__version__ = "0.1.0"
