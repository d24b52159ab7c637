"""The ``serve`` command: run the game server.

FastAPI, uvicorn and SQLAlchemy come with the ``[web]`` extra and are
imported only when the command runs, so the rest of the command line works
without them.
"""

from __future__ import annotations

import gc
import logging
from typing import Annotated, Any

import typer

from apothecary.cli_common import user_errors
from apothecary.core.errors import BadOptionError


def register(app: typer.Typer) -> None:
    """Add ``serve`` to the ``apothecary`` command line."""
    app.command("serve")(user_errors(serve_command))


def serve_command(
    host: Annotated[str, typer.Option(help="The address to listen on.")] = "127.0.0.1",
    port: Annotated[int, typer.Option(help="The port to listen on (0: any free one).")] = 8000,
    db: Annotated[
        str | None,
        typer.Option(
            help="An SQLAlchemy database URL (default: $APOTHECARY_DB, else a SQLite file "
            "in your data folder), e.g. postgresql://user:pass@host/db."
        ),
    ] = None,
    workers_for_bots: Annotated[
        int, typer.Option(help="Processes the bots think in (0: a thread of the server).")
    ] = 1,
    bot_delay: Annotated[
        float, typer.Option(help="Seconds before a bot's move is shown, so people can follow.")
    ] = 0.8,
    allow_origin: Annotated[
        list[str] | None,
        typer.Option(help="Another origin whose pages may open sockets (repeatable)."),
    ] = None,
    allow_seed: Annotated[
        bool, typer.Option(hidden=True, help="Let room creators choose the seed (tests only).")
    ] = False,
    create_per_minute: Annotated[
        int,
        typer.Option(hidden=True, help="Rooms one address may create a minute (benchmarks)."),
    ] = 30,
    log_level: Annotated[str, typer.Option(help="debug, info, warning or error.")] = "info",
) -> None:
    """Run the game server: rooms, invite links, bots, spectators, chat."""
    try:
        import uvicorn

        from apothecary.server.app import WebConfig, create_app
        from apothecary.server.hub import HubConfig
        from apothecary.server.store import Store, default_url
    except ModuleNotFoundError as error:
        raise BadOptionError(
            f"the server needs the [web] extra ({error.name} is missing): "
            "pip install 'apothecary[web]'"
        ) from None
    if not 0 <= port <= 65535:
        raise BadOptionError(f"--port {port}: a port is 0 to 65535")
    if workers_for_bots < 0:
        raise BadOptionError("--workers-for-bots: 0 or more")
    if create_per_minute < 1:
        raise BadOptionError("--create-per-minute: 1 or more")
    if bot_delay < 0:
        raise BadOptionError("--bot-delay: 0 or more seconds")
    if log_level not in ("debug", "info", "warning", "error"):
        raise BadOptionError(f"--log-level {log_level!r}: debug, info, warning or error")
    logging.basicConfig(level=log_level.upper(), format="%(levelname)s %(name)s: %(message)s")
    if log_level != "debug":  # Alembic's start-up chatter says nothing a user needs
        logging.getLogger("alembic").setLevel(logging.WARNING)
    store = Store(db or default_url())
    store.migrate()  # a bad URL or an unreachable database is one clear line, before listening
    app = create_app(
        store,
        HubConfig(bot_workers=workers_for_bots, bot_delay=bot_delay, allow_seed=allow_seed),
        WebConfig(allowed_origins=tuple(allow_origin or ()), create_per_minute=create_per_minute),
    )
    server = _Server(
        uvicorn.Config(app, host=host, port=port, log_level=log_level, ws_max_size=1 << 20),
        store.describe(),
        app.state.hub,
    )
    server.run()


try:
    import uvicorn as _uvicorn

    _Base: Any = _uvicorn.Server
except ModuleNotFoundError:  # without the [web] extra there is nothing to serve with
    _Base = object


class _Server(_Base):  # type: ignore[misc]
    """uvicorn's server, saying where it listens once it does, and closing
    the game sockets with a reason of its own on SIGTERM or Ctrl-C."""

    def __init__(self, config: Any, database: str, hub: Any) -> None:
        super().__init__(config)
        self.database = database
        self.hub = hub

    async def startup(self, sockets: Any = None) -> None:
        await super().startup(sockets)
        # Everything made so far (modules, the app, the resumed rooms) lives as
        # long as the server: keep it out of the collector's sight, and collect
        # less often. With Python's defaults a full collection over the
        # sockets' coroutines froze the loop for up to 0.2 s every few seconds
        # at 500 rooms (docs/performance.md: p99 130 ms -> 19 ms).
        gc.freeze()
        gc.set_threshold(50_000, 20, 10)
        for server in self.servers:
            for sock in server.sockets:
                host, port = sock.getsockname()[:2]
                shown = f"[{host}]" if ":" in host else host
                typer.echo(f"apothecary is serving at http://{shown}:{port}/", err=False)
                typer.echo(f"database: {self.database}")
                typer.echo("Open that address in a browser; press Ctrl-C to stop.")
                return

    def handle_exit(self, sig: int, frame: Any) -> None:
        self.hub.close_sockets()
        super().handle_exit(sig, frame)
        # uvicorn raises the signal again once it has shut down, so the process
        # would die by SIGTERM; a stop we were asked for is a clean exit.
        captured = getattr(self, "_captured_signals", None)
        if isinstance(captured, list):
            captured.clear()
