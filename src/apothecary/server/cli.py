"""The ``serve`` command: run the game server.

FastAPI, uvicorn and SQLAlchemy come with the ``[web]`` extra and are
imported only when the command runs, so the rest of the command line works
without them.

With ``--workers N`` this process binds the socket, starts N server
processes that share it (the kernel hands each new connection to one of
them), restarts one that dies, and stops them all on SIGTERM or Ctrl-C. The
processes share rooms through the database and Redis (:mod:`.placement.cluster`), as
separate ``apothecary serve --redis`` processes on several hosts do. A
server process whose supervisor dies without stopping it (``kill -9``) stops
itself as on SIGTERM, so nothing is left serving on the port.
"""

from __future__ import annotations

import gc
import logging
import multiprocessing
import os
import signal
import threading
import time
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Annotated, Any

import typer

from apothecary.cli_common import user_errors
from apothecary.core.errors import BadOptionError
from apothecary.i18n.terminal import T_, _
from apothecary.lifeline import die_with_parent, exit_now

if TYPE_CHECKING:  # the [web] extra loads only when serving
    from apothecary.server.accounts import AccountConfig


def register(app: typer.Typer) -> None:
    """Add ``serve`` to the ``apothecary`` command line."""
    app.command("serve", help=SERVE_HELP)(user_errors(serve_command))


SERVE_HELP = T_("Run the game server: rooms, invite links, bots, spectators, chat.")
"""``serve``'s help (its docstring's words, marked for the catalogs)."""


