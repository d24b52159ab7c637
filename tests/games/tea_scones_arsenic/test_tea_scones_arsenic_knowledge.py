"""What a seat is told agrees with what it may know, in two places where it once did not.

Both were found by checking every observation against a separately written model
of what each seat may know:

- after a draw by kind, while its dose is still being drawn, the box's unmarked
  count of that kind still counted the scone in hand (the box total said it had
  left);
- a game ending in the eat-off turns every total over, and the observation shows
  them, but the information state did not record it, so two such games with
  different totals left a seat with the same information state.
"""

from __future__ import annotations

import random
from collections.abc import Iterator

import apothecary
from apothecary.core.errors import IllegalActionError
from apothecary.core.game import CHANCE, State, sample_chance


def _random_games(players: int, games: int, seed: int) -> Iterator[list[State]]:
    """Seeded random games, each as the list of its positions (clones)."""
    rng = random.Random(seed)
    game = apothecary.load("tea-scones-arsenic", players=players)
    for _ in range(games):
        state = game.new_initial_state()
        positions = [state.clone()]
        while not state.is_terminal():
            if state.current_player() == CHANCE:
                state.apply_action(sample_chance(state, rng))
            else:
                state.apply_action(rng.choice(state.legal_actions()))
            positions.append(state.clone())
        yield positions


def test_a_scone_in_hand_has_left_the_unmarked_count_before_its_dose_is_drawn() -> None:
    # Rules: "take a scone (by kind, or one particular marked scone), see its dose
    # alone, then eat it or pay a cube to put it back": once taken it is in hand,
    # not in the box, whether or not chance has drawn its dose yet.
    checked_dose_draws = 0
    for players in (1, 3, 5):
        for positions in _random_games(players, games=3, seed=players):
            for state in positions:
                for viewer in (*range(players), None):
                    box = state.observation(viewer)["box"]
                    assert sum(box["unmarked"]) + len(box["marked"]) == box["scones"], (
                        f"{state.history()} for {viewer}: {box}"
                    )
                if state.current_player() == CHANCE:
                    checked_dose_draws += 1
                    # The tensor is made from the same count: the kinds' unmarked
                    # counts over 6 sit just after the seats' blocks.
                    box = state.observation(0)["box"]
                    tensor = state.observation_tensor(0)
                    assert _contains(tensor, [c / 6 for c in box["unmarked"]])
    assert checked_dose_draws > 100


def _contains(tensor: list[float], part: list[float]) -> bool:
    width = len(part)
    return any(tensor[i : i + width] == part for i in range(len(tensor) - width + 1))


def _eat_off_endings(players: int, want: int, seed: int) -> Iterator[list[State]]:
    found = 0
    for positions in _random_games(players, games=4000, seed=seed):
        if positions[-1].observation(None)["eat_off"] is not None:
            found += 1
            yield positions
            if found == want:
                return


def _other_worlds(positions: list[State]) -> Iterator[State]:
    """Every end reached by giving one of the eat-off's drawn scones another dose."""
    final = positions[-1]
    history = final.history()
    start = next(i for i, s in enumerate(positions) if s.observation(None)["main_game_over"])
    for index in range(start, len(history)):
        if positions[index].current_player() != CHANCE:
            continue
        for dose, _p in positions[index].chance_outcomes():
            if dose == history[index]:
                continue
            world = positions[index].clone()
            try:
                world.apply_action(dose)
                for action in history[index + 1 :]:
                    world.apply_action(action)
            except IllegalActionError:
                continue
            if world.is_terminal():
                yield world


def test_the_totals_turned_over_at_the_end_of_an_eat_off_are_in_the_information_state() -> None:
    # Rules: "at the very end every total is public", the eat-off's face-down
    # scones included; two ends that show a seat different totals are two
    # different information states for it (string and tensor alike).
    shown_apart = 0
    for players in (2, 3):
        for positions in _eat_off_endings(players, want=4, seed=10 + players):
            final = positions[-1]
            for world in _other_worlds(positions):
                for seat in range(players):
                    if world.observation(seat) == final.observation(seat):
                        continue
                    shown_apart += 1
                    assert world.information_state_string(seat) != (
                        final.information_state_string(seat)
                    ), f"seat {seat} told different totals has the same information state"
                    assert world.information_state_tensor(seat) != (
                        final.information_state_tensor(seat)
                    )
    assert shown_apart > 0, "no pair of eat-off endings told a seat different totals"


def test_the_information_state_says_the_eat_off_totals_in_words() -> None:
    for positions in _eat_off_endings(2, want=1, seed=12):
        final = positions[-1]
        totals = [seat["total"] for seat in final.observation(0)["seats"]]
        assert f"[game over; totals {totals}]" in final.information_state_string(0)
