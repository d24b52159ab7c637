"""The games, one subpackage each. Each registers itself when imported.

Use :func:`apothecary.games` for the names and :func:`apothecary.load` to make
one; a front end never imports a game module by name.
"""
