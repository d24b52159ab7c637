"""Rated rooms: openskill ratings per game and player count, leaderboards, profiles.

A room created with ``rated`` (:attr:`apothecary.server.room.Settings.rated`) seats
only signed-in accounts and bots, and gives no hints. When one of its games ends,
:func:`rate_finished` moves every seat's rating for that game and player count by
openskill's Plackett-Luce model, in the transaction that writes the finished game
(:meth:`apothecary.server.store.Store.commit`), so a game is rated once, and never
lost to a crash between the two writes.

Who is rated is a *subject*: ``user:ID`` for an account, ``bot:LEVEL`` for a bot
level's pseudo-account (every ``hard`` seat of every rated game rates ``bot:hard``),
so the leaderboard says how strong each level is. A person whose seat a bot still
plays when the game ends (their turn timed out, or the host handed the seat over,
and they never took it back) has *abandoned*: as on Board Game Arena, that is a
loss, ranked below every seat that stayed, whatever the bot made of the position.

A rating is shown as a number a person can read: ``rating`` is 40 μ (a newcomer
1000), ``plus_minus`` 40·3σ (the newcomer's ±1000 shrinks as games are played), and
leaderboards rank by the conservative ``40 (μ - 3σ)``, which a lucky newcomer
cannot top. docs/ratings.md says what was chosen and why.
"""

from __future__ import annotations

import asyncio
import functools
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import sqlalchemy as sa
from sqlalchemy.engine import Connection

from apothecary.server.room import BOT, HUMAN, Room, RoomError, hash_token
from apothecary.server.store import rating_history, ratings, seat_links, users

if TYPE_CHECKING:
    from apothecary.server.store import Store

SCALE = 40.0
"""Rating points per unit of openskill's μ (and σ): μ = 25 shows as 1000."""

RECENT = 20
"""How many recent games a profile lists."""

BOARD_LIMIT = 100
"""The most entries one leaderboard answers with."""


class NeedsAccount(RoomError):
    """A guest asked for a seat in a rated room: a rating needs an account."""

    code = "rated_needs_account"
    status = 403


class AlreadySeated(RoomError):
    """An account asked for a second seat in a rated room (it would rate itself)."""

    code = "rated_already_seated"
    status = 409


class UserNotFound(RoomError):
    """No account has this user name."""

    code = "user_not_found"
    status = 404


def user_subject(user_id: int) -> str:
    """The subject an account is rated as."""
    return f"user:{user_id}"


def bot_subject(level: str) -> str:
    """The pseudo-account a bot level is rated as."""
    return f"bot:{level}"


@functools.cache
def _model() -> Any:
    # Imported here: only a server with rated games needs openskill loaded.
    from openskill.models import PlackettLuce

    return PlackettLuce()


def fresh() -> tuple[float, float]:
    """A newcomer's (μ, σ): openskill's defaults, 25 and 25/3."""
    rating = _model().rating()
    return float(rating.mu), float(rating.sigma)


def shown(mu: float, sigma: float) -> dict[str, int]:
    """A rating as people read it: ``rating`` (40 μ), ``plus_minus`` (40·3σ) and
    ``conservative`` (40 (μ - 3σ), what a leaderboard ranks by)."""
    return {
        "rating": round(SCALE * mu),
        "plus_minus": round(SCALE * 3 * sigma),
        "conservative": round(SCALE * (mu - 3 * sigma)),
    }


def update(
    before: Sequence[tuple[str, float, float]], ranks: Sequence[int]
) -> dict[str, tuple[float, float]]:
    """Each subject's (μ, σ) after one game: ``before`` is per seat (subject, μ, σ),
    ``ranks`` per seat (1 is first; equal ranks tie). Every seat is its own team of
    one; a subject in several seats (two ``hard`` bots) moves by the mean of its
    seats' updates, as the arena rates a bot that fills several seats."""
    model = _model()
    teams = [[model.rating(mu=mu, sigma=sigma)] for _subject, mu, sigma in before]
    rated = model.rate(teams, ranks=list(ranks))
    moved: dict[str, list[tuple[float, float]]] = {}
    for (subject, _mu, _sigma), team in zip(before, rated, strict=True):
        moved.setdefault(subject, []).append((float(team[0].mu), float(team[0].sigma)))
    return {
        subject: (sum(m for m, _ in seats) / len(seats), sum(s for _, s in seats) / len(seats))
        for subject, seats in moved.items()
    }


@dataclass(frozen=True)
class Placing:
    """How one seat of a finished rated game placed."""

    seat: int
    subject: str
    user_id: int | None
    rank: int
    won: bool
    abandoned: bool


