"""Formats layer: how things are written down and read back, in any process.

``inputs`` (sizes, time limits, memory, squares as users type them),
``instances`` (CSPLib files, our JSON, archives, generators), ``records`` (the
JSON-lines results file, its only writer and reader) and ``drawing`` (boards as
SVG). Imports only the core.
"""
