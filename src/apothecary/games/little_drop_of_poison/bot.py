"""A rule-based bot for Little Drop of Poison, reading only its seat's observation.

Its turn, decided afresh at every step from the observation (so it needs no
memory between steps):

1. **Kill** when the face-up drops on a character plus its own cards of one
   unblocked colour reach the lethal number: the most valuable such kill (the
   king of the other kind 3, of its own kind 2, a peasant of the other kind 1),
   with the fewest cards, biggest drops first.
2. **Defend**: when poison lies on its own peasant or someone has played on it
   this poison round, play an antidote of the most dangerous colour on itself
   (a universal antidote when the danger is high).
3. Otherwise **wait** cheaply: play one card only, so the hand grows by one card
   each poison round towards a later kill. A spare one-colour antidote goes on
   itself (blocking that colour there for the round); else the smallest poison
   goes where it helps nobody, a character on which its colour is blocked, or
   failing that where it brings the fewest drops towards a kill, never on itself.

Ties (equal kills, equally harmless places to wait) are broken in an order of
the characters drawn afresh each poison round from the bot's seed, never by seat
number: a fixed order would pile the dumped poison on the lowest seats and hand
the later seats the wins. The order depends only on the seed and the round
numbers, so every step of one turn follows the same plan.
"""

from __future__ import annotations

import random

from apothecary.core.bot import Bot, Level, register_bot, register_room_budget
from apothecary.core.errors import BadOptionError
from apothecary.core.game import JSON, Action, Game, Player, State

GAME = "little-drop-of-poison"


class _Card:
    """What a card code says: its colour indices, drops, and whether an antidote."""

    __slots__ = ("antidote", "code", "colours", "drops", "universal")

    def __init__(self, code: str, letters: dict[str, int]) -> None:
        self.code = code
        self.universal = code == "u!"
        self.antidote = code.endswith("!") and not self.universal
        if self.antidote:
            self.colours: tuple[int, ...] = (letters[code[0]],)
            self.drops = 0
        elif self.universal:
            self.colours = ()
            self.drops = 0
        else:
            body = code.rstrip("0123456789")
            self.drops = int(code[len(body) :])
            self.colours = tuple(letters[letter] for letter in body.split("+"))


def _expand(cards: dict[str, int]) -> list[str]:
    return [code for code, count in cards.items() for _ in range(count)]


