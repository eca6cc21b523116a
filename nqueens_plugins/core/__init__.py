"""Core layer: the contract between the host and every plugin (imports nothing else of the package).

``problem`` (instances, budgets, outcomes, traces), ``solver`` (the Solver base
class and its options), ``hookspecs`` (the one hook), ``errors``, ``verify``
(the checker that trusts no solver) and ``cache_folder`` (the user's cache folder,
shared by the host's import probes and the built-ins' compiled kernels). What plugin authors may use from here is
re-exported by ``nqueens_plugins`` itself.
"""