_HostOption = Annotated[str, typer.Option(help=T_("The address to listen on."))]
_PortOption = Annotated[int, typer.Option(help=T_("The port to listen on (0: any free one)."))]
_DbOption = Annotated[
    str | None,
    typer.Option(
        help=T_(
            "An SQLAlchemy database URL (default: $APOTHECARY_DB, else a SQLite file "
            "in your data folder), e.g. postgresql://user:pass@host/db."
        )
    ),
]
_WorkersOption = Annotated[
    int,
    typer.Option(
        help=T_(
            "Server processes sharing the port and the rooms (more than 1 needs a "
            "PostgreSQL --db and --redis)."
        )
    ),
]
_RedisOption = Annotated[
    str | None,
    typer.Option(
        help=T_(
            "A Redis URL (default: $APOTHECARY_REDIS): share rooms with the other server "
            "processes on the same --db, e.g. redis://127.0.0.1:6379/0."
        )
    ),
]
_RedisPrefixOption = Annotated[
    str,
    typer.Option(
        help=T_("The start of every Redis key and channel (deployments sharing a Redis).")
    ),
]
_WorkersForBotsOption = Annotated[
    int,
    typer.Option(help=T_("Processes the bots think in, per server process (0: a thread).")),
]
_BotDelayOption = Annotated[
    float, typer.Option(help=T_("Seconds before a bot's move is shown, so people can follow."))
]
_AllowOriginOption = Annotated[
    list[str] | None,
    typer.Option(help=T_("Another origin whose pages may open sockets (repeatable).")),
]
_PublicUrlOption = Annotated[
    str | None,
    typer.Option(
        help=T_(
            "The address people open, e.g. https://games.example.org: sockets must come "
            "from its pages, and requests naming another host are refused (DNS rebinding)."
        )
    ),
]
_SmtpOption = Annotated[
    str | None,
    typer.Option(
        help=T_(
            "Mail turn-based rooms' turns through this SMTP server: "
            "smtp://[user:password@]host:port[?starttls=1&from=ADDRESS] or smtps://... "
            "(links in the mails start with --public-url, else http://HOST:PORT)."
        )
    ),
]
_ConnectionsPerAddressOption = Annotated[
    int, typer.Option(help=T_("Connections one client address may hold open at once."))
]
_SocketsPerRoomOption = Annotated[
    int, typer.Option(help=T_("WebSocket connections one room may have open at once."))
]
_RequestTimeoutOption = Annotated[
    float, typer.Option(help=T_("Seconds a connection has to send a whole request (slowloris)."))
]
_AllowSeedOption = Annotated[
    bool, typer.Option(hidden=True, help=T_("Let room creators choose the seed (tests only)."))
]
_CreatePerMinuteOption = Annotated[
    int,
    typer.Option(hidden=True, help=T_("Rooms one address may create a minute (benchmarks).")),
]
_SocketRateOption = Annotated[
    float,
    typer.Option(
        hidden=True,
        help=T_(
            "Messages a seat may send a second over all its sockets (tests, benchmarks);"
            " an address may send four times as many."
        ),
    ),
]
_LeaseSecondsOption = Annotated[
    float, typer.Option(hidden=True, help=T_("How long a room's lease lasts (cluster tests)."))
]
_HeartbeatSecondsOption = Annotated[
    float, typer.Option(hidden=True, help=T_("How often leases are renewed (cluster tests)."))
]
_LogLevelOption = Annotated[str, typer.Option(help=T_("debug, info, warning or error."))]
_MaxRoomsOption = Annotated[
    int, typer.Option(help=T_("Rooms not over the server holds at once; more are refused."))
]
_RoomsPerAddressOption = Annotated[
    int, typer.Option(help=T_("Rooms not over one client address may have made."))
]
_LobbyExpiryOption = Annotated[
    float, typer.Option(help=T_("Seconds a lobby nobody is in and nothing changes in lasts."))
]
_MinPasswordOption = Annotated[
    int, typer.Option(help=T_("The shortest account password, in characters (8 or more)."))
]
_SignInPerAccountOption = Annotated[
    int, typer.Option(help=T_("Sign-in attempts a minute for one account name."))
]
_SignInPerAddressOption = Annotated[
    int, typer.Option(help=T_("Sign-in and sign-up attempts a minute from one client address."))
]
_ReplayCacheOption = Annotated[
    float, typer.Option(help=T_("Megabytes of finished games kept rebuilt for replays."))
]
_ReplaySecondsOption = Annotated[
    float,
    typer.Option(
        help=T_(
            "Seconds one replay call (a game rebuilt, a step view, an upload checked) may"
            " take in the replay pool; then it is stopped."
        )
    ),
]
_AnalysisDecisionsOption = Annotated[
    int, typer.Option(help=T_("The most decisions one game's analysis values; more are refused."))
]
_BotSecondsOption = Annotated[
    float,
    typer.Option(
        help=T_("Seconds a bot may think a move; then it is stopped and a random move played.")
    ),
]
_HintSecondsOption = Annotated[
    float,
    typer.Option(
        help=T_("Seconds a hint (or one decision of an analysis) may think; then it is stopped.")
    ),
]
_HintsPerMinuteOption = Annotated[
    int,
    typer.Option(help=T_("Hints one seat may ask for a minute (an address: four times as many).")),
]
_PauseAfterOption = Annotated[
    float,
    typer.Option(help=T_("Seconds a room with nobody connected plays on before its bots pause.")),
]
_AbandonedExpiryOption = Annotated[
    float, typer.Option(help=T_("Seconds a game nobody is connected to and nobody moves in lasts."))
]


