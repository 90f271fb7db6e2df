"""Runnable jobs: ``python -m experiments.tournament`` (the main job), ``python -m experiments.benchmark``."""
