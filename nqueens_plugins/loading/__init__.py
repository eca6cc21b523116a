"""Loading layer: finding plugins and registering their solvers (parent process).

``discovery`` finds the installed plugins (the ``"nqueens"`` entry points, less those
``NQUEENS_DISABLE_PLUGINS`` names) and ``probe`` imports each first in a throwaway
process (``probe_program``); ``host`` builds the plugin manager from the built-ins and
those plugins; ``registry`` holds what they register and resolves specs such as
``annealing[cooling=0.99]`` to a Variant; ``session`` keeps the solvers registered in this
process (``nq.register``), for notebooks and scripts.
"""
