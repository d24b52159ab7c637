"""The balance report's plots and tables are readable: wide enough, legends
off the data, whole-number bins for whole-number scores, no plot of a constant,
a win rate by bot with its intervals, and table cells that never wrap."""

from __future__ import annotations

import dataclasses
import io
from typing import Any

import pytest

pytest.importorskip("matplotlib")
from PIL import Image

from apothecary.arena import plan, run_tournament
from apothecary.arena.report import build, figures, integer_bins, to_html


@pytest.fixture(scope="module")
def two_bots() -> Any:
    """Poison Pot (whole-number scores), two bots, two option sets."""
    spec = plan("poison-pot", 2, ["rules", "random"], games=8, seed=1, variants=[{}, {"radius": 2}])
    return spec, run_tournament(spec).results


def test_every_plot_is_at_least_900_pixels_wide(two_bots: Any) -> None:
    report = build(*two_bots)
    assert report.plots
    for name, png in report.plots.items():
        with Image.open(io.BytesIO(png)) as image:
            assert image.width >= 900, name


def test_legends_do_not_cover_the_data(two_bots: Any) -> None:
    import matplotlib.pyplot as plt

    made = figures(build(*two_bots))
    try:
        checked = 0
        for name, figure in made.items():
            figure.canvas.draw()
            renderer = figure.canvas.get_renderer()
            for axes in figure.axes:
                legend = axes.get_legend()
                if legend is None:
                    continue
                box = legend.get_window_extent(renderer)
                for other in figure.axes:
                    plot_area = other.get_window_extent(renderer)
                    assert not box.overlaps(plot_area), name
                checked += 1
        assert checked >= 3
    finally:
        for figure in made.values():
            plt.close(figure)


def test_a_legend_sits_beside_the_plot_whose_lines_it_names(two_bots: Any) -> None:
    """The options figure once put the seats' legend beside its length panel,
    which has no seats; a reader took it for that panel's key."""
    import matplotlib.pyplot as plt

    made = figures(build(*two_bots))
    try:
        checked = 0
        for name, figure in made.items():
            for axes in figure.axes:
                legend = axes.get_legend()
                if legend is None:
                    continue
                own = {label for label in axes.get_legend_handles_labels()[1]}
                named = {text.get_text() for text in legend.get_texts()}
                assert named <= own, f"{name}: {sorted(named - own)} are not in this plot"
                checked += 1
        assert "options.png" in made and checked >= 3
    finally:
        for figure in made.values():
            plt.close(figure)


def test_whole_number_scores_get_bins_centred_on_whole_numbers(two_bots: Any) -> None:
    assert integer_bins([0, 1, 1, 3]) == [-0.5, 0.5, 1.5, 2.5, 3.5]
    wide = integer_bins(list(range(0, 200)))
    assert isinstance(wide, list) and len(wide) <= 42
    assert all((edge + 0.5).is_integer() for edge in wide)
    assert wide[0] < 0 < 199 < wide[-1]
    assert integer_bins([-0.5, 0.5, 2]) == [-0.75, -0.25, 0.25, 0.75, 1.25, 1.75, 2.25]
    assert integer_bins([0.3, 1.25]) == 20
    import matplotlib.pyplot as plt

    made = figures(build(*two_bots))
    try:
        _, results = two_bots
        scores = [score for r in results for score in r.scores]
        unit = 1.0 if all(float(v).is_integer() for v in scores) else 0.5
        for patch in made["scores.png"].axes[0].patches:
            for x, _ in patch.get_xy():
                assert (x / unit + 0.5).is_integer()  # every edge half-way between values
    finally:
        for figure in made.values():
            plt.close(figure)


def test_a_quantity_that_never_varies_gets_no_plot(two_bots: Any) -> None:
    spec, results = two_bots
    flat = {"scores": [1.0] * spec.players}
    same = [
        dataclasses.replace(
            r, length=30, record={**r.record, "outcome": {**r.record["outcome"], **flat}}
        )
        for r in results
    ]
    plots = build(spec, same).plots
    assert "scores.png" not in plots and "length.png" not in plots
    assert "seat-win-rate.png" in plots


def test_a_win_rate_by_bot_plot_with_intervals(two_bots: Any) -> None:
    import matplotlib.pyplot as plt

    made = figures(build(*two_bots))
    try:
        axes = made["bot-win-rate.png"].axes[0]
        labels = [tick.get_text() for tick in axes.get_xticklabels()]
        assert labels == ["rules", "random"]
        from matplotlib.container import ErrorbarContainer

        assert any(isinstance(c, ErrorbarContainer) for c in axes.containers)
    finally:
        for figure in made.values():
            plt.close(figure)


def test_table_cells_do_not_wrap(two_bots: Any) -> None:
    page = to_html(build(*two_bots))
    assert "white-space: nowrap" in page


def test_no_length_plot_when_every_option_set_always_lasts_the_same(two_bots: Any) -> None:
    # Poison Pot's board always fills: 108 actions on the published board, 54 on
    # radius 2. The lengths differ between the option sets but never within one.
    spec, results = two_bots
    assert len({r.length for r in results}) == 2
    assert "length.png" not in build(spec, results).plots
    # One game a move longer than the others of its option set: now a plot.
    varied = [dataclasses.replace(results[0], length=results[0].length + 1), *results[1:]]
    assert "length.png" in build(spec, varied).plots


def test_whole_number_histograms_tick_only_whole_numbers(two_bots: Any) -> None:
    import matplotlib.pyplot as plt

    # Scores of 0 and 1 only (as In Vino Morte's): matplotlib alone would tick
    # -0.5, -0.25, 0, 0.25...
    spec, results = two_bots
    zero_one = {"scores": [1.0, 0.0]}
    results = [
        dataclasses.replace(r, record={**r.record, "outcome": {**r.record["outcome"], **zero_one}})
        for r in results
    ]
    made = figures(build(spec, results))
    try:
        axes = made["scores.png"].axes[0]
        made["scores.png"].canvas.draw()
        ticks = list(axes.get_xticks())
        assert len(ticks) >= 3
        assert all(float(t).is_integer() for t in ticks), ticks
    finally:
        for figure in made.values():
            plt.close(figure)
