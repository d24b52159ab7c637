"""A search over the current poison round for Little Drop of Poison, scored at its reveal.

The rules bot (:mod:`.bot`) never looks at what the others have played this
poison round, and that is where its points leak: credit for a kill goes to
*every* player who put a drop of a lethal colour on the victim in that poison
round, each for the full points. When a rival has just put two cards on the
king, a rules bot is almost surely killing it, and one card of the right
colour on top shares the kill; when a rival attacks one's peasant, an antidote
of the colour it is most likely using saves it.

``RevealBot`` plays one turn as one combined move (a character and the cards
to put there), chosen like this:

1. **Worlds.** It draws ``worlds`` guesses of the face-down cards the others
   played this poison round, from the cards its seat has not seen (the whole
   deck less its hand, the face-up piles and the discard pile). Each guess
   follows how the others play (the rules bot's habits): cards on one's own
   peasant are antidotes; two or more cards on another character make a
   lethal colour there (redrawn a few times until they do); one card on
   another character is a poison card.
2. **Candidates.** The rules bot's own move; every character with one or two
   of its cards (poison only on others; antidotes anywhere); and, per
   character and colour, the fewest cards of that colour that are lethal with
   the face-up drops.
3. **Score at the reveal.** Each candidate is resolved with the guessed plays
   by the rulebook's reveal steps (antidotes, drops per colour, deaths,
   credit) on the one character it plays on: its own points, less ``rivals``
   times the mean points of the others, less ``death`` if its own peasant dies
   there, less ``card_cost`` for every card beyond the one a turn must play
   (cards kept are the next rounds' kills). The same worlds serve every
   candidate, so they are compared on the same guesses.
4. It plays the best candidate if it beats the rules bot's move by more than
   ``margin``; otherwise the rules bot's move.

The later seats of the poison round are not guessed (a rules bot after it
only adds kills of its own, or an antidote on its own peasant). It reads only
its seat's observation: the worlds come from a generator seeded by the bot's
seed and the round numbers, so every step of a turn makes the same plan and
two positions its seat cannot tell apart get the same move.
"""

from __future__ import annotations

import itertools
import random
from collections.abc import Sequence

from apothecary.core.bot import register_bot
from apothecary.core.errors import BadOptionError
from apothecary.core.game import JSON, Game, Player
from apothecary.games.little_drop_of_poison.bot import GAME, RuleBot, _Card, _count
from apothecary.games.little_drop_of_poison.facts import kill_points

MAX_WORLDS = 10_000
REDRAWS = 12
"""Tries at a guess of a rival's two or more cards that is lethal where they lie."""

Play = tuple[int, tuple[str, ...]]
"""A seat and the cards it put on one character this poison round."""


class RevealBot(RuleBot):
    """The rules bot, except that it scores its candidate moves at this poison
    round's reveal over guesses of what the others played."""

    def __init__(
        self,
        game: Game,
        seat: Player,
        seed: int | None = None,
        *,
        worlds: int = 32,
        card_cost: float = 0.4,
        rivals: float = 0.5,
        death: float = 1.5,
        margin: float = 0.05,
    ) -> None:
        super().__init__(game, seat, seed)
        if not isinstance(worlds, int) or not 1 <= worlds <= MAX_WORLDS:
            raise BadOptionError(f"reveal worlds={worlds!r}: expected 1 to {MAX_WORLDS}")
        for name, value in (
            ("card_cost", card_cost),
            ("rivals", rivals),
            ("death", death),
            ("margin", margin),
        ):
            if not isinstance(value, int | float) or not 0 <= value <= 10:
                raise BadOptionError(f"reveal {name}={value!r}: expected 0 to 10")
        start = getattr(game, "start_counts", None)
        if not isinstance(start, tuple):
            raise BadOptionError(f"the reveal bot plays {GAME}, not {game.name}")
        self._start: tuple[int, ...] = start
        self.worlds = worlds
        self.card_cost = float(card_cost)
        self.rivals = float(rivals)
        self.death = float(death)
        self.margin = float(margin)
        self._worlds_seed = self.rng.getrandbits(64)

    def _plan(self, obs: dict[str, JSON]) -> tuple[str, dict[str, int]]:
        base = super()._plan(obs)
        return _Search(self, obs).best(base)


