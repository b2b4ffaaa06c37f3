"""Question retrieval on AskUbuntu with neural encoders: data as ids and batches, training runs, profiles, report."""
