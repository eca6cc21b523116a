"""Views layer: results turned into something to read (parent process).

``report`` (terminal tables and every other text), ``plot`` (matplotlib figures), ``html_report``
(one self-contained page), ``animate`` (a traced run as SVG frames), ``summary_view``
(``nq.summary``'s object: the report's rows as a notebook shows them), ``tune_view`` (a tune
shown: its races, the best configuration, the held-out test) and ``escaping`` (text from files
and plugins made safe for the place it is printed).
"""
