"""The Textual app: menu, setup, the game, hand-over, rules, save and result screens.

The game screen draws one seat at a time (the *viewer*) from that seat's
observation only. With several people at one keyboard (hot-seat), the view is
blanked and a hand-over screen covers the terminal before the next person's
view is drawn. Bots think on worker threads, on a copy of the state, so the
screen stays responsive; their moves come back to the UI thread to be played.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path
from typing import Any, ClassVar

from rich.cells import cell_len
from rich.text import Text
from textual import events, work
from textual.app import App, ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, ScrollableContainer, Vertical, VerticalScroll
from textual.screen import ModalScreen, Screen
from textual.suggester import SuggestFromList
from textual.widget import Widget
from textual.widgets import (
    Button,
    Footer,
    Input,
    Label,
    Markdown,
    OptionList,
    RichLog,
    Select,
    Static,
    Switch,
)
from textual.widgets.option_list import Option

from apothecary.bots import split_specs
from apothecary.cli_common import without_action_ids
from apothecary.core.bot import Bot
from apothecary.core.errors import ApothecaryError, BadOptionError, MalformedActionError
from apothecary.core.game import CHANCE, Action, State
from apothecary.core.registry import game_class, games, load
from apothecary.core.words import read as read_words
from apothecary.tui import learn
from apothecary.tui.session import DEFAULT_BOT, HUMAN, Session, Viewer, marking, plan_seats
from apothecary.tui.views.base import BOARD_WIDTH

LOG_LINES_SHOWN = 400
"""The side panel keeps the latest lines; a saved record has them all."""

MIN_SIZE = (80, 24)
"""The smallest window (columns, rows) that keeps the hand, the status and the
move field in sight; below it the game screen says how big it must be."""

SECRETS_WARNING = (
    "This record holds every seat's secrets (hands, glasses, doses): "
    "do not let the other players read it before the game is over."
)


def default_save_path(session: Session) -> Path:
    """``GAME-YYYYmmdd-HHMMSS.json`` in the current folder."""
    return Path(f"{session.game.name}-{time.strftime('%Y%m%d-%H%M%S')}.json")


TYPE_HINT = "type a move (→ completes, Enter plays; Esc: list)"
"""The notation field's placeholder on the player's turn; short enough to be
read whole in the field at 80 columns."""

NOT_YOUR_TURN = "Not your turn yet"
"""How the message for a move typed ahead begins (the app replaces it when
the turn comes)."""


class NotationInput(Input):
    """The notation field: it takes every printable key except ``?``, which no
    game's notation uses, so that ``?`` opens the rules even while typing."""

    def check_consume_key(self, key: str, character: str | None) -> bool:
        """Leave ``?`` to the screen's binding."""
        return character != "?" and super().check_consume_key(key, character)


class ActionList(OptionList):
    """The list of legal moves. Nothing is highlighted until the player moves
    through it, so a stray Enter plays nothing; a printable key goes to the
    notation field, so a move typed while the list has focus is never lost."""

    def on_key(self, event: events.Key) -> None:
        """Hand typed characters to the notation field."""
        if event.is_printable and event.character not in (None, "?", " "):
            event.stop()
            event.prevent_default()
            entry = self.screen.query_one("#entry", Input)
            entry.focus()
            replace_or_insert(entry, event.character)


class GameLog(RichLog):
    """The log panel. A RichLog wraps a line once, as it is written; this one
    keeps its lines and wraps them again when its width changes (a resized
    window left them at the old width, cut or half-empty)."""

    def __init__(self, *, id: str) -> None:
        super().__init__(id=id, wrap=True, min_width=16, max_lines=LOG_LINES_SHOWN)
        self._texts: list[str] = []
        self._wrapped_at = 0

    def add(self, text: str) -> None:
        """Write ``text`` as a line of the log (the oldest go past the limit)."""
        self._texts = [*self._texts, text][-LOG_LINES_SHOWN:]
        self.write(text)

    def clear(self) -> GameLog:
        """Empty the log."""
        self._texts = []
        super().clear()
        return self

    def on_resize(self, event: events.Resize) -> None:
        """Wrap the lines again at the new width (RichLog's own handler, run
        after this one, writes what came before the first size was known)."""
        width = event.size.width
        if self._wrapped_at and width and width != self._wrapped_at:
            texts = self._texts
            self.clear()
            for text in texts:
                self.add(text)
        if width:
            self._wrapped_at = width


def replace_or_insert(entry: Input, text: str) -> None:
    """Type ``text`` into ``entry`` as a key would: over the selected text (a
    refused move is left selected), else at the cursor."""
    start, end = entry.selection
    if start != end:
        entry.replace(text, min(start, end), max(start, end))
    else:
        entry.insert_text_at_cursor(text)


class ConfirmScreen(ModalScreen[bool]):
    """Ask before a move that cannot be taken back; only ``y`` (or the Yes
    button) says yes, so a second Enter does not confirm by accident."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("y", "answer(True)", "Yes"),
        Binding("n", "answer(False)", "No"),
        Binding("escape", "answer(False)", "No", show=False),
    ]

    def __init__(self, question: str) -> None:
        super().__init__()
        self.question = question

    def compose(self) -> ComposeResult:
        """The question and two buttons, No focused."""
        with Vertical(id="confirm-box"):
            yield Static(Text(self.question, style="bold"), id="confirm-text")
            with Horizontal(id="confirm-buttons"):
                yield Button("No (n)", id="no", variant="primary")
                yield Button("Yes (y)", id="yes", variant="warning")

    def on_mount(self) -> None:
        """No is the default."""
        self.query_one("#no", Button).focus()

    def on_button_pressed(self, event: Button.Pressed) -> None:
        """The buttons answer as their keys do."""
        event.stop()
        self.dismiss(event.button.id == "yes")

    def action_answer(self, yes: bool) -> None:
        """Close with the answer."""
        self.dismiss(yes)


class SummaryScreen(ModalScreen[None]):
    """A pause on what just happened to the viewer (a round's end, a death,
    a reveal) before the bots play on."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("enter", "close", "Go on"),
        Binding("space", "close", "Go on", show=False),
        Binding("escape", "close", "Go on", show=False),
    ]

    def __init__(self, text: str) -> None:
        super().__init__()
        self.text = text

    def compose(self) -> ComposeResult:
        """The news and how to go on."""
        with VerticalScroll(id="summary-box"):
            yield Static(self.text, id="summary-text")
            yield Static(Text("Enter: go on", style="dim"))

    def action_close(self) -> None:
        """Back to the game, which carries on."""
        self.dismiss(None)


