"""Answer selection (Tay et al. 2018 on TrecQA, QatarLiving, WikiQA): data to batches (``batches``), scores to
metrics (``evaluate``), ``prepare`` / ``run_one`` / ``run_grid`` (``run``), the papers' configurations at a
profile's scale (``configs``) and records (``records``) — the same modules and verbs as ``question_retrieval``."""
