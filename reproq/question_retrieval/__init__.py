"""Question retrieval (Lei et al. 2016, Smolyakov & Srikant 2017 on AskUbuntu): data to batches (``batches``),
scores to metrics (``evaluate``), ``prepare`` / ``run_one`` / ``run_grid`` (``run``), the papers' configurations
at a profile's scale (``configs``) and records, tables and figures (``records``) — the same modules and verbs as
``answer_selection``."""