class RulesScreen(ModalScreen[None]):
    """The game's rules page, over the game; any of escape, q or ? closes it."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "close", "Close"),
        Binding("q", "close", "Close", show=False),
        Binding("question_mark", "close", "Close", show=False),
    ]

    def __init__(self, game_name: str) -> None:
        super().__init__()
        self.game_name = game_name

    def compose(self) -> ComposeResult:
        """The page in a scrolling box."""
        cls = game_class(self.game_name)
        page = cls.rules_page() or f"# {cls.info.title}\n\n{cls.info.summary}\n"
        with VerticalScroll(id="rules-box"):
            yield Markdown(page, id="rules")
        yield Footer()

    def action_close(self) -> None:
        """Back to the game."""
        self.dismiss(None)


class SaveScreen(ModalScreen[Path | None]):
    """Ask where to write the record; a path that cannot be written is said in place."""

    BINDINGS: ClassVar[list[BindingType]] = [Binding("escape", "cancel", "Cancel")]

    def __init__(self, session: Session, suggested: Path) -> None:
        super().__init__()
        self.session = session
        self.suggested = suggested

    def compose(self) -> ComposeResult:
        """A path field and a line for errors."""
        with Vertical(id="save-box"):
            # A Static wraps where a Label would be cut (the box is narrow at 80 columns).
            yield Static("Save a record of the game (Enter saves, Esc cancels):", id="save-title")
            if not self.session.is_over():
                yield Static(Text(SECRETS_WARNING, style="bold yellow"), id="save-warning")
            yield Input(str(self.suggested), id="save-path")
            yield Static("", id="save-error", classes="error")

    def on_input_submitted(self, event: Input.Submitted) -> None:
        """Write the record, or say why it could not be written."""
        event.stop()
        text = event.value.strip()
        if not text:
            self.query_one("#save-error", Static).update("Give a file name.")
            return
        try:
            path = self.session.save(text)
        except OSError as error:
            self.query_one("#save-error", Static).update(
                f"Cannot write {text}: {error.strerror or error}"
            )
            return
        self.dismiss(path)

    def action_cancel(self) -> None:
        """Close without saving."""
        self.dismiss(None)


class HandOverScreen(Screen[None]):
    """Covers the whole terminal between two people's turns at one keyboard."""

    BINDINGS: ClassVar[list[BindingType]] = [Binding("enter", "ready", "I am ready")]

    def __init__(self, seat: int, title: str, news: bool = False) -> None:
        super().__init__()
        self.seat = seat
        self.title_text = title
        self.news = news
        """Whether the seat is called to read news of the game, not to play."""

    def compose(self) -> ComposeResult:
        """Only the name of the seat called and why; nothing of anyone's view."""
        why = (
            f"Seat {self.seat} has news of the game to read (it is not their turn).\n\n"
            if self.news
            else ""
        )
        with Vertical(id="handover-box"):
            yield Static(
                f"{self.title_text}\n\nPass the keyboard to seat {self.seat}.\n\n{why}"
                f"Seat {self.seat}: press Enter when the others are not looking.",
                id="handover-text",
            )
            yield Button(f"Show seat {self.seat}'s view", id="ready", variant="primary")

    def on_button_pressed(self, event: Button.Pressed) -> None:
        """The button does what Enter does."""
        self.action_ready()

    def action_ready(self) -> None:
        """Reveal the next seat's view."""
        self.dismiss(None)


