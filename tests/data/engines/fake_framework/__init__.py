"""The framework the fake engine (tests/data/engines/fake) stands for: found installed, never imported by bench."""
