"""The hexagonal board of Poison Pot: circles, their names, neighbours and rays.

The published board is a hexagon of radius 3 (37 circles). Circles are numbered
row by row, top to bottom and left to right; a person names a circle by its row
letter (``a`` at the top) and its place in the row counted from the left (``1``).
The centre of the radius-3 board is ``d4``::

          a1  a2  a3  a4
        b1  b2  b3  b4  b5
      c1  c2  c3  c4  c5  c6
    d1  d2  d3  d4  d5  d6  d7
      e1  e2  e3  e4  e5  e6
        f1  f2  f3  f4  f5
          g1  g2  g3  g4

Inside, a circle is an axial coordinate ``(q, r)``: ``r`` is the row (-radius at
the top), ``q`` grows to the right along a row. The six directions are east and
west along a row, and north-east, north-west, south-east, south-west diagonally.
"""

from __future__ import annotations

from functools import cache

Circle = int
"""A circle's index, 0 .. size-1, in reading order (``a1`` is 0)."""

DIRECTIONS: tuple[tuple[str, int, int], ...] = (
    ("e", 1, 0),
    ("w", -1, 0),
    ("ne", 1, -1),
    ("nw", 0, -1),
    ("se", 0, 1),
    ("sw", -1, 1),
)
"""The six directions as (name, dq, dr) in axial coordinates."""

ROW_LETTERS = "abcdefghi"