class ResultScreen(Screen[None]):
    """The end: how it ended, who won and lost, every round, the final table and
    the whole log; then play again, back to the menu, or save the record."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("n", "again", "Play again"),
        Binding("m", "menu", "Menu"),
        Binding("ctrl+s", "save", "Save record"),
        Binding("question_mark", "rules", "Rules"),
        Binding("q", "app.quit", "Quit"),
    ]
    # Not a button: an Enter meant for the last move must not start a new game.
    AUTO_FOCUS = "#result-main"
    GRACE_SECONDS = 1.5
    """Keys are ignored this long after the result appears: a move typed ahead
    as the game ended (``drink`` holds an ``n``) must not choose for the player."""

    def __init__(
        self, session: Session, viewer: Viewer, save_path: Path | None, bot_delay: float = 0.5
    ) -> None:
        super().__init__()
        self.session = session
        self.viewer = viewer
        self.save_path = save_path
        self.bot_delay = bot_delay

    def compose(self) -> ComposeResult:
        """Outcome first, then the rounds, the board and log as the viewer may see them."""
        session = self.session
        outcome = session.state.outcome()
        assert outcome is not None
        obs = session.state.observation(self.viewer)
        scores = session.view.scores(obs)
        lines = Text()
        coach = session.coach()
        if coach is not None:
            lines.append(learn.text("done_title") + "\n", style="bold green")
            lines.append(f"{coach['outro']}\n\n")
        lines.append("Game over\n", style="bold")
        lines.append(f"{outcome.reason}\n\n")
        for seat in range(session.game.num_players):
            won = seat in outcome.winners
            lines.append("★ won   " if won else "  lost  ", style="bold green" if won else "")
            lines.append(f"{session.seat_label(seat)}")
            # A score that only repeats won/lost (the last one standing) is not shown.
            if seat < len(scores) and scores[seat] not in ("won", "lost"):
                lines.append(f"  score {scores[seat]}")
            lines.append("\n")
        rounds = session.summaries(self.viewer)
        if rounds:
            lines.append("\nHow it went\n", style="bold")
            for summary in rounds:
                lines.append(f"• {summary}\n")
        if coach is not None:
            # A lesson's chance was its script: no seed to tell.
            lines.append("\n" + learn.text("done_keys") + "\n")
        else:
            lines.append(
                f"\nThe seed of chance was {session.seed}.\n"
                "n plays again (seats rotated), m goes to the menu, ctrl+s saves the record, "
                "q quits.\n"
            )
        with Horizontal():
            with ScrollableContainer(id="result-main"):
                yield Static(lines, id="result")
                with Horizontal(id="result-buttons"):
                    # Short labels (the footer has the long names): all three
                    # stay whole beside the log at 80 columns.
                    again = "Play again (n)" if coach is None else learn.text("real_game")
                    yield Button(again, id="again", variant="primary")
                    yield Button("Menu (m)", id="menu")
                    yield Button("Save (^s)", id="save")
                yield Static(session.view.board(obs, self.viewer), id="result-board")
            with VerticalScroll(id="result-log"):
                yield Static("\n".join(session.log_lines(self.viewer)), id="result-log-text")
        yield Footer()

    def on_mount(self) -> None:
        """Note when the screen appeared, for the grace period."""
        self._shown = time.monotonic()

    def on_key(self, event: events.Key) -> None:
        """Swallow the keys of the grace period."""
        if time.monotonic() - self._shown < self.GRACE_SECONDS:
            event.stop()
            event.prevent_default()

    def on_button_pressed(self, event: Button.Pressed) -> None:
        """Each button does what its key does."""
        event.stop()
        {"again": self.action_again, "menu": self.action_menu, "save": self.action_save}[
            str(event.button.id)
        ]()

    def action_again(self) -> None:
        """The same settings again, every name one seat on, with a new seed;
        after a lesson, a real game against easy bots."""
        game = GameScreen(self.session.again(), None, self.bot_delay)
        self.app.pop_screen()
        self.app.switch_screen(game)

    def action_menu(self) -> None:
        """Back to the list of games."""
        app = self.app
        while len(app.screen_stack) > 2:
            app.pop_screen()
        app.switch_screen(MenuScreen(None, self.bot_delay))

    def action_save(self) -> None:
        """Ask where to save the record."""
        suggested = self.save_path or default_save_path(self.session)
        self.app.push_screen(SaveScreen(self.session, suggested), self._saved)

    def _saved(self, path: Path | None) -> None:
        if path is not None:
            self.notify(f"Saved to {path}")

    def action_rules(self) -> None:
        """Show the rules page."""
        self.app.push_screen(RulesScreen(self.session.game.name))


class GameScreen(Screen[None]):
    """The table as the viewing seat sees it, the actions, the log and scores."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("question_mark", "rules", "Rules", priority=True),
        # Short names: the whole footer, ^q Quit with it, fits in 80 columns.
        Binding("ctrl+s", "save", "Save", priority=True),
        Binding("escape", "focus_actions", "Move list"),
        Binding("f2", "focus_entry", "Type a move"),
    ]

    def __init__(self, session: Session, save_path: Path | None, bot_delay: float) -> None:
        super().__init__()
        self.session = session
        self.save_path = save_path
        self.bot_delay = bot_delay
        # With one person the view is always theirs; with several it starts
        # hidden, and the first hand-over reveals it.
        self.viewer: Viewer = session.humans[0] if len(session.humans) == 1 else None
        self.hidden = len(session.humans) != 1
        self._token = 0
        # The log widget only appends; this says for whom and how far it is written.
        self._log_for: tuple[Viewer, int] | None = None
        self._quit_asked = False
        # A "not your turn yet" message is up: replaced when the turn comes.
        self._ahead = False
        # How far each viewer's milestones were shown (a resumed game's past is not news).
        self._told: dict[Viewer, int] = dict.fromkeys(session.viewers(), len(session.log))
        # In a lesson: the coach's explanation of the last wrong move (None: none).
        self._wrong: str | None = None

    # -- layout ---------------------------------------------------------------------

    def compose(self) -> ComposeResult:
        """Board and actions on the left; seats, scores and the log on the right."""
        yield Static("", id="too-small")
        with Horizontal(id="table"):
            with Vertical(id="main"):
                yield Static("", id="status")
                with ScrollableContainer(id="board-scroll"):
                    yield Static("", id="board")
                yield Static("", id="pinned")
                yield Static("", id="error", classes="error")
                yield NotationInput(placeholder=TYPE_HINT, id="entry")
                yield ActionList(id="actions")
            with Vertical(id="side"):
                if self.session.script is not None:
                    yield Static("", id="coach")
                yield Static("", id="seats")
                yield GameLog(id="log")
        yield Footer()

    def on_mount(self) -> None:
        """Start playing: chance first, then whoever is to move."""
        self.query_one("#entry", Input).focus()
        self._fit(self.app.size.width, self.app.size.height)
        script = self.session.script
        if script is not None and not self.session.log:
            # A lesson opens on what it is about; the first step waits for Enter.
            intro = f"{script.intro}\n\n{learn.text('intro_go_on')}"
            self.app.push_screen(SummaryScreen(intro), lambda _: self.advance())
        else:
            self.advance()
        self.call_after_refresh(self._redraw_board)  # now the board's width is known

    def on_resize(self, event: events.Resize) -> None:
        """Say so when the window is too small to keep the essentials in sight;
        draw the board again for its new width once the layout has it."""
        self._fit(event.size.width, event.size.height)
        self.call_after_refresh(self._redraw_board)

    def _board_width(self) -> int:
        """The columns the board has: its pane's width once laid out, never
        less than what the smallest window keeps (the views' default)."""
        scroll = self.query_one("#board-scroll", ScrollableContainer)
        width = scroll.scrollable_content_region.width
        if not scroll.show_vertical_scrollbar:  # a long board brings one: leave it room
            width -= scroll.styles.scrollbar_size_vertical
        return max(BOARD_WIDTH, width)

    def _redraw_board(self) -> None:
        if self.hidden or not self.is_mounted:
            return
        viewer = self.viewer
        obs = self.session.state.observation(viewer)
        self.query_one("#board", Static).update(self._board_text(obs))

    def _board_text(self, obs: dict[str, Any]) -> Text:
        """The board for the viewer, the coach's part highlighted in a lesson."""
        board = self.session.view.board(obs, self.viewer, self._board_width())
        return learn.point_at(board, self.session.view, self._pointed(), self.viewer)

    def _pointed(self) -> str:
        """The table part the coach points at now ("" outside a lesson)."""
        coach = self.session.coach()
        if coach is None:
            return ""
        return learn.pointed_part(
            coach, learn.since_your_move(coach, self._actors(), coach["seat"])
        )

    def _actors(self) -> list[int]:
        return [entry.actor for entry in self.session.log]

    def _draw_coach(self) -> None:
        """The coach panel, and the widgets it points at (the hand, the moves)."""
        coach = self.session.coach()
        if coach is None:
            return
        view = self.session.view
        self.query_one("#coach", Static).update(
            learn.panel(coach, self._actors(), view, self.viewer, self._wrong)
        )
        part = self._pointed()
        self.query_one("#pinned", Static).set_class(part == "hand", "pointed")
        self.query_one("#actions", OptionList).set_class(part == "moves", "pointed")

    def _fit(self, width: int, height: int) -> None:
        small = width < MIN_SIZE[0] or height < MIN_SIZE[1]
        self.set_class(small, "too-small")
        if small:
            self.query_one("#too-small", Static).update(
                f"The window is {width}×{height}; this game needs at least "
                f"{MIN_SIZE[0]}×{MIN_SIZE[1]}.\nMake the window (or the terminal) larger; "
                "the game goes on where it was."
            )

    # -- drawing ---------------------------------------------------------------------

    def show(self) -> None:
        """Draw everything as the viewer sees it (or nothing while hidden)."""
        session = self.session
        status = self.query_one("#status", Static)
        board = self.query_one("#board", Static)
        seats = self.query_one("#seats", Static)
        log = self.query_one("#log", GameLog)
        pinned = self.query_one("#pinned", Static)
        if self.hidden:
            status.update("Hand-over: the view is hidden")
            board.update("")
            pinned.update("")
            seats.update("")
            log.clear()
            self._log_for = None
            self._offer([])
            return
        viewer = self.viewer
        obs = session.state.observation(viewer)
        title = session.game.info.title
        you = f"you are seat {viewer}" if viewer is not None else "spectator"
        mover = session.to_move()
        line = f"{title} — {you} — {session.view.status(obs, viewer)}"
        if viewer is not None and mover == viewer and not session.is_over():
            line += f"; e.g. {', '.join(self._examples())}"
        status.update(Text(line, style="bold"))
        board.update(self._board_text(obs))
        self._draw_coach()
        pinned.update(session.view.pinned(obs, viewer) or "")
        seats.update(self._seats_text(obs))
        written = 0
        if self._log_for is not None and self._log_for[0] == viewer:
            written = self._log_for[1]
        else:
            log.clear()
        for entry in session.log[written:][-LOG_LINES_SHOWN:]:
            log.add(entry.line(viewer))
        self._log_for = (viewer, len(session.log))
        if viewer is not None and mover == viewer and not session.is_over():
            self._offer(session.state.legal_actions())
            if self._ahead:
                self._turn_came()
        else:
            self._offer([])

    def _turn_came(self) -> None:
        """Replace "not your turn yet" now that it is: say what Enter will play."""
        self._ahead = False
        typed = self.query_one("#entry", Input).value.strip()
        self.query_one("#error", Static).update(
            Text(f"Your turn now: Enter plays “{typed}”.", style="bold green") if typed else ""
        )

    def _seats_text(self, obs: dict[str, Any]) -> Text:
        session = self.session
        scores = session.view.scores(obs)
        out = Text()
        out.append("Seats and scores\n", style="bold underline")
        mover = session.to_move()
        # The panel's width once laid out (0 before): a seat whose score does not
        # fit beside its name gets it on a line of its own, indented under the
        # name, rather than wrapped anywhere ("... 0" then "scones" alone).
        width = self.query_one("#seats", Static).content_size.width
        for seat in range(session.game.num_players):
            label = session.seat_label(seat)
            out.append("▶ " if seat == mover else "  ", style="bold")
            out.append(label, style="bold reverse" if seat == self.viewer else "")
            if seat < len(scores):
                score = str(scores[seat])
                fits = not width or cell_len(f"  {label}  {score}") <= width
                out.append(f"  {score}" if fits else f"\n    {score}")
            out.append("\n")
        # No seed here: from it a player could work out what chance dealt the others.
        out.append("\nLog\n", style="bold underline")
        return out

    def _offer(self, actions: list[Action]) -> None:
        """Fill the list and the completion with ``actions`` (none: not your turn).

        The notation field stays open either way, so a move typed while the bots
        play is kept (Enter then says whose turn it is); the list highlights
        nothing, so only a chosen line plays, and moves that cannot be taken
        back come last."""
        state = self.session.state
        listing = self.query_one("#actions", OptionList)
        entry = self.query_one("#entry", Input)
        listing.clear_options()
        if actions:
            obs = state.observation(self.viewer)
            notations = {a: state.action_to_string(a) for a in actions}
            ordered = sorted(
                actions, key=lambda a: self.session.view.confirm(obs, notations[a]) is not None
            )
            listing.add_options(
                [Option(self._line(obs, a, notations[a]), id=str(a)) for a in ordered]
            )
            listing.highlighted = None
            listing.disabled = False
            entry.suggester = SuggestFromList(list(notations.values()), case_sensitive=False)
            entry.placeholder = TYPE_HINT
        else:
            listing.disabled = True
            entry.suggester = None
            mover = self.session.to_move()
            if self.session.is_over():
                entry.placeholder = ""
            elif self._sits_out():
                entry.placeholder = f"waiting for {self._mover_name(mover)}; you have no move now"
            else:
                entry.placeholder = f"waiting for {self._mover_name(mover)}; you may type ahead"
        if not (entry.has_focus or listing.has_focus):
            entry.focus()

    def _line(self, obs: dict[str, Any], action: Action, notation: str) -> Text:
        """A legal move as the list shows it: the game's words, the viewer's own
        seat marked, what the viewer's observation adds (a dose it has seen),
        then the notation that plays it."""
        words = self.session.state.action_words(action).runs()
        label = read_words(words, marking(self.viewer))
        note = self.session.view.action_note(obs, notation)
        if note is not None:
            label += f", {note}"
        line = Text(label)
        line.append(f"  ({notation})", style="dim")
        if self.session.script is not None and action == self.session.expected():
            line.append(f"  {learn.text('your_move')}", style="bold green")
        return line

    def _examples(self) -> list[str]:
        """Two moves legal now for the status line (reversible ones first)."""
        state = self.session.state
        obs = state.observation(self.viewer)
        notations = [state.action_to_string(a) for a in state.legal_actions()]
        safe = [n for n in notations if self.session.view.confirm(obs, n) is None]
        return (safe or notations)[:2]

    def _sits_out(self) -> bool:
        """Whether the viewer is out of play for now (a dead seat, until the
        next round in a game that has rounds), read off the observation's
        ``alive`` flags: then the field does not invite a move typed ahead."""
        viewer = self.viewer
        if viewer is None:
            return True
        obs = self.session.state.observation(viewer)
        alive = obs.get("alive")
        if isinstance(alive, list) and viewer < len(alive):
            return alive[viewer] is False
        seats = obs.get("seats")
        if isinstance(seats, list) and viewer < len(seats) and isinstance(seats[viewer], dict):
            return seats[viewer].get("alive") is False
        return False

    def _mover_name(self, mover: int) -> str:
        if mover == CHANCE:
            return "chance"
        return self.session.seat_label(mover)

    # -- the flow of play ------------------------------------------------------------

    def advance(self) -> None:
        """Play chance, then hand the turn to a bot, a hand-over, or the viewer;
        first, pause on any milestone the viewer has not been told of."""
        session = self.session
        while not session.is_over() and session.to_move() == CHANCE:
            session.play_chance()
        self._autosave()
        if session.is_over():
            self.hidden = False
            if len(session.humans) != 1:
                self.viewer = None  # hot-seat: the final table as anyone may see it
            self.show()
            self.app.push_screen(ResultScreen(session, self.viewer, self.save_path, self.bot_delay))
            return
        if self._tell(lambda: self.advance()):
            return
        mover = session.to_move()
        if session.is_human(mover):
            # Hot-seat: before anyone plays on, each other person with news
            # (a round's end, their death) reads it behind their own hand-over.
            told = self._someone_to_tell(mover)
            if told is not None:
                self._hand_over(told, self.advance, news=True)
                return
            if mover != self.viewer and len(session.humans) > 1:
                self._hand_over(mover, lambda: None)
                return
            self.viewer = mover
            self.show()
            return
        if len(session.humans) > 1:
            # Hot-seat: while bots move, show what anyone at the table may see,
            # so the last person's secrets do not stay on screen for the next.
            self.viewer = None
            self.hidden = False
        self.show()
        bot = session.bot_to_move()
        assert bot is not None
        self._token += 1
        self._think(self._token, bot, session.state.clone())

    def _tell(self, then: Any) -> bool:
        """Pause on the viewer's untold milestones, if any; ``then`` runs after."""
        viewer = self.viewer
        if viewer is None or self.hidden:
            return False
        news = self.session.summaries(viewer, self._told[viewer])
        self._told[viewer] = len(self.session.log)
        if not news:
            return False
        self.show()
        self.app.push_screen(SummaryScreen("\n\n".join(news)), lambda _: then())
        return True

    def _someone_to_tell(self, mover: int) -> int | None:
        """The first person other than ``mover`` with milestones not yet shown
        to them, in a hot-seat game (None: nobody). The mover is told after
        their own hand-over, so they are not handed the keyboard twice."""
        if len(self.session.humans) == 1:
            return None
        for seat in self.session.humans:
            if seat != mover and self.session.summaries(seat, self._told[seat]):
                return seat
        return None

    def _hand_over(self, seat: int, then: Callable[[], None], news: bool = False) -> None:
        """Hide the view and cover the terminal until ``seat`` is at the
        keyboard; then show their view and their news, and run ``then``."""
        self.hidden = True
        self.viewer = None
        self.show()
        self.query_one("#entry", Input).value = ""  # the last person's typing
        self.query_one("#error", Static).update("")  # and what was said to them
        self._ahead = False
        self.app.push_screen(
            HandOverScreen(seat, self.session.game.info.title, news=news),
            lambda _: self._reveal_to(seat, then),
        )

    def _reveal_to(self, seat: int, then: Callable[[], None]) -> None:
        self.viewer = seat
        self.hidden = False
        self.show()
        # What happened to this person since they last looked; then go on.
        if not self._tell(then):
            then()

    @work(thread=True, exclusive=True, group="bots")
    def _think(self, token: int, bot: Bot, state: State) -> None:
        """Ask the bot on a worker thread; play its choice on the UI thread."""
        started = time.monotonic()
        action = bot.step(state)
        # A short pause so a person can follow a run of bot moves.
        left = self.bot_delay - (time.monotonic() - started)
        if left > 0:
            time.sleep(left)
        self.app.call_from_thread(self._bot_moved, token, bot.seat, action)

    def _bot_moved(self, token: int, seat: int, action: Action) -> None:
        if token != self._token or not self.is_attached:
            return  # a stale answer (the screen moved on)
        self.session.play(seat, action)
        self.advance()

    def _human_plays(self, action: Action | str) -> None:
        error = self.query_one("#error", Static)
        viewer = self.viewer
        if viewer is None or self.hidden:
            return
        session = self.session
        entry = self.query_one("#entry", Input)
        mover = session.to_move()
        if mover != viewer or session.is_over():
            if not session.is_over():
                self._ahead = True
                error.update(
                    Text(
                        f"{NOT_YOUR_TURN}: {self._mover_name(mover)} is playing. Your move "
                        "stays in the field; press Enter again when it is your turn.",
                        style="bold yellow",
                    )
                )
                entry.select_all()  # typing it afresh replaces it, not appends
            return
        problem = self._refusal(action)
        if problem is None and session.script is not None:
            # A legal move that is not the lesson's: the coach says why; nothing is played.
            chosen = (
                session.state.string_to_action(action.strip())
                if isinstance(action, str)
                else action
            )
            self._wrong = session.judge(chosen)
            if self._wrong is not None:
                problem = learn.text("wrong", why=self._wrong)
                self._draw_coach()
        if problem is None:
            try:
                session.play(viewer, action)
            except ApothecaryError as refused:  # the game knows better: say its reason
                problem = without_action_ids(str(refused))
        if problem is not None:
            error.update(Text(f"✗ {problem}", style="bold red"))
            # The refused text stays to be read and mended, but selected: the
            # next move typed replaces it rather than being glued onto it.
            if isinstance(action, str):
                entry.focus()
                entry.select_all()
            return
        error.update("")
        entry.value = ""
        self._wrong = None
        self.advance()

    def _refusal(self, action: Action | str) -> str | None:
        """Why ``action`` cannot be played now, in the game's terms (no action
        ids), or None when it can."""
        state = self.session.state
        examples = ", ".join(self._examples())
        if isinstance(action, str):
            text = action.strip()
            try:
                action = state.string_to_action(text)
            except MalformedActionError:
                return (
                    f"“{text}” is not a move of {self.session.game.info.title}. "
                    f"Moves now are, e.g., {examples}; the list below has them all."
                )
        else:
            text = state.action_to_string(action)
        if action in state.legal_actions():
            return None
        obs = state.observation(self.viewer)
        reason = self.session.view.why_illegal(obs, text) or "it is not one of your moves now"
        return f"“{text}” cannot be played: {reason}. Moves now are, e.g., {examples}."

    def on_input_submitted(self, event: Input.Submitted) -> None:
        """Play the typed notation; a bad entry is explained and changes nothing."""
        event.stop()
        if event.value.strip():
            self._human_plays(event.value)

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        """Play the move picked from the list; one that cannot be taken back asks first."""
        event.stop()
        if event.option.id is None:
            return
        action = int(event.option.id)
        state = self.session.state
        question = self.session.view.confirm(
            state.observation(self.viewer), state.action_to_string(action)
        )
        if question is None:
            self._human_plays(action)
            return
        token = self.session.state.move_number()

        def answered(yes: bool | None) -> None:
            # Played only if the position is still the one the question was about.
            if yes and self.session.state.move_number() == token:
                self._human_plays(action)

        self.app.push_screen(ConfirmScreen(question), answered)

    def _autosave(self) -> None:
        if self.save_path is None:
            return
        try:
            self.session.save(self.save_path)
        except OSError as error:
            self.notify(f"Cannot save to {self.save_path}: {error.strerror}", severity="error")

    # -- keys --------------------------------------------------------------------------

    def action_rules(self) -> None:
        """Show the rules summary."""
        self.app.push_screen(RulesScreen(self.session.game.name))

    def action_save(self) -> None:
        """Save the game as a record (any time, even mid-turn)."""
        suggested = self.save_path or default_save_path(self.session)
        self.app.push_screen(SaveScreen(self.session, suggested), self._saved)

    def _saved(self, path: Path | None) -> None:
        if path is not None:
            self._quit_asked = True  # saved: quitting now loses nothing
            self.notify(
                f"Saved to {path}; resume with: apothecary play --resume {path}. " + SECRETS_WARNING
            )

    def may_quit(self) -> bool:
        """Whether quitting loses nothing: the game is over or kept in a file,
        or quitting was already asked for once (the second ctrl+q quits)."""
        if self.session.is_over() or self.save_path is not None or self._quit_asked:
            return True
        self._quit_asked = True
        return False

    def action_focus_actions(self) -> None:
        """Move to the list of legal actions."""
        listing = self.query_one("#actions", OptionList)
        if not listing.disabled:
            listing.focus()

    def action_focus_entry(self) -> None:
        """Move to the notation field."""
        self.query_one("#entry", Input).focus()


