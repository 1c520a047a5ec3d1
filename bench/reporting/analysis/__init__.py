"""Stage 3, analysis: frames -> judgements as data (new columns or small frames): accuracy against a target or a
baseline, seeds, trade-off, race, cost, compare. No text for a reader, no file reads.
"""
