"""Stage 0, statistics: NumPy and SciPy only, no pandas, nothing else of the report side; functions take numbers and
return numbers, never text (:mod:`.sample` location and spread, :mod:`.ratio` ratios with intervals,
:mod:`.paired` paired-by-seed differences, :mod:`.spread` two speeds across processes).
"""
