"""Formats layer: how things are written down and read back, in any process.

``inputs`` (sizes, squares and fixed queens as users type them), ``instances`` (CSPLib files,
our JSON, archives, generators), ``published`` (the published answers of the CSPLib sets),
``records`` (the JSON-lines results file, its only writer and reader), ``run_record`` (one
run's record, typed: its JSON form and its checks), ``count_pieces`` (a
count's finished pieces, so a long count resumes), ``kept_proofs`` (certificates kept for an
outside checker), ``aslib`` (a records file as an ASlib scenario) and ``drawing`` (boards as
SVG). Under all the files: ``reading`` (a file someone else named, read within bounds) and
``output_files`` (one rule for every file written whole). Imports only the core.
"""