def serve_command(
    host: _HostOption = "127.0.0.1",
    port: _PortOption = 8000,
    db: _DbOption = None,
    workers: _WorkersOption = 1,
    redis: _RedisOption = None,
    redis_prefix: _RedisPrefixOption = "apothecary",
    workers_for_bots: _WorkersForBotsOption = 1,
    bot_delay: _BotDelayOption = 0.8,
    allow_origin: _AllowOriginOption = None,
    public_url: _PublicUrlOption = None,
    smtp: _SmtpOption = None,
    connections_per_address: _ConnectionsPerAddressOption = 64,
    sockets_per_room: _SocketsPerRoomOption = 256,
    request_timeout: _RequestTimeoutOption = 10.0,
    allow_seed: _AllowSeedOption = False,
    create_per_minute: _CreatePerMinuteOption = 30,
    socket_rate: _SocketRateOption = 10.0,
    lease_seconds: _LeaseSecondsOption = 5.0,
    heartbeat_seconds: _HeartbeatSecondsOption = 1.0,
    log_level: _LogLevelOption = "info",
    max_rooms: _MaxRoomsOption = 2000,
    rooms_per_address: _RoomsPerAddressOption = 20,
    lobby_expiry: _LobbyExpiryOption = 3600.0,
    abandoned_expiry: _AbandonedExpiryOption = 6 * 3600.0,
    min_password_length: _MinPasswordOption = 12,
    sign_in_per_account: _SignInPerAccountOption = 5,
    sign_in_per_address: _SignInPerAddressOption = 20,
    replay_cache_mb: _ReplayCacheOption = 64.0,
    analysis_decisions: _AnalysisDecisionsOption = 4000,
    replay_seconds: _ReplaySecondsOption = 30.0,
    bot_seconds: _BotSecondsOption = 10.0,
    hint_seconds: _HintSecondsOption = 60.0,
    hints_per_minute: _HintsPerMinuteOption = 6,
    pause_after: _PauseAfterOption = 60.0,
) -> None:
    """Run the game server: rooms, invite links, bots, spectators, chat."""
    _need_web()
    from apothecary.server.store import Store, default_url

    _check_numbers(port, workers_for_bots, create_per_minute, bot_delay, log_level)
    _check_processes(socket_rate, workers, lease_seconds, heartbeat_seconds)
    _check_rooms(max_rooms, rooms_per_address, lobby_expiry, abandoned_expiry, sockets_per_room)
    _check_guard(connections_per_address, request_timeout, public_url)
    _check_smtp(smtp)
    accounts = _accounts(min_password_length, sign_in_per_account, sign_in_per_address)
    _check_thinking(bot_seconds, hint_seconds, hints_per_minute, pause_after)
    redis_url = _redis_url(redis)
    store = Store(db or default_url())
    _check_sharing(workers, redis_url, store.shared)
    _set_up_logging(log_level)
    _check_reachable(store, redis_url)
    plan = _Plan(
        db=str(store.url.render_as_string(hide_password=False)),
        shown_db=store.describe(),
        host=host,
        port=port,
        redis_url=redis_url,
        redis_prefix=redis_prefix,
        bot_workers=workers_for_bots,
        bot_delay=bot_delay,
        allow_seed=allow_seed,
        allowed_origins=tuple(allow_origin or ()),
        public_url=public_url,
        smtp=smtp,
        connections_per_address=connections_per_address,
        request_timeout=request_timeout,
        create_per_minute=create_per_minute,
        socket_rate=socket_rate,
        lease_seconds=lease_seconds,
        heartbeat_seconds=heartbeat_seconds,
        log_level=log_level,
        rooms=(max_rooms, rooms_per_address, lobby_expiry, abandoned_expiry, sockets_per_room),
        accounts=accounts,
        replays=_replay_limits(replay_cache_mb, analysis_decisions, replay_seconds),
        thinking=(bot_seconds, hint_seconds, hints_per_minute, pause_after),
    )
    store.close()
    _start(plan, workers)


def _check_smtp(url: str | None) -> None:
    """A ``--smtp`` URL that names no SMTP server is refused before listening."""
    if url is not None:
        from apothecary.server.turnmail import SmtpConfig

        SmtpConfig.parse(url)


def _redis_url(given: str | None) -> str | None:
    """The Redis to share rooms through: ``--redis``, else $APOTHECARY_REDIS, else none."""
    from apothecary.server.cluster import REDIS_ENV

    return given or os.environ.get(REDIS_ENV) or None


def _start(plan: _Plan, workers: int) -> None:
    """Serve in this process, or supervise ``workers`` server processes."""
    if workers == 1:
        _run_server(plan, None, announce=True)
    else:
        _supervise(plan, workers)


def _check_reachable(store: Any, redis_url: str | None) -> None:
    """Migrate the store and reach Redis (if any) before listening, so a bad URL
    or an unreachable service is one clear line."""
    store.migrate()
    if redis_url:
        _check_redis(redis_url)


def _set_up_logging(log_level: str) -> None:
    """Log at ``log_level`` to the terminal (a server process, or its supervisor)."""
    logging.basicConfig(level=log_level.upper(), format="%(levelname)s %(name)s: %(message)s")
    if log_level != "debug":  # Alembic's start-up chatter says nothing a user needs
        logging.getLogger("alembic").setLevel(logging.WARNING)


