"""Stage 1, load: the only modules that read input files: records made inert (:mod:`.untrusted`) and the price
table (:mod:`.prices`). Imports nothing else of the report side.
"""
