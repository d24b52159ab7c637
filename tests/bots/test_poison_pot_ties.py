"""Poison Pot's ties for first go to the last placer, so match play alternates
who starts: the server's room series and the arena's tournaments both do."""

from __future__ import annotations

import random

import pytest

import apothecary
from apothecary import bots
from apothecary.arena.match import play_game
from apothecary.arena.tournament import plan
from apothecary.core.game import CHANCE
from apothecary.server.room import Room, Settings

GAME = "poison-pot"


def starts_alternate(starters: list[str], people: list[str]) -> bool:
    """Whether every run of len(people) games in a row has each person start once."""
    size = len(people)
    return all(
        sorted(starters[i : i + size]) == sorted(people) for i in range(len(starters) - size + 1)
    )


def test_the_alternation_check_catches_a_fixed_starter() -> None:
    assert starts_alternate(["a", "b", "a", "b"], ["a", "b"])
    assert not starts_alternate(["a", "a", "b", "b"], ["a", "b"])  # planted: a starts twice
    assert not starts_alternate(["a", "b", "c", "a", "c", "b"], ["a", "b", "c"])


def test_every_tie_for_first_goes_to_the_last_placer_at_two_players() -> None:
    """Rules page: "the player who made the last placement adds 1/2 ... With 2
    players the last placement is always blue's" (seat 1)."""
    game = apothecary.load(GAME, players=2, radius=1)
    ties = 0
    for index in range(300):
        rng = random.Random(index)
        seats = [bots.load("random", game, s, seed=rng.getrandbits(32)) for s in range(2)]
        state = play_game(game, seats, rng)
        outcome = state.outcome()
        assert outcome is not None
        if any(score != int(score) for score in outcome.scores):
            ties += 1
            assert outcome.winners == (1,)
    assert ties > 0  # the small board ties often enough for the check to bite


@pytest.mark.parametrize("variants", [[{}], [{"radius": 2}, {"radius": 3}]])
def test_a_tournament_alternates_who_starts(variants: list[dict[str, int]]) -> None:
    spec = plan(GAME, 2, ["rules", "random"], 8 * len(variants), seed=1, variants=variants)
    for variant in range(len(variants)):
        seat0 = [
            spec.schedule(i)[1][0] for i in range(spec.total) if spec.schedule(i)[0] == variant
        ]
        assert starts_alternate(seat0, ["rules", "random"])


def test_a_round_robin_alternates_who_starts_in_every_pairing() -> None:
    spec = plan(GAME, 2, ["rules", "random", "medium"], 12, seed=1)
    by_pair: dict[frozenset[str], list[str]] = {}
    for i in range(spec.total):
        seats = spec.schedule(i)[1]
        by_pair.setdefault(frozenset(seats), []).append(seats[0])
    assert len(by_pair) == 3
    for pair, starters in by_pair.items():
        assert starts_alternate(starters, sorted(pair))


def play_human_game(room: Room) -> None:
    """Chance draws and every person plays the first legal move, to the end."""
    while (pending := room.pending()) is not None and pending.kind != "next_game":
        state = room.state
        assert state is not None
        if state.current_player() == CHANCE:
            room.apply(room.chance_action(), 0.0)
        else:
            room.apply(state.legal_actions()[0], 0.0)


@pytest.mark.parametrize("players", [2, 3])
def test_a_room_series_alternates_who_starts(players: int) -> None:
    """Seat 0 starts (rules page, "Setting up"); the room moves everyone one seat
    on between the games of a series and at a rematch."""
    room, _host = Room.create(
        GAME, players, {"radius": 1}, ["open"] * players, Settings(match_target=50), now=0.0
    )
    people = ["Ann", "Bob", "Cid"][:players]
    for name in people:
        room.claim(name)
    room.start(0.0)
    starters = []
    for game in range(2 * players):
        starters.append(room.seats[0].name)
        play_human_game(room)
        assert room.status == "over"
        if game % 2:
            room.rematch(0.0)
        else:
            room.next_game(0.0)
    assert starts_alternate(starters, people)