def _need_web() -> None:
    """Refuse, in one line, to serve without the [web] extra (checked before
    anything starts)."""
    try:
        import redis as _redis  # noqa: F401
        import uvicorn  # noqa: F401

        import apothecary.server.store  # noqa: F401  (SQLAlchemy, Alembic)
    except ModuleNotFoundError as error:
        raise BadOptionError(
            _(
                "the server needs the [web] extra ({missing} is missing): "
                "pip install 'apothecary[web]'",
                missing=error.name,
            )
        ) from None


def _check_numbers(
    port: int, workers_for_bots: int, create_per_minute: int, bot_delay: float, log_level: str
) -> None:
    """BadOptionError naming the first option out of its range."""
    if not 0 <= port <= 65535:
        raise BadOptionError(_("--port {port}: a port is 0 to 65535", port=port))
    if workers_for_bots < 0:
        raise BadOptionError(_("--workers-for-bots: 0 or more"))
    if create_per_minute < 1:
        raise BadOptionError(_("--create-per-minute: 1 or more"))
    if bot_delay < 0:
        raise BadOptionError(_("--bot-delay: 0 or more seconds"))
    if log_level not in ("debug", "info", "warning", "error"):
        raise BadOptionError(
            _("--log-level {level}: debug, info, warning or error", level=repr(log_level))
        )


def _check_processes(
    socket_rate: float, workers: int, lease_seconds: float, heartbeat_seconds: float
) -> None:
    """The same for the socket rate, the server processes and their leases."""
    if socket_rate <= 0:
        raise BadOptionError(_("--socket-rate: more than 0"))
    if workers < 1:
        raise BadOptionError(_("--workers: 1 or more"))
    if lease_seconds <= 0 or heartbeat_seconds <= 0:
        raise BadOptionError(_("--lease-seconds and --heartbeat-seconds: more than 0"))


def _replay_limits(
    replay_cache_mb: float, analysis_decisions: int, replay_seconds: float = 30.0
) -> tuple[int, int, float]:
    """The replay cache's bytes, an analysis's most decisions and a replay call's
    limit, checked."""
    if replay_cache_mb < 0 or analysis_decisions < 1:
        raise BadOptionError(_("--replay-cache-mb: 0 or more; --analysis-decisions: 1 or more"))
    if replay_seconds <= 0:
        raise BadOptionError(_("--replay-seconds: more than 0"))
    return int(replay_cache_mb * 1024 * 1024), analysis_decisions, replay_seconds


def _check_rooms(
    max_rooms: int,
    rooms_per_address: int,
    lobby_expiry: float,
    abandoned_expiry: float,
    sockets_per_room: int = 256,
) -> None:
    """Refuse room limits that could never let a room (or a socket) in or would expire at once."""
    if max_rooms < 1 or rooms_per_address < 1 or sockets_per_room < 1:
        raise BadOptionError(
            _("--max-rooms, --rooms-per-address and --sockets-per-room: 1 or more")
        )
    if lobby_expiry <= 0 or abandoned_expiry <= 0:
        raise BadOptionError(_("--lobby-expiry and --abandoned-expiry: more than 0 seconds"))


def _check_guard(connections_per_address: int, request_timeout: float, url: str | None) -> None:
    """BadOptionError for a connection limit out of range or a bad --public-url."""
    if connections_per_address < 1:
        raise BadOptionError(_("--connections-per-address: 1 or more"))
    if request_timeout <= 0:
        raise BadOptionError(_("--request-timeout: more than 0 seconds"))
    if url is not None:
        from apothecary.server.guard import public_origin

        public_origin(url)  # a bad URL is one clear line, before anything starts


def _accounts(min_password: int, per_account: int, per_address: int) -> AccountConfig:
    """The accounts' rules from the flags (BadOptionError naming one out of range)."""
    from apothecary.server.accounts import AccountConfig

    if per_account < 1 or per_address < 1:
        raise BadOptionError(_("--sign-in-per-account and --sign-in-per-address: 1 or more"))
    try:
        return AccountConfig(
            min_password_length=min_password,
            attempts_per_account=per_account,
            attempts_per_address=per_address,
        )
    except BadOptionError as error:
        raise BadOptionError(_("--min-password-length: {error}", error=error)) from None


