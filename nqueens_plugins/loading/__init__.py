"""Loading layer: finding plugins and registering their solvers (parent process).

``host`` builds the plugin manager from the built-ins and the ``nqueens``
entry points (each first imported in a throwaway process by
``execution.probe``); ``registry`` holds what they register and resolves
specs such as ``annealing[cooling=0.99]`` to a Variant.
"""
