"""Views layer: results turned into something to read (parent process).

``report`` (terminal tables), ``plot`` (matplotlib figures), ``html_report``
(one self-contained page), ``animate`` (a traced run as SVG frames) and
``summary_view`` (``nq.summary``'s object: the report's rows as a notebook shows them).
"""
