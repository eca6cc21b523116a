"""Views layer: results turned into something to read (parent process).

``report`` (terminal tables), ``plot`` (matplotlib figures), ``html_report``
(one self-contained page) and ``animate`` (a traced run as SVG frames).
"""
