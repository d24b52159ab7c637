"""Counter-based random numbers for batches: every game draws from its own key.

A batch cannot hold one :class:`numpy.random.Generator` per game and stay
vectorised (drawing from N generators is a Python loop over N), and one
generator for the whole batch would make a game's draws depend on the games
beside it. So, as in JAX, a game's randomness is a pure function of a key and
a counter: ``uniform(episode_key(key, episode), draw)`` is the same number
whatever batch the game runs in, at whatever batch size, in whatever order.

The mixing function is SplitMix64's finaliser (Steele, Lea and Flood, 2014),
which passes BigCrush on a counter; it is cheap in numpy (six operations on
``uint64`` arrays, which wrap on overflow as the algorithm needs). The
functions use operators and array methods only, so the JAX backend
(:mod:`apothecary.batch.jax`) runs them unchanged on JAX arrays (under
``jax.enable_x64``) and draws exactly the numbers numpy draws.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike, NDArray

U64 = NDArray[np.uint64]

_GOLDEN = np.uint64(0x9E3779B97F4A7C15)
_M1 = np.uint64(0xBF58476D1CE4E5B9)
_M2 = np.uint64(0x94D049BB133111EB)
_S30, _S27, _S31, _S11 = np.uint64(30), np.uint64(27), np.uint64(31), np.uint64(11)
_EPISODE_SALT = np.uint64(0xD1B54A32D192ED03)


def mix(x: U64) -> U64:
    """SplitMix64's finaliser, element-wise: a bijection of uint64 that spreads
    every input bit over the output."""
    x = (x ^ (x >> _S30)) * _M1
    x = (x ^ (x >> _S27)) * _M2
    return x ^ (x >> _S31)


def game_keys(seed: int | ArrayLike, n: int | None = None) -> U64:
    """One key per game.

    ``game_keys(seed, n)`` gives game ``i`` a key made from ``(seed, i)`` alone
    (as the arena seeds game ``i`` of a match), so game 5 of a batch of 8 and of
    a batch of 4,096 play alike; ``game_keys(seeds)`` makes one from each seed
    of a sequence, for a caller that chooses every game's seed itself.
    """
    if n is not None:
        if not isinstance(seed, int | np.integer):
            raise TypeError(f"with n, seed is one int, not {type(seed).__name__}")
        base = mix(np.array([int(seed) % 2**64], dtype=np.uint64))
        index = np.arange(n, dtype=np.uint64)
        return mix(base + (index + np.uint64(1)) * _GOLDEN)
    seeds = np.asarray(seed)
    if seeds.ndim != 1 or seeds.dtype.kind not in "iu":
        raise TypeError("seeds are a one-dimensional sequence of ints (or one int and n)")
    return seed_keys(seeds.astype(np.int64).astype(np.uint64))


def seed_keys(seeds: U64) -> U64:
    """The key of each game of ``game_keys(seeds)``, from its seed's 64 bits as
    a uint64: operators only, so the pgx env makes the same keys under JAX."""
    return mix(mix(seeds) + _GOLDEN)


def episode_key(key: U64, episode: NDArray[np.int64]) -> U64:
    """The key of a game's ``episode``-th game (0 first; each auto-reset adds 1)."""
    return mix(key ^ mix(episode.astype(np.uint64) * _EPISODE_SALT + _GOLDEN))


def uniform(key: U64, counter: NDArray[np.int64]) -> NDArray[np.float64]:
    """A number in [0, 1) per game: its ``counter``-th draw under ``key`` (53
    random bits, as :func:`random.random`)."""
    bits = mix(key + (counter.astype(np.uint64) + np.uint64(1)) * _GOLDEN)
    return (bits >> _S11).astype(np.float64) * (1.0 / 2**53)


def choose_weighted(u: NDArray[np.float64], weights: NDArray[np.int64]) -> NDArray[np.int64]:
    """Per row, the index ``j`` picked with probability ``weights[j] / sum``,
    from a uniform ``u`` in [0, 1): the scalar engines' rule (the first outcome
    whose cumulative probability exceeds ``u``), on exact integer weights.

    ``weights`` is (n, k) of non-negative ints, each row with a positive sum.
    """
    # Array methods only, no numpy functions: the JAX backend runs this same
    # code on JAX arrays (as it does mix, episode_key and uniform).
    total = weights.sum(axis=1)
    # floor(u * total) is an int in [0, total) (truncation is floor here, the
    # product being non-negative): the outcome whose cumulative count first
    # exceeds it has probability weight / total exactly.
    target = (u * total).astype(np.int64)
    cumulative = weights.cumsum(axis=1)
    index: NDArray[np.int64] = (cumulative <= target[:, None]).sum(axis=1).astype(np.int64)
    return index
