"""The balance report of a tournament folder: tables and plots, as one
self-contained HTML page (plots embedded) and as Markdown beside PNG files.

matplotlib is imported here only, with its non-interactive Agg backend, so the
command works on a machine with no display.
"""

from __future__ import annotations

import base64
import html
import math
import statistics
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from apothecary.arena.match import MatchResult, Tally, summarise, wilson
from apothecary.arena.stats import BotRating, ratings
from apothecary.arena.tournament import (
    GameResult,
    TournamentError,
    TournamentSpec,
    load_tournament,
)

PLOT_DPI = 100
"""With :data:`FIGURE_SIZE`, plots about 1,000 pixels wide: large enough to read."""

FIGURE_SIZE = (10.0, 4.5)
"""Inches; at :data:`PLOT_DPI` a plot is at least 900 pixels wide (legends add to it)."""


@dataclass
class Table:
    """A titled table: header cells and rows of text cells."""

    title: str
    header: list[str]
    rows: list[list[str]]
    note: str = ""

    def markdown(self) -> str:
        """The table in GitHub Markdown."""
        lines = [f"**{self.title}**", ""]
        if self.note:
            lines += [self.note, ""]
        lines.append("| " + " | ".join(self.header) + " |")
        lines.append("|" + "|".join("---" for _ in self.header) + "|")
        lines += ["| " + " | ".join(row) + " |" for row in self.rows]
        return "\n".join(lines)

    def html(self) -> str:
        """The table as an HTML fragment."""
        head = "".join(f"<th>{html.escape(c)}</th>" for c in self.header)
        body = "".join(
            "<tr>" + "".join(f"<td>{html.escape(c)}</td>" for c in row) + "</tr>"
            for row in self.rows
        )
        note = f"<p>{html.escape(self.note)}</p>" if self.note else ""
        return (
            f"<h3>{html.escape(self.title)}</h3>{note}"
            # Cells never wrap (an interval split over two lines misreads);
            # a wide table scrolls sideways instead.
            f'<div class="table"><table><thead><tr>{head}</tr></thead>'
            f"<tbody>{body}</tbody></table></div>"
        )


@dataclass
class Report:
    """What a report shows, before it is written out."""

    spec: TournamentSpec
    results: list[GameResult]
    summaries: list[MatchResult]
    ratings: list[BotRating]
    tables: list[Table] = field(default_factory=list)
    plots: dict[str, bytes] = field(default_factory=dict)
    """File name -> PNG bytes."""

    @property
    def title(self) -> str:
        """The heading: game and player count."""
        return f"{self.spec.game}, {self.spec.players} players"

    def lead(self) -> str:
        """One paragraph: what was played."""
        variants = len(self.spec.variants)
        done = len(self.results)
        text = (
            f"{done} of {self.spec.total} games played ({self.spec.games} per option set"
            f" x {variants} option set{'s' if variants > 1 else ''}), bots "
            f"{', '.join(self.spec.bots)}, seed {self.spec.seed}. Seats rotate so that every "
            "bot sits in every seat equally often. Intervals are 95%: Wilson for win rates, "
            "normal approximation for means. A shared win by k seats counts 1/k."
        )
        return text


def _interval(triple: tuple[float, float, float], digits: int = 3) -> str:
    value, low, high = triple
    if math.isnan(value):
        return "-"
    return f"{value:.{digits}f} [{low:.{digits}f}, {high:.{digits}f}]"


def _variant_name(summary: MatchResult) -> str:
    if not summary.options:
        return "default options"
    return " ".join(f"{k}={_show(v)}" for k, v in summary.options.items())