def placings(room: Room, winners: Sequence[int], accounts: dict[int, int]) -> list[Placing]:
    """The rated seats of the room's finished game and their ranks: winners 1,
    the others who stayed 2 (everyone who stayed 1 when nobody won), and anyone
    whose seat a bot still played at the end (abandoned) 3, a loss. ``accounts``:
    the account of each person's seat; a person without one (an account deleted
    during the game) is not rated, and the others are rated among themselves."""
    placed = []
    for seat, place in enumerate(room.seats):
        abandoned = place.kind == HUMAN and place.away
        if place.kind == BOT:
            subject, user_id = bot_subject(place.level), None
        elif seat in accounts:
            subject, user_id = user_subject(accounts[seat]), accounts[seat]
        else:
            continue
        won = seat in winners and not abandoned
        rank = 3 if abandoned else 1 if won or not winners else 2
        placed.append(Placing(seat, subject, user_id, rank, won, abandoned))
    return placed


# -- the seat's account -------------------------------------------------------------------


def account_of_seat(connection: Connection, room: Room, seat: int) -> int | None:
    """The id of the account sitting in ``seat`` of ``room`` now, or None (a bot,
    an open seat, a guest, a deleted account). The link is kept by the seat's token
    hash, which moves with the person when a rematch rotates the seats. It is the
    one table of seats' accounts (``seat_links``), which My games reads too: a seat
    is the same person's for a rating as for their history."""
    token_hash = room.seats[seat].token_hash
    if room.seats[seat].kind != HUMAN or token_hash is None:
        return None
    found = connection.execute(
        sa.select(seat_links.c.user_id).where(
            seat_links.c.room == room.code, seat_links.c.token_hash == token_hash
        )
    ).scalar()
    return None if found is None else int(found)


def link_seat(
    connection: Connection,
    code: str,
    token_hash: str,
    user_id: int,
    seat_token: str | None = None,
    now: float = 0.0,
) -> None:
    """Note that the account ``user_id`` holds the seat of this token in room ``code``
    (instead of any seat it held before and the host freed: a rated room seats an
    account once). ``seat_token`` is kept for the account's other devices
    (:meth:`apothecary.server.seats.Seats.credentials`)."""
    connection.execute(
        seat_links.delete().where(seat_links.c.room == code, seat_links.c.user_id == user_id)
    )
    connection.execute(
        seat_links.insert().values(
            room=code, token_hash=token_hash, user_id=user_id, seat_token=seat_token, linked=now
        )
    )


# -- rating a finished game ---------------------------------------------------------------


def rate_finished(connection: Connection, room: Room, game_no: int, now: float) -> None:
    """Move the ratings of the seats of ``room``'s finished game ``game_no``, on
    ``connection`` (the finishing commit's transaction). Nothing when the game was
    rated already or fewer than two subjects took part."""
    done = connection.execute(
        sa.select(rating_history.c.seat).where(
            rating_history.c.room == room.code, rating_history.c.game_no == game_no
        )
    ).first()
    if done is not None or room.outcome is None:
        return
    winners = [int(w) for w in room.outcome.get("winners") or [] if isinstance(w, int)]
    accounts = {
        seat: found
        for seat in range(len(room.seats))
        if (found := account_of_seat(connection, room, seat)) is not None
    }
    placed = placings(room, winners, accounts)
    if len({p.subject for p in placed}) < 2:
        return
    game, players = room.game.name, room.game.num_players
    current = _lock_ratings(connection, placed, game, players, now)
    after = update([(p.subject, *current[p.subject]) for p in placed], [p.rank for p in placed])
    for subject in sorted(after):
        mine = [p for p in placed if p.subject == subject]
        connection.execute(
            ratings.update()
            .where(
                ratings.c.subject == subject,
                ratings.c.game == game,
                ratings.c.players == players,
            )
            .values(
                mu=after[subject][0],
                sigma=after[subject][1],
                games=ratings.c.games + 1,
                wins=ratings.c.wins + int(any(p.won for p in mine)),
                updated=now,
            )
        )
    connection.execute(
        rating_history.insert(),
        [
            {
                "room": room.code,
                "game_no": game_no,
                "seat": p.seat,
                "subject": p.subject,
                "user_id": p.user_id,
                "game": game,
                "players": players,
                "rank": p.rank,
                "won": p.won,
                "abandoned": p.abandoned,
                "mu_before": current[p.subject][0],
                "sigma_before": current[p.subject][1],
                "mu_after": after[p.subject][0],
                "sigma_after": after[p.subject][1],
                "at": now,
            }
            for p in placed
        ],
    )


def _lock_ratings(
    connection: Connection, placed: Sequence[Placing], game: str, players: int, now: float
) -> dict[str, tuple[float, float]]:
    """Every placed subject's current (μ, σ), its row made first if it had none and
    locked (PostgreSQL) until the transaction ends, so two rooms finishing at once
    on two processes (both with ``bot:hard``) never lose one of the updates."""
    from sqlalchemy.dialects import postgresql, sqlite

    postgres = connection.dialect.name == "postgresql"
    insert: Any = postgresql.insert if postgres else sqlite.insert
    mu, sigma = fresh()
    users_of = {p.subject: p.user_id for p in placed}
    # Sorted, so two transactions take the rows' locks in one order (no deadlock).
    for subject in sorted(users_of):
        connection.execute(
            insert(ratings)
            .values(
                subject=subject,
                game=game,
                players=players,
                user_id=users_of[subject],
                mu=mu,
                sigma=sigma,
                games=0,
                wins=0,
                updated=now,
            )
            .on_conflict_do_nothing()
        )
    rows = connection.execute(
        sa.select(ratings.c.subject, ratings.c.mu, ratings.c.sigma)
        .where(
            ratings.c.subject.in_(sorted(users_of)),
            ratings.c.game == game,
            ratings.c.players == players,
        )
        .order_by(ratings.c.subject)
        .with_for_update()
    ).all()
    return {row.subject: (float(row.mu), float(row.sigma)) for row in rows}


