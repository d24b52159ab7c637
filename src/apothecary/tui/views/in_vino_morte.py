"""In Vino Morte: one line per seat with its glass, cheese and fate."""

from __future__ import annotations

from typing import Any

from rich.text import Text

from apothecary.tui.views.base import YOU, GameView, Observation, plural, seat_name

# The letter carries the meaning; the colour only helps.
GLASSES: dict[str | None, tuple[str, str, str]] = {
    "wine": ("W", "bold green", "wine"),
    "poison": ("P", "bold red", "POISON"),
    "covered": ("?", "bold", "covered"),
    None: ("-", "dim", ""),
}


def event_text(event: dict[str, Any], viewer: int | None) -> str:
    """One public event of the round in words."""
    who = seat_name(event["seat"], viewer)
    if event["act"] == "drink":
        fate = "and dies" if event["died"] else "and lives"
        return f"{who} drinks {event['glass']} {fate}"
    if event["act"] == "swap":
        return f"{who} swaps glasses with seat {event['with']}"
    return f"{who} steals the cheese of seat {event['from']}"


class InVinoMorteView(GameView):
    """The table round by round: glasses face down unless you dealt them."""

    def board(self, obs: Observation, viewer: int | None) -> Text:
        """Each seat's glass as a letter ([W] wine, [P] poison, [?] covered)."""
        out = Text()
        deck = obs["deck"]
        out.append(
            f"Round {obs['round']}, dealer seat {obs['dealer']}; deck {deck['wine']} wine + "
            f"{deck['poison']} poison"
            + (", Caseus Vitae (cheese) in play" if obs["cheese_rule"] else "")
            + "\n\n"
        )
        for seat in range(obs["players"]):
            alive = obs["alive"][seat]
            pointer = "▶ " if obs["to_move"] == seat else "  "
            out.append(pointer, style="bold")
            out.append(f"{seat_name(seat, viewer):<13}", style=YOU if seat == viewer else "")
            out.append(
                " D " if seat == obs["dealer"] and obs["phase"] != "over" else "   ",
                style="bold cyan",
            )
            out.append("alive " if alive else "✝ dead", style="" if alive else "dim strike")
            mark, style, word = GLASSES[obs["glasses"][seat]]
            out.append("  glass [")
            out.append(mark, style=style)
            out.append(f"] {word:<8}")
            drunk = obs.get("drunk")
            if drunk and drunk[seat]:
                out.append(" (drunk)", style="dim")
            if obs["cheese"][seat]:
                out.append(" +C cheese", style="bold yellow")
            if obs["turn_taken"][seat]:
                out.append("  (has played)", style="dim")
            out.append("\n")
        out.append("\nD dealer  W wine  P poison  ? face down  C cheese  ✝ dead\n")
        if obs["events"]:
            out.append("\nThis round:\n", style="bold")
            for event in obs["events"]:
                out.append(f"  {event_text(event, viewer)}\n")
        last = obs.get("last_round")
        if last:
            shown = ", ".join(f"seat {s} {last['glasses'][s]}" for s in last["revealed"])
            died = ", ".join(str(s) for s in last["died"]) or "nobody"
            out.append(f"\nRound {last['round']} reveal: {shown or 'nothing'}; died: {died}\n")
        return out

    def turn_status(self, obs: Observation, viewer: int | None) -> str:
        """Who deals or acts (the app adds examples legal in the position)."""
        mover = obs["to_move"]
        if obs["phase"] == "deal":
            return f"{seat_name(mover, viewer)} deals the glasses, one a move"
        steal = ", or steal a cheese" if obs["cheese_rule"] else ""
        return f"{seat_name(mover, viewer)} drinks, or swaps glasses with a seat{steal}"

    def summary(self, before: Observation, after: Observation, viewer: int | None) -> str | None:
        """The end of a round (every glass turned over, who died), and the
        viewer's own death, which the others play on after."""
        lines = []
        if viewer is not None and before["alive"][viewer] and not after["alive"][viewer]:
            lines.append("You died: your glass held poison. The others play on without you.")
        last = after.get("last_round")
        if last and last != before.get("last_round"):
            glasses = ", ".join(
                f"{seat_name(s, viewer)} {last['glasses'][s]}"
                for s in range(len(last["glasses"]))
                if last["glasses"][s] is not None
            )
            died = ", ".join(seat_name(s, viewer) for s in last["died"]) or "nobody"
            lines.append(
                f"Round {last['round']} is over. The glasses turned over: {glasses or 'none'}. "
                f"Died: {died}. {plural(sum(after['alive']), 'player')} alive."
            )
        return " ".join(lines) or None

    def scores(self, obs: Observation) -> list[str]:
        """Alive or dead per seat (the win is the last one standing)."""
        outcome = obs.get("outcome")
        if outcome is not None:
            return ["won" if score else "lost" for score in outcome["scores"]]
        return ["alive" if alive else "dead" for alive in obs["alive"]]