def _show(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def _tally_rows(rows: Sequence[tuple[str, Tally]]) -> list[list[str]]:
    return [
        [name, str(t.games), _interval(t.win_rate()), _interval(t.mean_score(), 2)]
        for name, t in rows
    ]


def build(spec: TournamentSpec, results: list[GameResult]) -> Report:
    """Compute every table and plot of the report."""
    if not results:
        raise TournamentError("the tournament has no finished games yet; nothing to report")
    summaries = summarise(spec, results)
    report = Report(spec, results, summaries, ratings(results))
    several = len(summaries) > 1
    header = ["", "seats", "win rate (95% CI)", "mean score (95% CI)"]
    for summary in summaries:
        suffix = f" ({_variant_name(summary)})" if several else ""
        report.tables.append(
            Table(
                f"By bot{suffix}",
                header,
                _tally_rows([(n, t) for n, t in summary.by_bot.items() if t.games]),
            )
        )
        fair = _fair_share(summary)
        report.tables.append(
            Table(
                f"By seat{suffix}",
                header,
                _tally_rows([(f"seat {i}", t) for i, t in enumerate(summary.by_seat)]),
                note=f"A seat with no advantage wins {fair:.3f} of the games "
                "(the mean win share per seat).",
            )
        )
        if len([t for t in summary.by_bot.values() if t.games]) > 1:
            report.tables.append(
                Table(
                    f"Win rate by bot and seat{suffix}",
                    ["bot", *[f"seat {i}" for i in range(summary.players)]],
                    [
                        [
                            name,
                            *[
                                _interval(summary.by_bot_seat[(name, seat)].win_rate())
                                if (name, seat) in summary.by_bot_seat
                                else "-"
                                for seat in range(summary.players)
                            ],
                        ]
                        for name, tally in summary.by_bot.items()
                        if tally.games
                    ],
                    note="Does a bot's seat matter as much as the bot? Each cell is one "
                    "bot's games in one seat.",
                )
            )
        pairs = _pairwise_rows(summary)
        if pairs:
            report.tables.append(
                Table(
                    f"Head to head{suffix}",
                    ["bot", "against", "meetings", "ahead of it (95% CI)"],
                    pairs,
                    note="Each meeting is one seat against another in one game; a tie counts 1/2.",
                )
            )
    report.tables.append(_length_table(summaries))
    if several:
        report.tables.append(_variant_table(summaries))
    if report.ratings:
        report.tables.append(
            Table(
                "Ratings (openskill Plackett-Luce, all games in order)",
                ["bot", "mu", "sigma", "mu - 3 sigma", "games rated"],
                [
                    [r.name, f"{r.mu:.2f}", f"{r.sigma:.2f}", f"{r.ordinal:.2f}", str(r.games)]
                    for r in report.ratings
                ],
            )
        )
    report.plots = _plots(report)
    return report


def _fair_share(summary: MatchResult) -> float:
    total = sum(sum(t.wins) for t in summary.by_seat)
    return total / max(1, summary.games) / summary.players


def _pairwise_rows(summary: MatchResult) -> list[list[str]]:
    order = {name: i for i, name in enumerate(summary.by_bot)}
    rows = []
    for (a, b), (points, meetings) in sorted(
        summary.pairwise.items(), key=lambda item: (order[item[0][0]], order[item[0][1]])
    ):
        rows.append([a, b, str(int(meetings)), _interval(wilson(points, int(meetings)))])
    return rows


def _length_table(summaries: list[MatchResult]) -> Table:
    rows = []
    for summary in summaries:
        lengths = summary.lengths
        if not lengths:
            continue
        mean = Tally(scores=[float(x) for x in lengths], wins=[0.0] * len(lengths)).mean_score()
        rows.append(
            [
                _variant_name(summary),
                str(len(lengths)),
                _interval(mean, 1),
                f"{statistics.median(lengths):g}",
                f"{min(lengths)}-{max(lengths)}",
            ]
        )
    return Table(
        "Game length (actions, chance included)",
        ["option set", "games", "mean (95% CI)", "median", "range"],
        rows,
    )


def _variant_table(summaries: list[MatchResult]) -> Table:
    # In a mirror match every bot column would just be the fair share.
    several_bots = len(summaries[0].by_bot) > 1
    rows = []
    for summary in summaries:
        row = [_variant_name(summary), str(summary.games)]
        row += [_interval(t.win_rate()) for t in summary.by_seat]
        if several_bots:
            row += [_interval(t.win_rate()) for t in summary.by_bot.values()]
        rows.append(row)
    header = ["option set", "games"]
    header += [f"seat {i} wins" for i in range(summaries[0].players)]
    if several_bots:
        header += [f"{name} wins" for name in summaries[0].by_bot]
    return Table("Effect of the options", header, rows)


# -- plots ---------------------------------------------------------------------


def _plots(report: Report) -> dict[str, bytes]:
    import io

    import matplotlib.pyplot as plt

    plots: dict[str, bytes] = {}
    for name, figure in figures(report).items():
        buffer = io.BytesIO()
        # "tight" keeps the legends drawn beside the axes inside the image.
        figure.savefig(buffer, format="png", dpi=PLOT_DPI, bbox_inches="tight")
        plt.close(figure)
        plots[name] = _small_png(buffer.getvalue())
    return plots


def varies(values: Sequence[float]) -> bool:
    """Whether ``values`` hold two different numbers (a plot of one value says nothing)."""
    return len(set(values)) > 1


def integer_bins(values: Sequence[float], most: int = 40) -> list[float] | int:
    """Bins for a histogram. For whole numbers (or halves, as a shared score
    gives), edges half-way between them, so each bin is centred on a value
    (several values a bin when the range is wide); otherwise 20 equal bins."""
    for unit in (1.0, 0.5):
        if all(float(v / unit).is_integer() for v in values):
            low, high = round(min(values) / unit), round(max(values) / unit)
            step = max(1, math.ceil((high - low + 1) / most))
            return [(low - 0.5 + k * step) * unit for k in range((high - low) // step + 2)]
    return 20


def _whole_ticks(axes: Any, bins: list[float] | int) -> None:
    """Ticks on whole numbers when the bins are centred on them: a tick at 2.5
    between the bars of 2 and 3 reads as a score nobody can have."""
    if isinstance(bins, list):
        from matplotlib.ticker import MaxNLocator

        axes.xaxis.set_major_locator(MaxNLocator(integer=True))


def _legend_beside(axes: Any) -> None:
    """The legend right of the axes, so it never covers a bar or a line."""
    axes.legend(fontsize=9, loc="upper left", bbox_to_anchor=(1.01, 1.0), borderaxespad=0.0)


def figures(report: Report) -> dict[str, Any]:
    """The report's plots as matplotlib figures, by file name (the caller closes
    them). A quantity that never varies gets no plot."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    made: dict[str, Any] = {}
    summaries = report.summaries
    names = [_variant_name(s) for s in summaries]
    players = report.spec.players

    def rate_bars(axes: Any, labels: list[str], per_summary: list[list[Tally]]) -> None:
        width = 0.8 / len(summaries)
        for k, tallies in enumerate(per_summary):
            rates = [t.win_rate() for t in tallies]
            xs = [i + (k - (len(summaries) - 1) / 2) * width for i in range(len(labels))]
            heights = [0.0 if math.isnan(r[0]) else r[0] for r in rates]
            axes.bar(xs, heights, width, yerr=_error_bars(rates), capsize=3, label=names[k])
        axes.set_xticks(range(len(labels)), labels)
        axes.set_ylabel("win rate (95% CI)")
        axes.set_ylim(bottom=0)

    # Win rate by seat, option sets side by side, with the no-advantage line.
    figure, axes = plt.subplots(figsize=FIGURE_SIZE)
    rate_bars(axes, [f"seat {i}" for i in range(players)], [s.by_seat for s in summaries])
    axes.axhline(
        _fair_share(summaries[0]),
        color="grey",
        linestyle="--",
        linewidth=1,
        label="no seat advantage",
    )
    axes.set_title("Win rate by seat")
    _legend_beside(axes)
    made["seat-win-rate.png"] = figure

    # Win rate by bot: the main question of a tournament between bots.
    bots = list(summaries[0].by_bot)
    if len(bots) > 1:
        figure, axes = plt.subplots(figsize=FIGURE_SIZE)
        rate_bars(axes, bots, [[s.by_bot[b] for b in bots] for s in summaries])
        axes.set_title("Win rate by bot")
        _legend_beside(axes)
        made["bot-win-rate.png"] = figure

    # Score distributions per bot (all option sets together).
    pooled: dict[str, list[float]] = {}
    for summary in summaries:
        for name, tally in summary.by_bot.items():
            pooled.setdefault(name, []).extend(tally.scores)
    pooled = {name: scores for name, scores in pooled.items() if scores}
    every_score = [score for scores in pooled.values() for score in scores]
    if varies(every_score):
        figure, axes = plt.subplots(figsize=FIGURE_SIZE)
        bins = integer_bins(every_score)
        for name, scores in pooled.items():
            weights = [1 / len(scores)] * len(scores)
            axes.hist(
                scores, bins=bins, weights=weights, histtype="step", linewidth=1.5, label=name
            )
        _whole_ticks(axes, bins)
        axes.set_xlabel("score (the game's own)")
        axes.set_ylabel("share of seats")
        axes.set_title("Score distribution by bot")
        _legend_beside(axes)
        made["scores.png"] = figure

    # Game length per option set; none when each option set's games all last
    # the same (a board that always fills): the length table says it.
    every_length = [length for s in summaries for length in s.lengths]
    if any(varies(s.lengths) for s in summaries):
        figure, axes = plt.subplots(figsize=FIGURE_SIZE)
        bins = integer_bins(every_length)
        for name, summary in zip(names, summaries, strict=True):
            if summary.lengths:
                axes.hist(summary.lengths, bins=bins, histtype="step", linewidth=1.5, label=name)
        _whole_ticks(axes, bins)
        axes.set_xlabel("actions per game (chance included)")
        axes.set_ylabel("games")
        axes.set_title("Game length")
        _legend_beside(axes)
        made["length.png"] = figure

    if len(summaries) > 1:
        figure, (left, right) = plt.subplots(1, 2, figsize=(FIGURE_SIZE[0] * 1.4, FIGURE_SIZE[1]))
        xs = list(range(len(summaries)))
        # Each seat a little to the side, so the seats' error bars do not
        # hide one another at the same option set.
        spread = 0.2 / max(1, players - 1)
        for seat in range(players):
            rates = [s.by_seat[seat].win_rate() for s in summaries]
            shift = (seat - (players - 1) / 2) * spread
            left.errorbar(
                [x + shift for x in xs],
                [r[0] for r in rates],
                yerr=_error_bars(rates),
                marker="o",
                capsize=3,
                label=f"seat {seat}",
            )
        for name in bots if len(bots) > 1 else []:
            rates = [s.by_bot[name].win_rate() for s in summaries]
            left.plot(xs, [r[0] for r in rates], linestyle=":", marker="s", label=name)
        left.set_xticks(xs, [_wrap(n) for n in names], fontsize=9)
        left.set_ylabel("win rate")
        left.set_title("Win rate by option set")
        means = [sum(s.lengths) / max(1, len(s.lengths)) for s in summaries]
        right.bar(xs, means)
        right.set_xticks(xs, [_wrap(n) for n in names], fontsize=9)
        right.set_ylabel("mean actions per game")
        right.set_title("Game length by option set")
        # The seats' legend beside the panel it labels, with room made for it
        # between the panels so it covers neither.
        _legend_beside(left)
        figure.subplots_adjust(wspace=0.5)
        made["options.png"] = figure
    return made


def _error_bars(rates: Sequence[tuple[float, float, float]]) -> list[list[float]]:
    # Distances from each value to its interval's ends; rounding can put a
    # value a hair outside its interval, and matplotlib refuses negative bars.
    low = [0.0 if math.isnan(p) else max(0.0, p - lo) for p, lo, _ in rates]
    high = [0.0 if math.isnan(p) else max(0.0, hi - p) for p, _, hi in rates]
    return [low, high]


def _small_png(png: bytes) -> bytes:
    """The plot with a 64-colour palette: a third of the size, the same to the eye
    (a few flat colours and anti-aliased text), so reports stay light to embed."""
    import io

    from PIL import Image  # matplotlib's own dependency

    with Image.open(io.BytesIO(png)) as image:
        palette = image.convert("RGB").quantize(colors=64)
        out = io.BytesIO()
        palette.save(out, format="PNG", optimize=True)
    return out.getvalue()


def _wrap(text: str) -> str:
    return text.replace(" ", "\n")


# -- writing -------------------------------------------------------------------

_STYLE = """
body { font-family: system-ui, sans-serif; max-width: 60rem; margin: 2rem auto; padding: 0 1rem;
       color: #222; }
table { border-collapse: collapse; margin: 0.5rem 0 1.5rem; font-size: 0.9rem; }
th, td { border: 1px solid #ccc; padding: 0.25rem 0.6rem; text-align: right;
         white-space: nowrap; }
.table { overflow-x: auto; }
th:first-child, td:first-child { text-align: left; }
img { max-width: 100%; display: block; margin: 0.5rem 0 1.5rem; }
"""


def to_html(report: Report) -> str:
    """The whole report as one HTML page with its plots embedded."""
    parts = [
        "<!doctype html>",
        '<html lang="en"><head><meta charset="utf-8">',
        f"<title>{html.escape(report.title)}</title><style>{_STYLE}</style></head><body>",
        f"<h1>Balance report: {html.escape(report.title)}</h1>",
        f"<p>{html.escape(report.lead())}</p>",
    ]
    parts += [table.html() for table in report.tables]
    for name, png in report.plots.items():
        data = base64.b64encode(png).decode("ascii")
        parts.append(f'<img alt="{html.escape(name)}" src="data:image/png;base64,{data}">')
    parts.append("</body></html>")
    return "\n".join(parts) + "\n"


def to_markdown(report: Report, plot_dir: str = "plots") -> str:
    """The report in Markdown, pointing at the PNG files in ``plot_dir``."""
    parts = [f"# Balance report: {report.title}", "", report.lead(), ""]
    for table in report.tables:
        parts += [table.markdown(), ""]
    for name in report.plots:
        parts += [f"![{name}]({plot_dir}/{name})", ""]
    return "\n".join(parts)


def write_report(folder: str | Path, html_path: str | Path | None = None) -> list[Path]:
    """Write ``report.html``, ``report.md`` and ``plots/*.png`` for a tournament folder.

    Returns the files written. Raises TournamentError for a folder that holds
    no tournament or cannot be written.
    """
    folder = Path(folder)
    spec, results = load_tournament(folder)
    report = build(spec, results)
    target = Path(html_path) if html_path is not None else folder / "report.html"
    written: list[Path] = []
    try:
        plots = folder / "plots"
        plots.mkdir(exist_ok=True)
        for name, png in report.plots.items():
            (plots / name).write_bytes(png)
            written.append(plots / name)
        (folder / "report.md").write_text(to_markdown(report), encoding="utf-8")
        written.append(folder / "report.md")
        target.write_text(to_html(report), encoding="utf-8")
        written.append(target)
    except OSError as error:
        raise TournamentError(f"cannot write the report: {error}") from None
    return written
