"""Core layer: the contract between the host and every plugin (imports nothing else of the package).

The contract: ``problem`` (instances, budgets, outcomes, traces), ``solver`` (the Solver base
class and its options), ``hookspecs`` (the one hook), ``errors`` (the two kinds of failure),
``adapter_kit`` (what every solver that wraps a library says the same way) and ``proof_log``
(where a complete solver writes its certificate of a no-solution claim, over the formula of
``canonical_cnf``), with ``certificate_status`` (the words a certificate's check ends in, the
checker's verdict among them). Beside it, what every layer shares: ``verify`` (the checker that trusts
no solver), ``limits`` (what a run may spend, made once at the front door), ``space`` (the
ranges a tuner may try for a solver's options) and ``cache_folder`` (the user's cache folder,
shared by the host's import probes and the built-ins' compiled kernels) and ``compile_notes`` (how a
built-in's first compile of its kernels is told to whoever shows it, without the built-ins importing the host)
and ``guess_notes`` (how ``Solver.warm_up``'s default, a guess, tells its worker that it runs). What plugin authors
may use from here is re-exported by the package itself (``import nqueens_plugins``).
"""
