"""reproq: a reproduction study of neural question retrieval and answer ranking."""

__version__ = "0.1.0"
