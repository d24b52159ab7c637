"""The ``solve`` command (:mod:`.cli`): solve a game exactly where its manifest
names a solver.

The solvers themselves, and the bots that play their solutions, are each about
one game and live in that game's package, named by its manifest
(:class:`~apothecary.core.manifest.GameManifest`): docs/solvers.md lists them.
"""