class RuleBot(Bot):
    """Kill when its own cards make a lethal colour, defend itself, otherwise wait."""

    def __init__(self, game: Game, seat: Player, seed: int | None = None) -> None:
        super().__init__(game, seat, seed)
        # The seed of the tie-breaking orders, one per poison round.
        self._ties_seed = self.rng.getrandbits(64)

    def _tie_order(self, obs: dict[str, JSON], characters: list[str]) -> dict[str, int]:
        """A rank per character (lower first among equals), the same at every
        step of a turn: it is drawn from the seed and the round numbers alone."""
        rng = random.Random(f"{self._ties_seed}:{obs['assassination_round']}:{obs['poison_round']}")
        shuffled = list(characters)
        rng.shuffle(shuffled)
        return {character: rank for rank, character in enumerate(shuffled)}

    def _choose(self, state: State) -> Action:
        legal = state.legal_actions()
        if len(legal) == 1:
            return legal[0]
        obs = state.observation(self.seat)
        target, wanted = self._plan(obs)
        names = {state.action_to_string(a): a for a in legal}
        played_on = obs["seats"][self.seat]["played_on"]
        if played_on is None:
            return names.get(f"on {target}", legal[0])
        if played_on != target:
            # Not this plan's character (the bot was restarted mid-turn): finish cheaply.
            return names.get("done", legal[0])
        left = dict(wanted)
        for code, count in obs["my_play"].items():
            left[code] = left.get(code, 0) - count
        for code, count in left.items():
            if count > 0 and code in names:
                return names[code]
        return names.get("done", legal[0])

    def _plan(self, obs: dict[str, JSON]) -> tuple[str, dict[str, int]]:
        """The character to play on and the cards to play there, as at the start of
        the turn (the cards already played this turn count as still in hand), so
        every step of a turn follows the same plan."""
        me = self.seat
        letters = {name[0]: i for i, name in enumerate(obs["colours"])}
        info = {code: _Card(code, letters) for code in obs["cards"]}
        held, played = obs["hand"], obs["my_play"]
        # In the deck's card order, so that every step of a turn sees the same hand.
        mine = {
            code: held.get(code, 0) + played.get(code, 0)
            for code in obs["cards"]
            if held.get(code, 0) + played.get(code, 0)
        }
        hand = _expand(mine)
        kinds = [seat["kind"] for seat in obs["seats"]]
        my_kind = kinds[me]
        colours = len(obs["colours"])

        def drops_on(character: str) -> tuple[list[int], set[int]]:
            here = obs["table"][character]
            blocked = {obs["colours"].index(c) for c in here["blocked"]}
            totals = [0] * colours
            for code, count in here["cards"].items():
                card = info[code]
                for k in card.colours:
                    if not card.antidote:
                        totals[k] += card.drops * count
            return totals, blocked

        characters = [str(s["seat"]) for s in obs["seats"] if s["alive"]]
        if obs["king_alive"]:
            characters.append("king")
        tie = self._tie_order(obs, characters)

        def value(character: str) -> int:
            if character == "king":
                return 2 if obs["king"] == my_kind else 3
            if character == str(me):
                return 0
            return 0 if kinds[int(character)] == my_kind else 1

        # 1. Kill.
        best: tuple[tuple[int, int, int], str, list[str]] | None = None
        for character in characters:
            worth = value(character)
            if worth <= 0:
                continue
            lethal = obs["king_lethal"] if character == "king" else obs["peasant_lethal"]
            totals, blocked = drops_on(character)
            for k in range(colours):
                if k in blocked:
                    continue
                need = lethal - totals[k]
                useful = sorted(
                    (c for c in hand if k in info[c].colours and not info[c].antidote),
                    key=lambda c: -info[c].drops,
                )
                chosen: list[str] = []
                for code in useful:
                    if need <= 0:
                        break
                    chosen.append(code)
                    need -= info[code].drops
                if need <= 0 and chosen:
                    rank = (worth, -len(chosen), -tie[character])
                    if best is None or rank > best[0]:
                        best = (rank, character, chosen)
        if best is not None:
            return best[1], _count(best[2])
        # 2. Defend.
        me_name = str(me)
        if me_name in characters:
            totals, blocked = drops_on(me_name)
            attackers = sum(
                1
                for s in obs["seats"]
                if s["seat"] != me and s["played_on"] == me_name and s["played"]
            )
            danger = max(totals) + 2 * attackers
            if danger >= 2:
                antidotes = [
                    c for c in hand if info[c].antidote and info[c].colours[0] not in blocked
                ]
                antidotes.sort(key=lambda c: -totals[info[c].colours[0]])
                if antidotes and (totals[info[antidotes[0]].colours[0]] or attackers):
                    return me_name, {antidotes[0]: 1}
                if "u!" in hand and danger >= 3:
                    return me_name, {"u!": 1}
        # 3. Wait.
        if me_name in characters:
            _totals, blocked = drops_on(me_name)
            for c in hand:
                if info[c].antidote and info[c].colours[0] not in blocked:
                    return me_name, {c: 1}
        poisons = sorted(
            (c for c in hand if not info[c].antidote and not info[c].universal),
            key=lambda c: (info[c].drops * len(info[c].colours), c),
        )
        if not poisons:
            # Only antidotes left: put one on itself if alive, else anywhere.
            target = me_name if me_name in characters else min(characters, key=tie.__getitem__)
            return target, {hand[0]: 1}
        card = poisons[0]
        placement: tuple[float, int, str] | None = None
        for character in characters:
            if character == me_name:
                continue
            totals, blocked = drops_on(character)
            lethal = obs["king_lethal"] if character == "king" else obs["peasant_lethal"]
            progress = max(
                (
                    (totals[k] + info[card].drops) / lethal
                    for k in info[card].colours
                    if k not in blocked
                ),
                default=-1.0,
            )
            spot = (progress, tie[character], character)
            if placement is None or spot < placement:
                placement = spot
        if placement is None:
            return min(characters, key=tie.__getitem__), {card: 1}
        return placement[2], {card: 1}


def _count(codes: list[str]) -> dict[str, int]:
    counts: dict[str, int] = {}
    for code in codes:
        counts[code] = counts.get(code, 0) + 1
    return counts


register_bot(
    GAME, "rules", RuleBot, "kills when its cards make a lethal colour, else waits", quick=True
)

ROOM_ISMCTS_SIZE = 400
"""The largest table a room's ``ismcts`` bot plays, as seats × target score:
each iteration plays the game out to the target, at every seat."""


def room_ismcts_budget(game: Game) -> dict[str, int | float | str]:
    """``ismcts`` in a room: its own 500 iterations at the default 4 seats and
    target 10, scaled down by seats × target (at least 50); refused past
    :data:`ROOM_ISMCTS_SIZE` (8 seats, target 1000 took over 900 s a move)."""
    size = game.num_players * int(game.options["target"])
    if size > ROOM_ISMCTS_SIZE:
        raise BadOptionError(
            f"the ismcts bot plays at most {ROOM_ISMCTS_SIZE} seats × target in a room "
            f"(this table is {game.num_players} × {game.options['target']}); choose a level"
        )
    return {"iterations": max(50, min(500, round(500 * 40 / size)))}


register_room_budget(GAME, "ismcts", room_ismcts_budget)
# Playouts over many assassination rounds drown one move's effect (docs/bots.md),
# so medium is the rules bot blundering, and hard is the rules bot with a search
# over the current poison round scored at its reveal (:mod:`.search`), which
# beats it (benchmarks/ldop_hard.py).
LEVELS = {
    "medium": Level(
        "medium", "careless", {"mistakes": 0.2}, "the rules bot, a fifth of its moves random"
    ),
    "hard": Level(
        "hard",
        "reveal",
        {},
        "the rules bot with a search of the current poison round, scored at its reveal",
    ),
}
"""The levels the manifest declares (``easy`` stays the generic one)."""

# The search bot builds on the rules bot, so it is registered once this module is done.
from apothecary.games.little_drop_of_poison import search as _search  # noqa: E402, F401
