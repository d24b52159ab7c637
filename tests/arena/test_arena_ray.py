"""The Ray backend, on a small local Ray: the same games as the local backend."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from apothecary.arena import plan, run_tournament
from apothecary.arena.tournament import RayBackend

ray = pytest.importorskip("ray")


@pytest.fixture
def local_ray() -> Iterator[None]:
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
    try:
        yield
    finally:
        ray.shutdown()


def test_ray_plays_the_same_games_as_one_local_process(local_ray: None) -> None:
    spec = plan(
        "in-vino-morte", 4, ["rules", "random"], games=24, seed=8, variants=[{}, {"cheese": True}]
    )
    backend = RayBackend(workers=2)
    try:
        distributed = run_tournament(spec, backend=backend)
    finally:
        backend.close()
    assert ray.is_initialized()  # a Ray it did not start is left running
    local = run_tournament(spec)
    assert [(r.index, r.seats, r.record) for r in distributed.results] == [
        (r.index, r.seats, r.record) for r in local.results
    ]
    assert len(distributed.results) == 48