def switch_word(on: bool) -> str:
    """A switch's state in words."""
    return "on" if on else "off"


SEATS_FIELD = "Other seats"
"""The setup form's name for the seats beside the player's (``--seat-bots``)."""


class SetupScreen(Screen[None]):
    """Players, options (from the game's option descriptions), seats and seed."""

    BINDINGS: ClassVar[list[BindingType]] = [Binding("escape", "app.pop_screen", "Back")]
    # The first field is focused on mount, ready for typing (by default the
    # scrolling form itself took the focus, and keys went nowhere until Tab).
    AUTO_FOCUS = None

    def __init__(self, game_name: str, save_path: Path | None, bot_delay: float) -> None:
        super().__init__()
        self.game_name = game_name
        self.save_path = save_path
        self.bot_delay = bot_delay

    def compose(self) -> ComposeResult:
        """A field per setting, built from the game's ``info`` and ``option_specs``."""
        cls = game_class(self.game_name)
        info = cls.info
        with VerticalScroll(id="setup"):
            yield Static(Text(f"{info.title}\n", style="bold"))
            yield Static(f"{info.summary}\n")
            yield Label(f"Players ({info.min_players} to {info.max_players}):")
            yield Input(str(info.default_players), id="players")
            for spec in cls.option_specs:
                # A switch says how it is worked, not the type's "true or false".
                allowed = "on or off; Space switches it" if spec.type is bool else spec.allowed()
                yield Label(f"{spec.name}: {spec.help} ({allowed})")
                widget_id = f"option-{spec.name}"
                if spec.type is bool:
                    # The state in words as well as colour (monochrome, colour-blind).
                    with Horizontal(classes="switch-row"):
                        yield Switch(value=bool(spec.default), id=widget_id)
                        yield Static(
                            switch_word(bool(spec.default)),
                            id=f"state-{spec.name}",
                            classes="switch-state",
                        )
                elif spec.choices is not None:
                    yield Select(
                        [(str(choice), choice) for choice in spec.choices],
                        value=spec.default,
                        allow_blank=False,
                        id=widget_id,
                    )
                else:
                    yield Input(str(spec.default), id=widget_id)
            yield Label(
                f"{SEATS_FIELD}, in order (easy, medium, hard, a bot's name, or human "
                "for hot-seat); the last fills the rest. You are seat 0:"
            )
            yield Input(DEFAULT_BOT, id="seat-bots", disabled=info.default_players == 1)
            yield Label("Seed (empty: a random one):")
            seed = self.app.seed if isinstance(self.app, PlayApp) else None
            yield Input("" if seed is None else str(seed), id="seed")
            yield Button("Start", id="start", variant="primary")
            yield Static("", id="setup-error", classes="error")
        yield Footer()

    def on_input_changed(self, event: Input.Changed) -> None:
        """With one player there is no other seat: the seats field is put out
        of use (and ignored), so its pre-filled bot cannot fail a solo game."""
        if event.input.id == "players":
            self.query_one("#seat-bots", Input).disabled = event.value.strip() == "1"

    def on_switch_changed(self, event: Switch.Changed) -> None:
        """Keep a switch's words in step with it."""
        name = str(event.switch.id).removeprefix("option-")
        self.query_one(f"#state-{name}", Static).update(switch_word(event.value))

    def on_mount(self) -> None:
        """Focus the first field and show it with its label: Textual's own
        scroll to a newly focused field, done before the form is laid out,
        centred it and left its label above the top at 80x24."""
        players = self.query_one("#players", Input)
        self.set_focus(players, scroll_visible=False)
        self.call_after_refresh(self._show_label_of, players)

    def on_descendant_focus(self, event: events.DescendantFocus) -> None:
        """Keep the focused field's label on screen with it (Tab scrolls only
        as far as the field, which leaves a label above it out of sight)."""
        self.call_after_refresh(self._show_label_of, event.widget)

    def _show_label_of(self, field: Widget) -> None:
        form = self.query_one("#setup", VerticalScroll)
        row: Widget = field
        while isinstance(row.parent, Widget) and row.parent is not form:
            row = row.parent
        if row.parent is not form:
            return
        rows = list(form.children)
        index = rows.index(row)
        region = row.virtual_region_with_margin
        if index > 0 and isinstance(rows[index - 1], Label):
            region = rows[index - 1].virtual_region_with_margin.union(region)
        form.scroll_to_region(region, animate=False, immediate=True)

    def on_input_submitted(self, event: Input.Submitted) -> None:
        """Enter in a field starts the game, as submitting a form does."""
        event.stop()
        self._start()

    def on_button_pressed(self, event: Button.Pressed) -> None:
        """The Start button."""
        event.stop()
        self._start()

    def _start(self) -> None:
        """Start the game, or say what is wrong with the settings."""
        try:
            session = self._session()
        except ApothecaryError as problem:
            self.query_one("#setup-error", Static).update(Text(f"✗ {problem}", style="bold red"))
            return
        self.app.switch_screen(GameScreen(session, self.save_path, self.bot_delay))

    def _session(self) -> Session:
        cls = game_class(self.game_name)
        players_text = self.query_one("#players", Input).value.strip()
        try:
            players = int(players_text)
        except ValueError:
            raise BadOptionError(f"players {players_text!r}: give a whole number") from None
        options: dict[str, Any] = {}
        for spec in cls.option_specs:
            widget = self.query_one(f"#option-{spec.name}")
            if isinstance(widget, Switch | Select):
                options[spec.name] = widget.value
            elif isinstance(widget, Input):
                options[spec.name] = spec.parse(widget.value.strip())
        game = load(self.game_name, players=players, **options)
        # Alone at the table, nobody sits beside you: the field is not asked.
        seat_bots = [] if players == 1 else split_specs(self.query_one("#seat-bots", Input).value)
        seats = plan_seats(self.game_name, players, seat_bots, field=f"“{SEATS_FIELD}”")
        seed_text = self.query_one("#seed", Input).value.strip()
        seed: int | None = None
        if seed_text:
            try:
                seed = int(seed_text)
            except ValueError:
                raise BadOptionError(f"seed {seed_text!r}: give a whole number") from None
        return Session(game, seats, seed)


