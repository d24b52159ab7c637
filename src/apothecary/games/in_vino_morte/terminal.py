"""In Vino Morte: one line per seat with its glass, cheese and fate."""

from __future__ import annotations

from typing import Any

from rich.text import Text

from apothecary.i18n.terminal import T_, _, _n
from apothecary.tui.views.base import (
    BOARD_WIDTH,
    YOU,
    GameView,
    Observation,
    fit,
    seat_name,
    seat_names,
)

# The letter carries the meaning; the colour only helps. The word is said in
# the chosen language where it is drawn.
GLASSES: dict[str | None, tuple[str, str, str]] = {
    "wine": ("W", "bold green", T_("wine")),
    "poison": ("P", "bold red", T_("POISON")),
    "covered": ("?", "bold", T_("covered")),
    None: ("-", "dim", ""),
}

CONTENTS = {"wine": T_("wine"), "poison": T_("poison")}
"""What a glass held, as a sentence says it (said with ``_`` where it is)."""


def contents(glass: str) -> str:
    """``wine`` or ``poison`` in the chosen language."""
    return _(CONTENTS[glass]) if glass in CONTENTS else glass


def reversed_by_cheese(glass: str, died: bool) -> bool:
    """Whether cheese decided a glass's fate: poison that did not kill, or wine
    that did. Cheese is the only thing that reverses a glass, so the public
    result says it without anything hidden (the cheese a seat holds at a
    round's end may have been stolen after it drank)."""
    return (glass == "poison") != died


def glass_words(glass: str, died: bool) -> str:
    """``poison``, or ``poison + cheese`` where the cheese reversed it."""
    if reversed_by_cheese(glass, died):
        return _("{glass} + cheese", glass=contents(glass))
    return contents(glass)


def round_glasses(last: dict[str, Any], viewer: int | None, seats: list[int]) -> str:
    """The glasses of ``seats`` in the round ``last`` as words, the cheese
    named where it decided who lived: ``seat 0 (you) poison + cheese``."""
    return ", ".join(
        f"{seat_name(s, viewer)} {glass_words(last['glasses'][s], s in last['died'])}"
        for s in seats
    )


def round_deaths(last: dict[str, Any], viewer: int | None) -> list[str]:
    """Who died in the round ``last``, and how: ``died drinking: seat 1 (you)``
    (only when anyone did), then ``died at the reveal: seat 2``. A seat that
    drank is not turned over at the reveal, so the split is public."""
    revealed = set(last["revealed"])
    drinking = [s for s in last["died"] if s not in revealed]
    at_reveal = [s for s in last["died"] if s in revealed]
    said = [_("died drinking: {seats}", seats=seat_names(drinking, viewer))] if drinking else []
    return [*said, _("died at the reveal: {seats}", seats=seat_names(at_reveal, viewer))]


def event_text(event: dict[str, Any], viewer: int | None) -> str:
    """One public event of the round in words."""
    who = seat_name(event["actor"], viewer)
    if event["kind"] == "drink":
        glass = contents(event["glass"])
        reversed_ = reversed_by_cheese(event["glass"], event["died"])
        if event["died"]:
            if reversed_:
                return _("{who} drinks {glass} and dies (cheese reverses it)", who=who, glass=glass)
            return _("{who} drinks {glass} and dies", who=who, glass=glass)
        if reversed_:
            return _("{who} drinks {glass} and lives (cheese reverses it)", who=who, glass=glass)
        return _("{who} drinks {glass} and lives", who=who, glass=glass)
    if event["kind"] == "swap":
        return _("{who} swaps glasses with seat {seat}", who=who, seat=event["with"])
    return _("{who} steals the cheese of seat {seat}", who=who, seat=event["from"])