class Board:
    """The geometry of a hexagonal board of a given radius (immutable, shared)."""

    def __init__(self, radius: int) -> None:
        if not 1 <= radius <= len(ROW_LETTERS) // 2:
            raise ValueError(f"radius {radius} is not supported")
        self.radius = radius
        coords: list[tuple[int, int]] = []
        rows: list[list[Circle]] = []
        names: list[str] = []
        for row_index, r in enumerate(range(-radius, radius + 1)):
            row: list[Circle] = []
            first, last = max(-radius, -radius - r), min(radius, radius - r)
            for place, q in enumerate(range(first, last + 1)):
                row.append(len(coords))
                coords.append((q, r))
                names.append(f"{ROW_LETTERS[row_index]}{place + 1}")
            rows.append(row)
        index = {coord: circle for circle, coord in enumerate(coords)}
        self.size: int = len(coords)
        """How many circles the board has (37 for radius 3)."""
        self.coords: tuple[tuple[int, int], ...] = tuple(coords)
        self.rows: tuple[tuple[Circle, ...], ...] = tuple(tuple(row) for row in rows)
        self.names: tuple[str, ...] = tuple(names)
        self.by_name: dict[str, Circle] = {name: c for c, name in enumerate(names)}
        self.centre: Circle = index[(0, 0)]
        rays: list[tuple[tuple[Circle, ...], ...]] = []
        neighbours: list[tuple[Circle, ...]] = []
        steps: dict[tuple[Circle, Circle], tuple[str, int]] = {}
        for circle, (q, r) in enumerate(coords):
            circle_rays: list[tuple[Circle, ...]] = []
            for direction, dq, dr in DIRECTIONS:
                ray: list[Circle] = []
                nq, nr = q + dq, r + dr
                while (nq, nr) in index:
                    ray.append(index[(nq, nr)])
                    steps[(circle, index[(nq, nr)])] = (direction, len(ray))
                    nq, nr = nq + dq, nr + dr
                circle_rays.append(tuple(ray))
            rays.append(tuple(circle_rays))
            neighbours.append(tuple(ray[0] for ray in circle_rays if ray))
        self.rays: tuple[tuple[tuple[Circle, ...], ...], ...] = tuple(rays)
        """Per circle, per direction (in :data:`DIRECTIONS` order), the circles
        along that line outwards, nearest first."""
        self.neighbours: tuple[tuple[Circle, ...], ...] = tuple(neighbours)
        """Per circle, the circles next to it (2 to 6 of them)."""
        self.line: dict[tuple[Circle, Circle], tuple[str, int]] = steps
        """For two circles on one straight line: the direction and distance from
        the first to the second."""
        lines: list[tuple[Circle, ...]] = []
        for dq, dr in ((1, 0), (1, -1), (0, 1)):
            for q, r in coords:
                if (q - dq, r - dr) in index:
                    continue  # not the first circle of its line
                circles: list[Circle] = []
                while (q, r) in index:
                    circles.append(index[(q, r)])
                    q, r = q + dq, r + dr
                lines.append(tuple(circles))
        self.lines: tuple[tuple[Circle, ...], ...] = tuple(lines)
        """Every straight line of circles, along the three axes (21 on radius 3)."""
        membership: list[list[tuple[int, int]]] = [[] for _ in coords]
        for number, along_line in enumerate(lines):
            for place, circle in enumerate(along_line):
                membership[circle].append((number, 1 << place))
        self.line_bits: tuple[tuple[tuple[int, int], ...], ...] = tuple(
            tuple(pairs) for pairs in membership
        )
        """Per circle, its three (line number, bit in that line's occupancy) pairs."""
        self.line_slides: tuple[tuple[tuple[int, ...], ...], ...] = tuple(
            tuple(
                tuple(sorted(_slides_along(circles, bits, self.size)))
                for bits in range(1 << len(circles))
            )
            for circles in lines
        )
        """Per line and occupancy pattern (bit i set: the line's i-th circle holds
        a piece), every slide along that line as ``from * size + to``, in
        ascending order (so the rows' slides, one after another, are already in
        the order of the legal actions, and sorting the lot is quicker)."""
        line_of: dict[tuple[Circle, Circle], tuple[int, int, int]] = {}
        for number, along_line in enumerate(lines):
            for i, origin in enumerate(along_line):
                for j, target in enumerate(along_line):
                    low, high = min(i, j), max(i, j)
                    path = sum(1 << k for k in range(low, high + 1)) & ~(1 << i)
                    line_of[(origin, target)] = (number, 1 << i, path)
        # Two circles on no common line get a check that always fails (no
        # masked occupancy equals 1 under a zero mask).
        checks: list[tuple[int, int, int]] = [(0, 0, 1)] * (self.size * self.size)
        flips: list[tuple[tuple[int, int], ...]] = [()] * (self.size * self.size)
        for (origin, target), (number, origin_bit, path) in line_of.items():
            if origin == target:
                continue
            action = origin * self.size + target
            checks[action] = (number, origin_bit | path, origin_bit)
            changed: dict[int, int] = {}
            for line_number, bit in self.line_bits[origin] + self.line_bits[target]:
                changed[line_number] = changed.get(line_number, 0) ^ bit
            flips[action] = tuple(changed.items())
        self.slide_checks: tuple[tuple[int, int, int], ...] = tuple(checks)
        """Per ``from * size + to``: (line number, mask, bit) such that it is a
        slide exactly when that line's occupancy masked is the bit: a piece on
        the origin and none from the next circle up to the target."""
        self.slide_flips: tuple[tuple[tuple[int, int], ...], ...] = tuple(flips)
        """Per slide ``from * size + to``, the (line number, bits) whose
        occupancy it flips: the origin empties and the target fills, so their
        shared line flips both bits at once."""

    def name(self, circle: Circle) -> str:
        """The typable name of a circle (``"d4"``)."""
        return self.names[circle]

    def parse(self, text: str) -> Circle | None:
        """The circle a name such as ``"D4"`` names, or None."""
        return self.by_name.get(text.strip().lower())

    def along(self, circle: Circle, direction: str, distance: int) -> Circle | None:
        """The circle ``distance`` steps from ``circle`` towards ``direction``, or None."""
        for index, (name, _, _) in enumerate(DIRECTIONS):
            if name == direction:
                ray = self.rays[circle][index]
                return ray[distance - 1] if 1 <= distance <= len(ray) else None
        return None

    def picture(self, cells: list[str], width: int = 3) -> list[str]:
        """Lines drawing the board with ``cells[c]`` at each circle, rows offset
        by half a cell so the hexagon shows."""
        lines = []
        for row in self.rows:
            indent = (2 * self.radius + 1 - len(row)) * ((width + 1) // 2)
            lines.append(" " * indent + " ".join(cells[c].center(width) for c in row).rstrip())
        return lines


def _slides_along(line: tuple[Circle, ...], pattern: int, size: int) -> tuple[int, ...]:
    slides: list[int] = []
    for place, origin in enumerate(line):
        if not pattern >> place & 1:
            continue
        for step in (1, -1):
            other = place + step
            while 0 <= other < len(line) and not pattern >> other & 1:
                slides.append(origin * size + line[other])
                other += step
    return tuple(slides)


@cache
def board(radius: int) -> Board:
    """The shared board of ``radius`` (built once)."""
    return Board(radius)