class MenuScreen(Screen[None]):
    """The games with their player counts; Enter opens a game's setup."""

    BINDINGS: ClassVar[list[BindingType]] = [Binding("q", "app.quit", "Quit")]

    def __init__(self, save_path: Path | None, bot_delay: float) -> None:
        super().__init__()
        self.save_path = save_path
        self.bot_delay = bot_delay

    def compose(self) -> ComposeResult:
        """One line per registered game."""
        yield Static(Text("apothecary — choose a game (Enter)\n", style="bold"))
        options = []
        for name in games():
            info = game_class(name).info
            label = Text()
            label.append(f"{info.title}", style="bold")
            label.append(f"  ({name}, {info.min_players}-{info.max_players} players)\n")
            label.append(f"   {info.summary}", style="dim")
            specs = game_class(name).option_specs
            if specs:
                label.append("\n   options: " + ", ".join(spec.name for spec in specs))
            options.append(Option(label, id=name))
        yield OptionList(*options, id="games")
        yield Footer()

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        """Open the chosen game's setup."""
        if event.option.id is not None:
            self.app.push_screen(SetupScreen(event.option.id, self.save_path, self.bot_delay))


class PlayApp(App[None]):
    """``apothecary play``: a game given on the command line, or the menu."""

    TITLE = "apothecary"
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("ctrl+q", "request_quit", "Quit", priority=True),
    ]
    CSS = """
    #main { width: 1fr; }
    #side { width: 34%; min-width: 26; max-width: 46; border-left: solid $primary; padding: 0 1; }
    #status { height: auto; padding: 0 1; }
    #board-scroll { height: 1fr; padding: 0 1; }
    #board { width: auto; }
    #error { height: auto; padding: 0 1; }
    #actions { height: auto; max-height: 25%; }
    #entry { height: 1; border: none; padding: 0 1; background: $boost; }
    #pinned { height: auto; padding: 0 1; }
    #coach { height: auto; max-height: 60%; border-bottom: solid $primary; margin-bottom: 1; }
    /* What a lesson's coach points at (its "look at" line names it in words too). */
    .pointed { background: $warning 25%; }
    #too-small { display: none; padding: 2 4; }
    GameScreen.too-small #too-small { display: block; }
    GameScreen.too-small #table { display: none; }
    #confirm-box, #summary-box {
        width: 70%; height: auto; max-height: 80%;
        background: $panel; border: thick $warning; padding: 1 2;
    }
    #confirm-buttons { height: auto; margin-top: 1; }
    #confirm-buttons Button { margin-right: 2; }
    ConfirmScreen, SummaryScreen { align: center middle; }
    .switch-row { height: auto; }
    .switch-state { width: auto; padding: 1 1; }
    #result-buttons { height: auto; }
    #result-buttons Button { margin-right: 1; min-width: 0; }
    #entry:focus { background: $primary 25%; }
    #seats { height: auto; }
    #log { height: 1fr; }
    .error { color: $error; }
    #handover-box, #save-box { align: center middle; padding: 2 4; }
    #save-box { width: 80%; height: auto; background: $panel; border: thick $primary; }
    SaveScreen { align: center middle; }
    #rules-box { background: $panel; padding: 1 2; }
    #result-log {
        width: 34%; min-width: 26; max-width: 46; border-left: solid $primary; padding: 0 1;
    }
    #result-main { padding: 0 1; }
    #result-board { width: auto; }
    #setup { padding: 1 2; }
    /* A form label wraps rather than being cut at the window's edge. */
    #setup Label { width: 1fr; }
    """

    def __init__(
        self,
        session: Session | None = None,
        save_path: Path | None = None,
        bot_delay: float = 0.5,
        seed: int | None = None,
    ) -> None:
        super().__init__()
        self.session = session
        self.save_path = save_path
        self.bot_delay = bot_delay
        self.seed = seed
        """The seed the menu's setup form starts with (None: a random one)."""

    def action_request_quit(self) -> None:
        """Quit; mid-game with nothing saved, only when asked twice."""
        for screen in self.screen_stack:
            if isinstance(screen, GameScreen) and not screen.may_quit():
                self.notify(
                    "This game is not saved: ctrl+s saves it, ctrl+q again quits.",
                    severity="warning",
                )
                return
        self.exit()

    def on_mount(self) -> None:
        """Open the game, or the menu when none was given."""
        if self.session is not None:
            self.push_screen(GameScreen(self.session, self.save_path, self.bot_delay))
        else:
            self.push_screen(MenuScreen(self.save_path, self.bot_delay))


__all__ = [
    "HUMAN",
    "ActionList",
    "ConfirmScreen",
    "GameLog",
    "GameScreen",
    "HandOverScreen",
    "MenuScreen",
    "PlayApp",
    "ResultScreen",
    "RulesScreen",
    "SaveScreen",
    "SetupScreen",
    "SummaryScreen",
]
