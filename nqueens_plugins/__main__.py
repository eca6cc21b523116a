"""CLI layer, parent side: ``python -m nqueens_plugins`` is the ``nqueens`` command."""

from nqueens_plugins.cli import main

main()
