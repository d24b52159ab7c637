"""Little Drop of Poison: the king and the peasants, the cards on each, your hand."""

from __future__ import annotations

from rich.text import Text

from apothecary.tui.views.base import YOU, GameView, Observation, seat_name

COLOUR_STYLES = {"b": "bold blue", "g": "bold green", "p": "bold magenta", "u": "bold"}
"""Cards are written in their notation (``b2`` two blue drops, ``g!`` green
antidote); the first letter picks a colour, but the code alone is enough."""

KIND_MARKS = {"rat": "R rat", "weasel": "W weasel", None: "? unknown"}


def cards(out: Text, counts: dict[str, int]) -> None:
    """Append cards as codes (``b1 b1 g+p1``) in their colour, or ``nothing``."""
    if not counts:
        out.append("nothing", style="dim")
        return
    first = True
    for code, count in counts.items():
        for _ in range(count):
            if not first:
                out.append(" ")
            out.append(code, style=COLOUR_STYLES.get(code[0], ""))
            first = False


class LittleDropOfPoisonView(GameView):
    """Face-down plays show as counts; your own as cards."""

    def board(self, obs: Observation, viewer: int | None) -> Text:
        """The king, then a line per seat with its peasant, score and cards."""
        out = Text()
        out.append(
            f"Assassination round {obs['assassination_round']}, poison round "
            f"{obs['poison_round']}, starting seat {obs['starting_seat']}; "
            f"first to {obs['target']} points\n\n"
        )
        table = obs["table"]
        king = table["king"]
        out.append("♛ King: ", style="bold")
        out.append(KIND_MARKS.get(obs["king"], "?"))
        out.append("" if obs["king_alive"] else " ✝ dead", style="dim")
        out.append(f" (dies at {obs['king_lethal']} drops of a colour)\n   on it: ")
        cards(out, king["cards"])
        if king["blocked"]:
            out.append(f"  [antidote: {', '.join(king['blocked'])}]")
        out.append("\n\n")
        out.append(f"Peasants (die at {obs['peasant_lethal']} drops of a colour):\n", style="bold")
        for info in obs["seats"]:
            seat = info["seat"]
            pointer = "▶ " if obs["to_move"] == seat else "  "
            out.append(pointer, style="bold")
            out.append(f"{seat_name(seat, viewer):<13}", style=YOU if seat == viewer else "")
            out.append(f" {KIND_MARKS.get(info['kind'], '?'):<9}")
            out.append("" if info["alive"] else " ✝ dead", style="dim")
            out.append(f"  {info['score']} pts (+{info['round_points']} this round)")
            out.append(f"\n     {info['hand']} in hand")
            if info["played_on"] is not None:
                out.append(f", played {info['played']} on {info['played_on']}")
            here = table[str(seat)]
            out.append("; on it: ")
            cards(out, here["cards"])
            if here["blocked"]:
                out.append(f"  [antidote: {', '.join(here['blocked'])}]")
            out.append("\n")
        out.append(f"\nDeck {obs['deck']} cards face down; discard pile {obs['discard_count']}: ")
        cards(out, obs.get("discard") or {})
        out.append("\n")
        if "hand" in obs:
            out.append("Your hand: ", style="bold")
            cards(out, obs["hand"])
            if obs.get("my_play"):
                out.append("\nYour face-down play: ", style="bold")
                cards(out, obs["my_play"])
            out.append("\n")
        reveal = obs.get("last_reveal")
        if reveal:
            out.append(
                f"\nReveal of round {reveal['assassination_round']}.{reveal['poison_round']}:\n",
                style="bold",
            )
            for play in reveal["plays"]:
                out.append(f"  seat {play['seat']} on {play['on']}: ")
                cards(out, play["cards"])
                out.append("\n")
            deaths = ", ".join(
                f"{d['character']} (by {', '.join(map(str, d['killers'])) or 'nobody'})"
                for d in reveal["deaths"]
            )
            out.append(f"  died: {deaths or 'nobody'}; points {reveal['points']}\n")
        out.append(
            "\nbN N blue drops, gN green, pN purple, g+pN both, X! antidote of X, u! universal\n"
        )
        return out

    def turn_status(self, obs: Observation, viewer: int | None) -> str:
        """Who chooses a character, adds cards, or passes."""
        mover = obs["to_move"]
        if mover is None:
            return f"chance: dealing ({obs['phase']})"
        who = seat_name(mover, viewer)
        info = obs["seats"][mover]
        if info["played_on"] is None:
            return f"{who}: choose a character, 'on N' or 'on king' (or pass with no cards)"
        return f"{who}: add a card on {info['played_on']} (e.g. b1), or done"
