"""The markdown report's sections, one module per part of the page (:mod:`.document` puts them together).
Imports nothing of :mod:`bench.reporting.render.figures`: a figure reaches the page as a path.
"""