def _check_thinking(
    bot_seconds: float, hint_seconds: float, hints_per_minute: int, pause_after: float
) -> None:
    """BadOptionError for a thinking limit that could never let a bot or hint answer."""
    if bot_seconds <= 0 or hint_seconds <= 0:
        raise BadOptionError(_("--bot-seconds and --hint-seconds: more than 0 seconds"))
    if hints_per_minute < 1:
        raise BadOptionError(_("--hints-per-minute: 1 or more"))
    if pause_after < 0:
        raise BadOptionError(_("--pause-after: 0 or more seconds"))


def _check_sharing(workers: int, redis_url: str | None, shared: bool) -> None:
    """BadOptionError when several processes are asked for without what they share."""
    from apothecary.server.cluster import REDIS_ENV

    if (workers > 1 or redis_url) and not shared:
        flags = f"--workers {workers}{' --redis' if redis_url else ''}"
        raise BadOptionError(
            _(
                "{flags}: server processes share rooms through a database server; "
                "give --db a PostgreSQL URL (SQLite is one process's file)",
                flags=flags,
            )
        )
    if workers > 1 and not redis_url:
        raise BadOptionError(
            _(
                "--workers {workers}: server processes share rooms through Redis; "
                "give --redis redis://HOST:6379/0 (or set {variable})",
                workers=workers,
                variable=REDIS_ENV,
            )
        )


@dataclass(frozen=True)
class _Plan:
    """Everything a server process needs to start (picklable, for the workers)."""

    db: str
    shown_db: str
    host: str
    port: int
    redis_url: str | None
    redis_prefix: str
    bot_workers: int
    bot_delay: float
    allow_seed: bool
    allowed_origins: tuple[str, ...] = field(default_factory=tuple)
    public_url: str | None = None
    smtp: str | None = None
    connections_per_address: int = 64
    request_timeout: float = 10.0
    create_per_minute: int = 30
    socket_rate: float = 10.0
    lease_seconds: float = 5.0
    heartbeat_seconds: float = 1.0
    log_level: str = "info"
    rooms: tuple[int, int, float, float, int] = (2000, 20, 3600.0, 6 * 3600.0, 256)
    """``max_rooms``, ``rooms_per_address``, ``lobby_expiry``, ``abandoned_expiry``,
    ``sockets_per_room``."""
    accounts: AccountConfig | None = None
    """The accounts' rules (None: the defaults)."""
    replays: tuple[int, int, float] = (64 * 1024 * 1024, 4000, 30.0)
    """``replay_cache_bytes``, ``analysis_decisions``, ``replay_seconds``."""
    thinking: tuple[float, float, int, float] = (10.0, 60.0, 6, 60.0)
    """``bot_seconds``, ``hint_seconds``, ``hints_per_minute``, ``pause_after``."""


def _mail(plan: _Plan) -> dict[str, Any]:
    """The mail's part of the WebConfig: the SMTP server, and what links start with."""
    return {"smtp": plan.smtp, "site_url": plan.public_url or f"http://{plan.host}:{plan.port}"}


def _check_redis(url: str) -> None:
    """One clear line, before listening, when Redis cannot be reached."""
    import redis
    import redis.exceptions

    from apothecary.server.cluster import ClusterError

    try:
        client = redis.Redis.from_url(url, socket_connect_timeout=5)
        client.ping()
        client.close()
    except (redis.exceptions.RedisError, ValueError, OSError) as error:
        detail = " ".join(str(error).split())
        raise ClusterError(
            _("cannot reach Redis at {url}: {detail}", url=url, detail=detail)
        ) from None