# -- reading: leaderboards and profiles ---------------------------------------------------


def _subject_name(subject: str, name: str | None) -> str:
    """How a subject is named on a page: the account's user name, or "hard bot"."""
    if subject.startswith("bot:"):
        return f"{subject[4:]} bot"
    return name or "deleted player"


def leaderboard(
    connection: Connection, game: str, players: int | None, limit: int = BOARD_LIMIT
) -> list[dict[str, Any]]:
    """The game's boards, one per player count (or just ``players``'s), each best
    first by the conservative rating, the rest of a tie by more games played."""
    conservative = ratings.c.mu - 3 * ratings.c.sigma
    query = (
        sa.select(ratings, users.c.name)
        .select_from(ratings.outerjoin(users, users.c.id == ratings.c.user_id))
        .where(ratings.c.game == game, ratings.c.games > 0)
        .order_by(ratings.c.players, conservative.desc(), ratings.c.games.desc(), ratings.c.subject)
    )
    if players is not None:
        query = query.where(ratings.c.players == players)
    boards: dict[int, list[dict[str, Any]]] = {}
    for row in connection.execute(query).mappings():
        entries = boards.setdefault(int(row["players"]), [])
        if len(entries) >= limit:
            continue
        entries.append(
            {
                "place": len(entries) + 1,
                "name": _subject_name(row["subject"], row["name"]),
                "kind": "bot" if row["subject"].startswith("bot:") else "user",
                "games": row["games"],
                "wins": row["wins"],
                **shown(row["mu"], row["sigma"]),
            }
        )
    return [{"players": count, "entries": entries} for count, entries in boards.items()]


def profile(connection: Connection, name: str) -> dict[str, Any]:
    """A person's public page: per game and player count their games, wins and
    rating; the rating after each rated game (the plot); their recent games, each
    with its replay's address. UserNotFound when no account has the name."""
    user = (
        connection.execute(
            sa.select(users.c.id, users.c.name, users.c.created).where(
                users.c.name_key == name.lower()
            )
        )
        .mappings()
        .first()
    )
    if user is None:
        raise UserNotFound(f"no account is called {name!r}")
    held = connection.execute(
        ratings.select()
        .where(ratings.c.user_id == user["id"], ratings.c.games > 0)
        .order_by(ratings.c.game, ratings.c.players)
    ).mappings()
    games = [
        {
            "game": row["game"],
            "players": row["players"],
            "games": row["games"],
            "wins": row["wins"],
            **shown(row["mu"], row["sigma"]),
        }
        for row in held
    ]
    history = connection.execute(
        rating_history.select()
        .where(rating_history.c.user_id == user["id"])
        .order_by(rating_history.c.at, rating_history.c.room, rating_history.c.game_no)
    ).mappings()
    points = [
        {
            "game": row["game"],
            "players": row["players"],
            "at": row["at"],
            "room": row["room"],
            "game_no": row["game_no"],
            "rank": row["rank"],
            "won": row["won"],
            "abandoned": row["abandoned"],
            "replay": f"/replay/{row['room']}/{row['game_no']}",
            "before": shown(row["mu_before"], row["sigma_before"]),
            **shown(row["mu_after"], row["sigma_after"]),
        }
        for row in history
    ]
    return {
        "name": user["name"],
        "created": user["created"],
        "games": games,
        "history": points,
        "recent": list(reversed(points[-RECENT:])),
    }


class Ratings:
    """The ratings in ``store``'s database, for the routes: reads in a thread,
    writes on the store's one writer."""

    def __init__(self, store: Store) -> None:
        self.store = store

    async def _read(self, fn: Any, *args: Any) -> Any:
        def read() -> Any:
            with self.store.engine.connect() as connection:
                return fn(connection, *args)

        return await asyncio.to_thread(read)

    async def leaderboard(self, game: str, players: int | None) -> list[dict[str, Any]]:
        """:func:`leaderboard`, read in a thread."""
        boards: list[dict[str, Any]] = await self._read(leaderboard, game, players)
        return boards

    async def profile(self, name: str) -> dict[str, Any]:
        """:func:`profile`, read in a thread."""
        found: dict[str, Any] = await self._read(profile, name)
        return found

    async def link(self, code: str, token: str, user_id: int, now: float) -> None:
        """:func:`link_seat` for the seat of ``token``, on the store's writer."""

        def write() -> None:
            with self.store.engine.begin() as connection:
                link_seat(connection, code, hash_token(token), user_id, token, now)

        await self.store.run(write)