class _Search:
    """One turn's search: the position read from the observation, the worlds drawn."""

    def __init__(self, bot: RevealBot, obs: dict[str, JSON]) -> None:
        self.bot = bot
        self.obs = obs
        me = self.me = bot.seat
        self.n = int(obs["players"])
        codes: list[str] = list(obs["cards"])
        letters = {name[0]: i for i, name in enumerate(obs["colours"])}
        self.info = {code: _Card(code, letters) for code in codes}
        colour_index = {name: i for i, name in enumerate(obs["colours"])}
        held, played = obs["hand"], obs["my_play"]
        # The hand at the start of the turn, so every step of a turn plans alike.
        self.hand = {
            code: held.get(code, 0) + played.get(code, 0)
            for code in codes
            if held.get(code, 0) + played.get(code, 0)
        }
        self.kinds = [0 if seat["kind"] == "rat" else 1 for seat in obs["seats"]]
        self.king_kind = 0 if obs["king"] == "rat" else 1
        self.characters = [str(s["seat"]) for s in obs["seats"] if s["alive"]]
        if obs["king_alive"]:
            self.characters.append("king")
        self.piles: dict[str, dict[str, int]] = {}
        self.blocked: dict[str, set[int]] = {}
        for character in self.characters:
            here = obs["table"][character]
            self.piles[character] = dict(here["cards"])
            self.blocked[character] = {colour_index[c] for c in here["blocked"]}
        # The rivals' plays of this poison round: (seat, character, how many cards).
        self.rival_plays = [
            (int(s["seat"]), str(s["played_on"]), int(s["played"]))
            for s in obs["seats"]
            if s["seat"] != me and s["played"] and s["played_on"] is not None
        ]
        # Cards the seat has not seen, per code (never below zero: after a refill
        # the count is an estimate, as the old discards are back in the deck).
        unseen = dict(zip(codes, bot._start, strict=True))
        for counts in (self.hand, obs["discard"], *(pile for pile in self.piles.values())):
            for code, count in counts.items():
                unseen[code] = max(0, unseen[code] - count)
        self.unseen = [code for code, count in unseen.items() for _ in range(count)]
        rng = random.Random(
            f"{bot._worlds_seed}:{obs['assassination_round']}:{obs['poison_round']}"
        )
        self.worlds = [self._draw(rng) for _ in range(bot.worlds) if self.rival_plays]

    def _lethal_colours(self, character: str, extra: Sequence[str]) -> set[int]:
        """The colours the face-up pile and ``extra`` make lethal on ``character``
        (antidotes not weighed: a rival's guess only needs to look like a kill)."""
        limit = self._limit(character)
        totals: dict[int, int] = {}
        for code, count in itertools.chain(self.piles[character].items(), ((c, 1) for c in extra)):
            card = self.info[code]
            if card.antidote or card.universal:
                continue
            for k in card.colours:
                totals[k] = totals.get(k, 0) + card.drops * count
        blocked = self.blocked[character]
        return {k for k, total in totals.items() if total >= limit and k not in blocked}

    def _limit(self, character: str) -> int:
        obs = self.obs
        return int(obs["king_lethal"] if character == "king" else obs["peasant_lethal"])

    def _draw(self, rng: random.Random) -> dict[str, list[Play]]:
        """One guess of the rivals' face-down plays, by character."""
        pool = list(self.unseen)
        rng.shuffle(pool)
        info = self.info
        world: dict[str, list[Play]] = {}
        for seat, character, count in self.rival_plays:
            if character == str(seat):
                wanted = [c for c in pool if info[c].antidote or info[c].universal]
            else:
                wanted = [c for c in pool if not (info[c].antidote or info[c].universal)]
            if len(wanted) < count:
                wanted = pool
            cards = rng.sample(wanted, min(count, len(wanted)))
            if character != str(seat) and count >= 2:
                for _ in range(REDRAWS):
                    if self._lethal_colours(character, cards):
                        break
                    cards = rng.sample(wanted, min(count, len(wanted)))
            for code in cards:
                pool.remove(code)
            world.setdefault(character, []).append((seat, tuple(cards)))
        return world

    def _resolve(self, character: str, plays: Sequence[Play]) -> float:
        """The reveal on ``character`` with ``plays`` (this poison round's), scored
        for the bot: its points, less ``rivals`` times the others' mean, less
        ``death`` if it is its own peasant that dies."""
        if not plays:
            return 0.0
        info = self.info
        if any(info[c].universal for _, cards in plays for c in cards):
            return 0.0  # a universal antidote wipes the pile: nobody dies here
        cleared = {info[c].colours[0] for _, cards in plays for c in cards if info[c].antidote}
        blocked = self.blocked[character] | cleared

        def survives(code: str) -> bool:
            card = info[code]
            return not (card.antidote or card.universal) and not cleared & set(card.colours)

        totals: dict[int, int] = {}
        pile = [(c, n) for c, n in self.piles[character].items() if survives(c)]
        fresh = [(c, 1) for _, cards in plays for c in cards if survives(c)]
        for code, count in pile + fresh:
            card = info[code]
            for k in card.colours:
                totals[k] = totals.get(k, 0) + card.drops * count
        limit = self._limit(character)
        lethal = {k for k, total in totals.items() if total >= limit and k not in blocked}
        if not lethal:
            return 0.0
        king = character == "king"
        victim = self.king_kind if king else self.kinds[int(character)]
        mine = others = 0
        for seat, cards in plays:
            if any(survives(c) and lethal & set(info[c].colours) for c in cards):
                points = kill_points(self.kinds[seat], victim, king)
                if seat == self.me:
                    mine += points
                else:
                    others += points
        bot = self.bot
        score = mine - bot.rivals * others / max(1, self.n - 1)
        if character == str(self.me):
            score -= bot.death
        return score

    def value(self, character: str, cards: dict[str, int]) -> float:
        """The mean score at the reveal of playing ``cards`` on ``character``,
        against playing nothing there, less the cost of the cards."""
        mine: Play = (self.me, tuple(c for c, n in cards.items() for _ in range(n)))
        cost = self.bot.card_cost * max(0, len(mine[1]) - 1)
        if not self.worlds or not any(character in world for world in self.worlds):
            return self._resolve(character, [mine]) - cost
        total = 0.0
        for world in self.worlds:
            theirs = world.get(character, [])
            total += self._resolve(character, [*theirs, mine]) - self._resolve(character, theirs)
        return total / len(self.worlds) - cost

    def candidates(self) -> list[tuple[str, dict[str, int]]]:
        """One or two of its cards on any character (poison never on its own
        peasant), and the fewest cards of one colour that are lethal there."""
        info = self.info
        me = str(self.me)
        codes = list(self.hand)
        sets: list[dict[str, int]] = [{c: 1} for c in codes]
        for a, b in itertools.combinations_with_replacement(codes, 2):
            if a != b or self.hand[a] >= 2:
                sets.append({a: 1, b: 1} if a != b else {a: 2})
        out: list[tuple[str, dict[str, int]]] = []
        for character in self.characters:
            for cards in sets:
                poison = any(not (info[c].antidote or info[c].universal) for c in cards)
                if character == me and poison:
                    continue
                out.append((character, cards))
            if character == me:
                continue
            for k in range(len(self.obs["colours"])):
                chosen: list[str] = []
                for code in sorted(
                    (c for c in codes for _ in range(self.hand[c]) if k in info[c].colours),
                    key=lambda c: -info[c].drops,
                ):
                    if info[code].antidote:
                        continue
                    chosen.append(code)
                    if k in self._lethal_colours(character, chosen):
                        out.append((character, _count(chosen)))
                        break
        return out

    def best(self, base: tuple[str, dict[str, int]]) -> tuple[str, dict[str, int]]:
        """The best candidate if it beats ``base`` by more than the margin, else ``base``."""
        if not self.hand or base[0] not in self.characters:
            return base
        floor = self.value(*base) + self.bot.margin
        best, best_value = base, floor
        for candidate in self.candidates():
            value = self.value(*candidate)
            if value > best_value:
                best, best_value = candidate, value
        return best


register_bot(
    GAME,
    "reveal",
    RevealBot,
    "the rules bot, but scores its moves at this poison round's reveal over guessed plays; "
    "worlds=N, card_cost, rivals, death, margin",
)
