"""The game server: rooms that friends play in, each on their own device.

- :mod:`apothecary.server.room` is a room's state machine (seats, turns,
  bots, timers, series, what each viewer is sent), plain Python with no
  socket, database or clock of its own, so it is tested directly;
- :mod:`apothecary.server.store` keeps rooms in any SQLAlchemy database
  (an embedded SQLite file by default, PostgreSQL for real deployments),
  with Alembic migrations applied at start;
- :mod:`apothecary.server.app` is the thin FastAPI layer: the HTTP API, the
  WebSocket protocol (docs/protocol.md), bots thinking in a process pool and
  turn timers on the event loop.

The server finds games only through the registry, so a new game needs no
change here.
"""
