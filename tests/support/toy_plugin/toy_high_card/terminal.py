"""Toy high card in the terminal app: your card and the moves made."""

from __future__ import annotations

from rich.text import Text

from apothecary.tui.views.base import BOARD_WIDTH, GameView, Observation


class ToyView(GameView):
    """Shows the seat's card, the moves so far and, at the end, both cards."""

    def board(self, obs: Observation, viewer: int | None, width: int = BOARD_WIDTH) -> Text:
        """The table as text."""
        text = Text()
        text.append("Toy high card\n", style="bold")
        card = obs.get("my_card")
        text.append(f"your card: {'-' if card is None else card}\n")
        moves = obs.get("moves") or []
        text.append(f"moves: {', '.join(moves) if moves else 'none yet'}\n")
        if "cards" in obs:
            text.append(f"cards: {' and '.join(str(c) for c in obs['cards'])}\n")
        return text
