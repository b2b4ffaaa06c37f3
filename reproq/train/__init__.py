"""Training that knows no task: one fit loop with callbacks (``loop``, ``callbacks``), checkpoints, objectives,
runtime (device, seeds), and what a run leaves and how a grid of runs is chosen (``runs``)."""
