"""The fake engine's module: it is never run (its records are written by tests/test_fake_engine.py's double)."""
