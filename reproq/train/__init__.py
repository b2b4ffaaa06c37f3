"""Training: one fit loop with callbacks (``loop``, ``callbacks``), checkpoints, objectives, runtime."""
