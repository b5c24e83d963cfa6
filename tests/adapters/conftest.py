"""tests/adapters: one module per bundled adapter (Job, JobSet, LeaderWorkerSet, Trainer, any CRD).

Each plans real manifests and compares the plan and the compiled objects with
golden files under ``tests/data/adapters``; ``plan_summary.py`` holds the
helpers they share (the golden summary, the API server's verdict).
"""