def _run_server(plan: _Plan, sockets: list[Any] | None, announce: bool) -> None:
    """One server process: the app over the store, served by uvicorn (on
    ``sockets`` a supervisor bound, or on the plan's host and port)."""
    import uvicorn
    from uvicorn.protocols.http.auto import AutoHTTPProtocol

    from apothecary.server.accounts import AccountConfig
    from apothecary.server.app import WebConfig, create_app
    from apothecary.server.cluster import ClusterConfig
    from apothecary.server.guard import guarded_protocol
    from apothecary.server.hub import HubConfig
    from apothecary.server.store import Store

    if not announce:  # a worker: its supervisor set up logging in another process
        _set_up_logging(plan.log_level)
    cluster = (
        None
        if plan.redis_url is None
        else ClusterConfig(
            plan.redis_url, plan.lease_seconds, plan.heartbeat_seconds, plan.redis_prefix
        )
    )
    app = create_app(
        Store(plan.db),
        HubConfig(
            bot_workers=plan.bot_workers,
            bot_delay=plan.bot_delay,
            allow_seed=plan.allow_seed,
            max_rooms=plan.rooms[0],
            rooms_per_address=plan.rooms[1],
            lobby_expiry=plan.rooms[2],
            abandoned_expiry=plan.rooms[3],
            sockets_per_room=plan.rooms[4],
            bot_seconds=plan.thinking[0],
            hint_seconds=plan.thinking[1],
            pause_after=plan.thinking[3],
        ),
        WebConfig(
            allowed_origins=plan.allowed_origins,
            create_per_minute=plan.create_per_minute,
            rate_per_second=plan.socket_rate,
            rate_burst=max(30, int(3 * plan.socket_rate)),
            address_rate_per_second=4 * plan.socket_rate,
            address_rate_burst=max(120, int(12 * plan.socket_rate)),
            public_url=plan.public_url,
            **_mail(plan),
            request_timeout=plan.request_timeout,
            connections_per_address=plan.connections_per_address,
            accounts=plan.accounts or AccountConfig(),
            replay_cache_bytes=plan.replays[0],
            analysis_decisions=plan.replays[1],
            replay_seconds=plan.replays[2],
            hints_per_minute=plan.thinking[2],
        ),
        cluster,
    )
    web = app.state.web
    server = _Server(
        uvicorn.Config(
            app,
            host=plan.host,
            port=plan.port,
            log_level=plan.log_level,
            ws_max_size=1 << 20,
            # Requests still running (a hint thinking for a minute, many queued)
            # are cancelled after this long, so SIGTERM stops in bounded time.
            timeout_graceful_shutdown=SHUTDOWN_SECONDS,
            http=guarded_protocol(
                AutoHTTPProtocol, web.request_timeout, web.connections_per_address
            ),
            h11_max_incomplete_event_size=16_384,  # headers (when h11 serves)
        ),
        plan.shown_db,
        app.state.hub,
        announce,
    )
    if sockets is None:
        server.run()
    else:
        server.run(sockets=sockets)


ORPHAN_STOP_SECONDS = 10.0
"""How long a server process whose supervisor died may take to stop cleanly
before it is ended outright."""


def _stop_orphan() -> None:
    """Stop this server process as on SIGTERM (its sockets closed with a
    reason, its bot pool shut), and end it outright if that hangs."""
    os.kill(os.getpid(), signal.SIGTERM)
    backstop = threading.Timer(ORPHAN_STOP_SECONDS, exit_now)
    backstop.daemon = True
    backstop.start()


