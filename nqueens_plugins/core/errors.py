"""Core layer, any process: the two kinds of failure the host tells apart.

``BadInput`` is the user's to fix: the CLI prints its message as one line and
exits with status 2. ``PluginError`` is a plugin's fault: it is recorded against
that plugin and the host goes on.
"""


class BadInput(ValueError):
    """Input the user can correct: a bad size, an unknown solver or option, a bad file."""


class PluginError(RuntimeError):
    """A plugin broke its contract (bad registration, a duplicate name, garbage output)."""
