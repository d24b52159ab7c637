"""A text picture of the table, drawn from one seat's observation only."""

from __future__ import annotations

from typing import Any


def _dose(value: Any) -> str:
    return "?" if value is None else str(value)


def render_observation(obs: dict[str, Any]) -> str:
    """The table as text: the box, the hand, every cup, whose turn and what ended it."""
    seat = obs["seat"]
    viewer = "spectator" if seat is None else f"seat {seat}"
    lines = [
        f"Tea, Scones and Arsenic - {obs['players']} players, lethal dose "
        f"{obs['lethal_dose']}{', little spoon' if obs['little_spoon'] else ''} "
        f"(as seen by {viewer})"
    ]
    box = obs["box"]
    kinds = "  ".join(f"k{k + 1}:{c}" for k, c in enumerate(box["unmarked"]))
    lines.append(f"Box ({box['scones']} scones): unmarked {kinds}")
    for i, m in enumerate(box["marked"]):
        lines.append(
            f"  marked m{i + 1}: kind {m['kind']} put back by seat {m['by']}, "
            f"dose {_dose(m['dose'])}"
        )
    for q, s in enumerate(obs["seats"]):
        state = "dead" if not s["alive"] else ("stopped" if s["stopped"] else "eating")
        cup = " ".join(f"{c['kind']}:{_dose(c['dose'])}" for c in s["cup"]) or "-"
        extra = f", {s['honour_turns_left']} honour turns owed" if s["honour_turns_left"] else ""
        spoon = ", spoon" if s["spoon"] else ""
        total = "" if s["total"] is None else f", total {s['total']}"
        if total and q != seat and obs["eat_off"] is not None and q in obs["eat_off"]:
            # Eat-off scones stay face down: only the eater knows what they add.
            total += " at the end of the main game"
        lines.append(
            f"Seat {q}{' (you)' if q == seat else ''}: {state}, {s['scones']} scones{total}, "
            f"{s['cubes']} cubes{spoon}{extra}  cup [{cup}]"
        )
    hand = obs["hand"]
    if hand is not None:
        lines.append(
            f"In hand of seat {obs['turn']}: kind {hand['kind']}, dose {_dose(hand['dose'])}"
        )
    if obs["eat_off"] is not None:
        lines.append("Eat-off between seats " + ", ".join(str(q) for q in obs["eat_off"]))
    if obs["outcome"] is not None:
        out = obs["outcome"]
        winners = ", ".join(f"seat {q}" for q in out["winners"]) or "nobody"
        lines.append(f"Game over: {out['reason']}. Winners: {winners}.")
    else:
        who = "chance" if obs["to_move"] is None else f"seat {obs['to_move']}"
        can_stop = " (may stop)" if obs["stopping_allowed"] else ""
        lines.append(f"To move: {who}, phase {obs['phase']}{can_stop}")
    return "\n".join(lines)