def _worker(plan: _Plan, sock: Any, supervisor: int) -> None:
    """A worker process's life (the supervisor's child)."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C reaches the supervisor, which says stop
    die_with_parent(supervisor, _stop_orphan)
    _run_server(plan, [sock], announce=False)


def _supervise(plan: _Plan, count: int) -> None:
    """Bind the socket, run ``count`` workers on it, restart one that dies,
    and stop them all (SIGTERM, then they close their sockets with a reason)
    on SIGTERM or Ctrl-C."""
    import uvicorn

    # uvicorn binds as it would for itself (IPv6, SO_REUSEADDR); the app is not used here.
    config = uvicorn.Config("apothecary.server.app:create_app", host=plan.host, port=plan.port)
    sock = config.bind_socket()
    sock.set_inheritable(True)
    context = multiprocessing.get_context("spawn")
    host, port = sock.getsockname()[:2]
    shown = f"[{host}]" if ":" in host else host
    typer.echo(f"apothecary is serving at http://{shown}:{port}/")
    typer.echo(f"database: {plan.shown_db}; {count} server processes sharing rooms through Redis")
    typer.echo(_("Open that address in a browser; press Ctrl-C to stop."))
    stopping = False

    def stop(_sig: int, _frame: Any) -> None:
        nonlocal stopping
        stopping = True

    signal.signal(signal.SIGTERM, stop)
    signal.signal(signal.SIGINT, stop)

    def spawn() -> Any:
        process = context.Process(
            target=_worker, args=(plan, sock, os.getpid()), name="apothecary-worker"
        )
        process.start()
        return process

    children = [spawn() for _ in range(count)]
    started = [time.monotonic()] * count
    quick_deaths = 0
    log = logging.getLogger("apothecary.server")
    while not stopping:
        time.sleep(0.2)
        for index, child in enumerate(children):
            if child.is_alive() or stopping:
                continue
            log.warning(
                "server process %d exited with %s; starting another", child.pid, child.exitcode
            )
            quick_deaths = quick_deaths + 1 if time.monotonic() - started[index] < 10 else 0
            if quick_deaths >= 3:  # a worker that cannot start: say so rather than loop
                log.error("server processes keep dying at start; stopping")
                stopping = True
                break
            children[index], started[index] = spawn(), time.monotonic()
    for child in children:
        if child.is_alive() and child.pid is not None:
            os.kill(child.pid, signal.SIGTERM)
    for child in children:
        child.join(30)
        if child.is_alive():
            child.kill()
    sock.close()
    if quick_deaths >= 3:
        raise typer.Exit(1)


try:
    import uvicorn as _uvicorn

    _Base: Any = _uvicorn.Server
except ModuleNotFoundError:  # without the [web] extra there is nothing to serve with
    _Base = object


SHUTDOWN_SECONDS = 5
"""Seconds a stopping server lets HTTP requests still running finish before
it cancels them (queued and running hints and analyses are then dropped)."""

SOCKETS_CLOSE_WAIT = 2.0
"""Seconds a stopping server waits for its sockets to close with their reason."""


class _Server(_Base):  # type: ignore[misc]
    """uvicorn's server, saying where it listens once it does, and closing
    the game sockets with a reason of its own on SIGTERM or Ctrl-C."""

    def __init__(self, config: Any, database: str, hub: Any, announce: bool = True) -> None:
        super().__init__(config)
        self.database = database
        self.hub = hub
        self.announce = announce

    async def startup(self, sockets: Any = None) -> None:
        await super().startup(sockets)
        # Everything made so far (modules, the app, the resumed rooms) lives as
        # long as the server: keep it out of the collector's sight, and collect
        # less often. With Python's defaults a full collection over the
        # sockets' coroutines froze the loop for up to 0.2 s every few seconds
        # at 500 rooms (docs/performance.md: p99 130 ms -> 19 ms).
        gc.freeze()
        gc.set_threshold(50_000, 20, 10)
        if not self.announce:  # a worker: its supervisor said where it serves
            return
        for server in self.servers:
            for sock in server.sockets:
                host, port = sock.getsockname()[:2]
                shown = f"[{host}]" if ":" in host else host
                typer.echo(f"apothecary is serving at http://{shown}:{port}/", err=False)
                typer.echo(f"database: {self.database}")
                typer.echo(_("Open that address in a browser; press Ctrl-C to stop."))
                return

    async def shutdown(self, sockets: Any = None) -> None:
        # uvicorn's own shutdown closes every socket still open with 1012 and no
        # reason. Our writers were told to close theirs with 1001 and a reason,
        # but may not have run yet (a loaded loop, a message still being sent):
        # let them finish first, for a bounded time.
        self.hub.close_sockets()
        await self.hub.sockets_closed(SOCKETS_CLOSE_WAIT)
        await super().shutdown(sockets)

    def handle_exit(self, sig: int, frame: Any) -> None:
        self.hub.close_sockets()
        super().handle_exit(sig, frame)
        # uvicorn raises the signal again once it has shut down, so the process
        # would die by SIGTERM; a stop we were asked for is a clean exit.
        captured = getattr(self, "_captured_signals", None)
        if isinstance(captured, list):
            captured.clear()
