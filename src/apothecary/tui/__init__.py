"""Play in the terminal: a Textual app for every registered game.

``apothecary play GAME`` (see :mod:`apothecary.tui.cli`) opens the app. The
pieces, from the bottom up:

- :mod:`apothecary.tui.session` -- a game in progress: seats, bots, chance
  drawn from the app's own ``random.Random``, the per-seat log, saving. No
  Textual, so it can be driven and tested without a terminal.
- :mod:`apothecary.tui.views` -- one view per game, keyed by game name, that
  draws a seat's ``observation`` as coloured text with symbols, plus a generic
  view for any game without one.
- :mod:`apothecary.tui.app` -- the Textual screens (menu, setup, game,
  hand-over, rules, save, result). Textual is imported only there.
"""