class InVinoMorteView(GameView):
    """The table round by round: glasses face down unless you dealt them."""

    def board(self, obs: Observation, viewer: int | None, width: int = BOARD_WIDTH) -> Text:
        """Each seat's glass as a letter ([W] wine, [P] poison, [?] covered)."""
        out = Text()
        deck = obs["deck"]
        out.append(
            _(
                "Round {round}, dealer seat {dealer}; deck {wine} wine + {poison} poison",
                round=obs["round"],
                dealer=obs["dealer"],
                wine=deck["wine"],
                poison=deck["poison"],
            )
            + ("\n" + _("Caseus Vitae (cheese) in play") if obs["cheese_rule"] else "")
            + "\n\n"
        )
        for seat in range(obs["players"]):
            alive = obs["alive"][seat]
            pointer = "▶ " if obs["to_move"] == seat else "  "
            out.append(pointer, style="bold")
            # Columns as narrow as the names allow ("seat 0 (you)", nine seats at
            # most): a row with its cheese fits the board at 80 columns.
            out.append(f"{seat_name(seat, viewer):<12}", style=YOU if seat == viewer else "")
            out.append(
                " D " if seat == obs["dealer"] and obs["phase"] != "over" else "   ",
                style="bold cyan",
            )
            # A row holds at most 48 columns, so it never wraps at the
            # board's 49: "alive" goes without saying (the dead are marked),
            # the cheese and the turn are one short word each.
            if not alive:
                out.append("✝ " + _("dead"), style="dim strike")
                out.append("\n")
                continue
            mark, style, word = GLASSES[obs["glasses"][seat]]
            out.append(_("glass") + " [")
            out.append(mark, style=style)
            out.append(f"] {_(word)}" if word else "]")
            if obs["cheese"][seat]:
                out.append(" " + _("cheese"), style="bold yellow")
            drunk = obs.get("drunk")
            if drunk and drunk[seat]:
                out.append(" " + _("drank"), style="dim")
            elif obs["turn_taken"][seat]:
                out.append(" " + _("played"), style="dim")
            out.append("\n")
        out.append("\n" + _("D dealer  W wine  P poison  ? face down  ✝ dead") + "\n")
        if obs["events"]:
            out.append("\n" + _("This round:") + "\n", style="bold")
            for event in obs["events"]:
                out.append(f"  {event_text(event, viewer)}\n")
        last = obs.get("last_round")
        if last:
            shown = round_glasses(last, viewer, last["revealed"])
            said = _(
                "Round {round} reveal: {glasses}",
                round=last["round"],
                glasses=shown or _("nothing"),
            )
            out.append(f"\n{said}\n")
            # Those who died drinking apart from those the reveal killed: the
            # round's dead together read as if the reveal killed them all.
            for line in round_deaths(last, viewer):
                out.append(f"  {line}\n")
        return fit(out, width)

    def turn_status(self, obs: Observation, viewer: int | None) -> str:
        """Who deals or acts (the app adds examples legal in the position)."""
        mover = obs["to_move"]
        if obs["phase"] == "deal":
            return _("{seat} deals the glasses, one a move", seat=seat_name(mover, viewer))
        if obs["cheese_rule"]:
            return _(
                "{seat} drinks, swaps glasses with a seat, or steals a cheese",
                seat=seat_name(mover, viewer),
            )
        return _("{seat} drinks, or swaps glasses with a seat", seat=seat_name(mover, viewer))

    def summary(self, before: Observation, after: Observation, viewer: int | None) -> str | None:
        """The end of a round (every glass turned over, who died, the cheese
        where it decided), and the viewer's own death, which the others play
        on after unless it ended the game."""
        lines = []
        last: dict[str, Any] | None = after.get("last_round")
        if last == before.get("last_round"):
            last = None  # no round ended with this action
        if viewer is not None and before["alive"][viewer] and not after["alive"][viewer]:
            drank = [e for e in after["events"] if e["kind"] == "drink" and e["actor"] == viewer]
            glass = drank[0]["glass"] if drank else None
            if last:
                glass = last["glasses"][viewer]
            cause = _("your glass held poison")
            if glass == "wine":
                cause = _("your glass held wine, and the cheese you held reversed it")
            on = " " + _("The others play on without you.") if after.get("outcome") is None else ""
            lines.append(_("You died: {cause}.", cause=cause) + on)
        if last:
            seats = [s for s in range(len(last["glasses"])) if last["glasses"][s] is not None]
            deaths = "; ".join(round_deaths(last, viewer))
            lines.append(
                _(
                    "Round {round} is over. The glasses turned over: {glasses}.",
                    round=last["round"],
                    glasses=round_glasses(last, viewer, seats) or _("none"),
                )
                + f" {deaths[:1].upper()}{deaths[1:]}. "
                + _n("{count} player alive.", "{count} players alive.", sum(after["alive"]))
            )
        return " ".join(lines) or None

    def why_illegal(self, obs: Observation, text: str) -> str | None:
        """The cheese a deal may not add, and the steals the rules forbid, in
        the rules' words; only from what the mover's observation shows."""
        move = " ".join(text.lower().split())
        if obs["phase"] == "deal" and move.endswith(("cheese", "c")):
            if not obs["cheese_rule"]:
                return _("Caseus Vitae (cheese) is not in play in this game")
            players = len(obs["deal_order"])
            limit = obs["cheese_limit"]
            if not limit:
                return _("a round of {players} players gets no cheese", players=players)
            if sum(obs["cheese"]) >= limit:
                return _n(
                    "a round of {players} players gets at most {count} cheese, all dealt already",
                    "a round of {players} players gets at most {count} cheeses, all dealt already",
                    limit,
                    players=players,
                )
        if obs["phase"] == "turns" and move.startswith(("steal", "c")):
            mover = obs["to_move"]
            if not obs["cheese_rule"]:
                return _("Caseus Vitae (cheese) is not in play in this game")
            if obs["cheese"][mover]:
                return _("you hold a cheese already, and nobody may hold two")
            seat = move.split()[-1].lstrip("c")
            if seat.isdigit() and int(seat) < obs["players"]:
                if int(seat) == mover:
                    return _("you cannot steal from yourself")
                if not obs["alive"][int(seat)]:
                    return _("seat {seat} is dead, and their cheese is out of play", seat=seat)
                if not obs["cheese"][int(seat)]:
                    return _("seat {seat} holds no cheese", seat=seat)
        return None

    def scores(self, obs: Observation) -> list[str]:
        """Alive or dead per seat (the win is the last one standing)."""
        outcome = obs.get("outcome")
        if outcome is not None:
            return [_("won") if score else _("lost") for score in outcome["scores"]]
        return [_("alive") if alive else _("dead") for alive in obs["alive"]]
