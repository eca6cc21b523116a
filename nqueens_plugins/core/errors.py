"""Core layer, any process: the two kinds of failure the host tells apart.

``BadInput`` is the user's to fix: the CLI prints its message as one line and
exits with status 2 (``RejectedFile``, a file whose answers the host made again and found
changed, with status 3, as a rejected answer). ``PluginError`` is a plugin's fault: it is recorded against
that plugin and the host goes on.
"""

import re
import shlex
from importlib import metadata


class BadInput(ValueError):
    """Input the user can correct: a bad size, an unknown solver or option, a bad file."""


class RejectedFile(BadInput):
    """A file a resume was handed whose kept answers do not hold up when made again (a forged count's
    piece, a forged tune run): refused whole, as the verifier refuses an answer (exit status 3)."""


class PluginError(RuntimeError):
    """A plugin broke its contract (bad registration, a duplicate name, garbage output)."""


def install_hint(extra: str) -> str:
    """The command that installs an optional extra from wherever the user is: its own requirements,
    read from the installed distribution. (``pip install 'nqueens-plugins[extra]'`` would ask a package
    index for a project that is not on one.)"""
    try:
        requirements = metadata.requires("nqueens-plugins") or []
    except metadata.PackageNotFoundError:
        requirements = []
    marker = re.compile(rf"""extra\s*==\s*["']{re.escape(extra)}["']""")
    wanted = [r.split(";")[0].strip() for r in requirements if marker.search(r)]
    if not wanted:
        return f"pip install -e '.[{extra}]' in the nqueens-plugins source folder"
    return "pip install " + " ".join(shlex.quote(requirement) for requirement in wanted)
