"""The report side: records -> frames -> analysis -> verdicts -> claims -> markdown, console tables, report.json,
figures. Imports no framework and nothing of the run side; records are its only input. One folder or module per
stage, each importing only those below it (``pyproject.toml``, import-linter): :mod:`.stats` 0, :mod:`.load` 1,
:mod:`.frames` 2, :mod:`.analysis` 3, :mod:`.verdicts` 4, :mod:`.claims` 5, :mod:`.render` 6, :mod:`.build` 7,
:mod:`.commands` 8. Each stage's job: DESIGN.md, *Data flow* and *Packages: job and rule*.
"""
