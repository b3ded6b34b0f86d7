"""Bootstrap resamples as a documented function of ``(seed, n, replicate)``.

The definition
--------------
Let ``x_0, x_1, x_2, ...`` be the 64-bit outputs of numpy's PCG64 bit
generator seeded with the integer ``seed`` (``numpy.random.PCG64(seed)``,
read with ``random_raw()``).  For a test set of ``n`` items, replicate ``r``
(counting from 0) is the multiset of the ``n`` item indices

    i[r, j] = floor( (x[r*n + j] >> 11) * 2**-53 * n ),   j = 0, ..., n-1

that is, replicate ``r`` uses the raw outputs ``r*n`` to ``r*n + n - 1`` of the
stream, each turned into a uniform double in [0, 1) with 53 random bits and
scaled to an index.  Nothing else enters: not the number of replicates asked
for, not the block size, not the number of threads or machines.  Any block of
replicates can therefore be computed on its own (``PCG64.advance`` jumps to
output ``r*n`` in O(log) time), and every system of a competition sees the
same resamples, which is what makes the analysis *paired*.

The index map's bias is at most ``n / 2**53`` (under 1e-9 relative for a
billion items).  It uses only IEEE-754 double arithmetic, so it gives the same
indices on every platform, and only numpy APIs whose output is fixed since
numpy 1.17 (``PCG64(int)``, ``advance``, ``random_raw``, and
``Generator.random``, which computes exactly ``(x >> 11) * 2**-53``).  The
golden values in ``tests/test_resampling.py`` pin the first indices for a seed.

A second, disjoint part of the same stream, starting at output ``2**127``,
gives the coin flips of the randomization (permutation) test; see
:func:`swap_signs`.

Clusters and strata
-------------------
A :class:`Resampling` generalizes the definition to whole clusters of items
(``bootstrap.cluster``) and to strata resampled within themselves
(``bootstrap.strata``).  The *units* are the clusters (or the items, without
clusters), ``U`` of them; unit ``c`` is the ``c``-th distinct cluster value in
item order.  The units are listed stratum by stratum (strata in the order of
their codes, units of a stratum in increasing unit number): stratum ``s``
holds ``U_s`` units at positions ``o_s .. o_s + U_s - 1`` of that list
``members``, with ``o_0 = 0`` and ``o_{s+1} = o_s + U_s``.  Replicate ``r``
uses the raw outputs ``r*U`` to ``r*U + U - 1``; draw ``j`` falls in the
stratum ``s`` with ``o_s <= j < o_s + U_s`` and picks the unit

    unit[r, j] = members[ o_s + floor( (x[r*U + j] >> 11) * 2**-53 * U_s ) ]

so each stratum keeps its number of units in every replicate, and each drawn
cluster brings all of its items.  An item's resample count is its cluster's.
With one stratum and no clusters, ``members`` is the identity and this is
exactly the item bootstrap above, output for output (the golden values do not
move).  Golden values of the generalization are pinned in
``tests/test_cluster_resampling.py``.  Every cluster must lie inside one
stratum.
"""

from __future__ import annotations

import numbers

import numpy as np

from .quantiles import ndtri, t_quantile

__all__ = [
    "check_seed",
    "check_n_resamples",
    "replicate_indices",
    "iter_index_blocks",
    "iter_draw_chunks",
    "rows_per_block",
    "counts_from_indices",
    "swap_signs",
    "SWAP_STREAM_OFFSET",
    "Resampling",
    "unit_codes",
    "draw_in_words",
]

#: Where the coin flips of the randomization test start in the PCG64 stream.
#: Bootstrap draws use outputs below ``n_resamples * n``, far below this.
SWAP_STREAM_OFFSET = 2**127

_MAX_SEED = 2**128 - 1
_SCALE_53 = 1.0 / 9007199254740992.0  # 2**-53


def check_seed(seed):
    """Return ``seed`` as a Python int, or raise if it is not a usable seed.

    A seed is a non-negative integer below 2**128.  ``None`` is refused: the
    platform gives the scoring program no submission identity, so only a fixed
    seed from the configuration makes every submission see the same resamples.
    ``0`` is a valid seed like any other (it is not "no seed").
    """
    if seed is None:
        raise ValueError("seed must be an integer from 0 to 2**128-1, got None")
    if isinstance(seed, bool) or not isinstance(seed, numbers.Integral):
        raise TypeError("seed must be an integer from 0 to 2**128-1, got %r" % (seed,))
    seed = int(seed)
    if not 0 <= seed <= _MAX_SEED:
        raise ValueError("seed must be an integer from 0 to 2**128-1, got %d" % seed)
    return seed


def check_n_resamples(n_resamples):
    """Return ``n_resamples`` as an int >= 1, or raise."""
    if isinstance(n_resamples, bool) or not isinstance(n_resamples, numbers.Integral):
        raise TypeError("n_resamples must be an integer, got %r" % (n_resamples,))
    if n_resamples < 1:
        raise ValueError("n_resamples must be at least 1, got %d" % n_resamples)
    return int(n_resamples)


def _check_n(n):
    if isinstance(n, bool) or not isinstance(n, numbers.Integral) or n < 1:
        raise ValueError("n (the number of items) must be a positive integer, got %r" % (n,))
    if n >= 2**52:
        raise ValueError("n must be below 2**52 items, got %d" % n)
    return int(n)


def _generator_at(seed, offset):
    bit_generator = np.random.PCG64(seed)
    if offset:
        bit_generator.advance(int(offset))
    return np.random.Generator(bit_generator)


def rows_per_block(n, target_draws=1 << 17):
    """Replicates per block so that one block holds about ``target_draws`` draws.

    About 2**17 draws (1 MiB of float64) keep the working buffers in cache,
    which measured fastest on the reference machine (see ``benchmarks/``).
    """
    return max(1, int(target_draws) // int(n))


def iter_index_blocks(seed, n, start, stop, block_rows=None):
    """Yield ``(r0, r1, indices)`` for consecutive blocks of replicates.

    ``indices`` has shape ``(r1 - r0, n)`` and dtype ``intp``; row ``k`` is
    replicate ``r0 + k`` as defined in the module docstring.  The arrays are
    reused between iterations: copy a block if you keep it.

    Parameters
    ----------
    seed : int
        The seed of the PCG64 stream.
    n : int
        Number of items in the test set.
    start, stop : int
        The half-open range of replicate numbers to produce.
    block_rows : int, optional
        Replicates per block; by default :func:`rows_per_block`.  It changes
        only the memory used, never the values.
    """
    seed = check_seed(seed)
    n = _check_n(n)
    start, stop = int(start), int(stop)
    if not 0 <= start <= stop:
        raise ValueError("need 0 <= start <= stop, got start=%d stop=%d" % (start, stop))
    rows = rows_per_block(n) if block_rows is None else max(1, int(block_rows))
    rows = min(rows, max(1, stop - start))
    generator = _generator_at(seed, start * n)
    uniforms = np.empty(rows * n, dtype=np.float64)
    indices = np.empty(rows * n, dtype=np.intp)
    for r0 in range(start, stop, rows):
        r1 = min(r0 + rows, stop)
        yield r0, r1, _next_draws(generator, uniforms, indices, (r1 - r0) * n, n).reshape(r1 - r0, n)


def _next_draws(generator, uniforms, indices, size, n):
    """The next ``size`` draws of the stream as item indices, in ``indices[:size]`` (the definition).

    ``generator.random`` gives ``(x >> 11) * 2**-53`` exactly; the float64
    product ``u * n`` truncated into intp (== floor for u >= 0) is the index,
    in one pass.
    """
    u = uniforms[:size]
    generator.random(out=u)
    idx = indices[:size]
    np.multiply(u, n, out=idx, casting="unsafe")
    return idx


def iter_draw_chunks(seed, n, replicate, chunk, out=None):
    """The draws of one replicate in consecutive 1-d chunks of at most ``chunk``.

    Concatenated, the chunks are row ``replicate`` of :func:`replicate_indices`;
    the arrays are reused between iterations.  With ``out`` (an intp array of
    ``n``), each chunk is the view of ``out`` at its draws' positions, so that
    ``out`` holds the whole replicate once the iteration ends.
    """
    seed = check_seed(seed)
    n = _check_n(n)
    generator = _generator_at(seed, int(replicate) * n)
    chunk = max(1, min(int(chunk), n))
    uniforms = np.empty(chunk, dtype=np.float64)
    indices = np.empty(chunk, dtype=np.intp) if out is None else None
    for start in range(0, n, chunk):
        size = min(chunk, n - start)
        target = indices if out is None else out[start : start + size]
        yield _next_draws(generator, uniforms, target, size, n)


def replicate_indices(seed, n, start, stop):
    """Return the item indices of replicates ``start`` to ``stop - 1``.

    Returns
    -------
    numpy.ndarray of shape ``(stop - start, n)``, dtype ``intp``.

    Examples
    --------
    >>> replicate_indices(12345, 5, 0, 2).tolist()
    [[1, 1, 3, 3, 1], [1, 2, 0, 3, 4]]
    """
    seed = check_seed(seed)
    n = _check_n(n)
    out = np.empty((int(stop) - int(start), n), dtype=np.intp)
    for r0, r1, idx in iter_index_blocks(seed, n, start, stop):
        out[r0 - start : r1 - start] = idx
    return out


def counts_from_indices(indices, n, dtype=np.float64):
    """Turn a block of index rows into resample counts.

    Parameters
    ----------
    indices : ndarray of shape ``(R, n_draws)``
        Item indices, one replicate per row.
    n : int
        Number of items.

    Returns
    -------
    ndarray of shape ``(R, n)``: ``counts[r, i]`` is how many times item ``i``
    was drawn in replicate ``r``.  Each row sums to ``n_draws``.
    """
    indices = np.asarray(indices)
    rows = indices.shape[0]
    counts = np.empty((rows, n), dtype=np.intp if dtype is None else dtype)
    # one bincount per row: its n bins stay in cache (one bincount of the whole block over rows * n bins,
    # with offsets added, measured 4x slower at n = 10**4); the same integers either way
    for r in range(rows):
        counts[r] = np.bincount(indices[r], minlength=n)
    return counts


def swap_signs(seed, n, start, stop):
    """Coin flips of the randomization test, as a documented function of the seed.

    Row ``r`` (for ``start <= r < stop``) holds ``n`` flips; flip ``j`` is the
    top bit of output ``SWAP_STREAM_OFFSET + r*n + j`` of ``PCG64(seed)``.
    A 1 means "swap the two systems' outputs for item ``j``".

    Returns
    -------
    ndarray of shape ``(stop - start, n)``, dtype ``bool``.
    """
    seed = check_seed(seed)
    n = _check_n(n)
    rows = int(stop) - int(start)
    bit_generator = np.random.PCG64(seed)
    bit_generator.advance(SWAP_STREAM_OFFSET + int(start) * n)
    raw = bit_generator.random_raw(rows * n)
    return (raw >> np.uint64(63)).astype(bool).reshape(rows, n)


def unit_codes(values):
    """``(codes, distinct)``: each value's code, in order of first appearance.

    The code of a value is the number of distinct values seen before its first
    occurrence, so the codes depend only on the order of the items (the order
    of the gold file), never on how strings sort.

    Examples
    --------
    >>> codes, distinct = unit_codes(["b", "a", "b", "c"])
    >>> codes.tolist(), distinct
    ([0, 1, 0, 2], ('b', 'a', 'c'))
    """
    index = {}
    codes = np.empty(len(values), dtype=np.intp)
    for i, value in enumerate(values):
        codes[i] = index.setdefault(value, len(index))
    return codes, tuple(index)


def _codes(name, values, n):
    values = np.asarray(values)
    if values.shape != (n,):
        raise ValueError("%s must have one code per item (%d), got shape %s" % (name, n, values.shape))
    if values.size and (not np.issubdtype(values.dtype, np.integer) or values.min() < 0):
        raise ValueError("%s must be non-negative integer codes" % name)
    return values.astype(np.intp)


class Resampling(object):
    """The resampling design of a test set: items, or whole clusters, within strata.

    Replicates are the documented function of ``(seed, U, replicate)`` of the
    module docstring ("Clusters and strata").  Instances are immutable after
    construction and hold only numpy arrays, so they can be shared by threads
    and shipped to Dask workers.

    Parameters
    ----------
    n : int
        Number of items (the task's resampling units: items, questions, sentences...).
    clusters : array of int, shape ``(n,)``, optional
        Each item's cluster code, ``0 .. C-1``, every code used (see :func:`unit_codes`).
    strata : array of int, shape ``(n,)``, optional
        Each item's stratum code, ``0 .. S-1``.  Every cluster must lie in one stratum.

    Attributes
    ----------
    n_items, n_units, n_strata : int
    unit_of_item : ndarray or None
        The cluster of each item (None without clusters: the units are the items).
    unit_sizes : ndarray
        Items per unit.
    weight_bound : int
        The largest total item count one replicate can give: sum over strata
        of ``U_s`` times the stratum's largest unit (``n`` without clusters).
        Exact sums must hold for this total (:class:`~.accumulators.ExactSums`).
    trivial : bool
        True when this is the plain item bootstrap (no clusters, at most one stratum).
    """

    def __init__(self, n, clusters=None, strata=None):
        n = _check_n(n)
        self.n_items = n
        if clusters is None:
            self.unit_of_item = None
            self.n_units = n
            self.unit_sizes = np.ones(n, dtype=np.intp)
        else:
            self.unit_of_item = _codes("clusters", clusters, n)
            self.unit_sizes = np.bincount(self.unit_of_item)
            if np.any(self.unit_sizes == 0):
                raise ValueError("cluster codes must be 0 .. C-1 with every code used")
            self.n_units = int(self.unit_sizes.size)
        if strata is None:
            unit_stratum = np.zeros(self.n_units, dtype=np.intp)
        else:
            strata = _codes("strata", strata, n)
            if self.unit_of_item is None:
                unit_stratum = strata
            else:
                unit_stratum = np.empty(self.n_units, dtype=np.intp)
                unit_stratum[self.unit_of_item] = strata  # any item's stratum; checked next
                if np.any(unit_stratum[self.unit_of_item] != strata):
                    raise ValueError("every cluster must lie inside one stratum")
        self.unit_stratum = unit_stratum
        sizes = np.bincount(unit_stratum)
        self.stratum_units = sizes
        self.n_strata = int(np.count_nonzero(sizes))
        self.members = np.argsort(unit_stratum, kind="mergesort").astype(np.intp)
        offsets = np.concatenate([[0], np.cumsum(sizes)[:-1]]).astype(np.intp)
        position_stratum = unit_stratum[self.members]
        self._scale = sizes[position_stratum].astype(np.float64)  # U_s of each draw position
        self._offset = offsets[position_stratum]
        self._identity = bool(np.all(self.members == np.arange(self.n_units)))
        self.trivial = self.unit_of_item is None and self.n_strata <= 1
        largest = np.zeros(sizes.size, dtype=np.int64)
        np.maximum.at(largest, unit_stratum, self.unit_sizes)
        self.weight_bound = int(np.sum(sizes * largest))

    @property
    def clustered(self):
        return self.unit_of_item is not None

    def rows_per_block(self):
        """Replicates per block: about 2**17 item counts (or draws) per block."""
        return rows_per_block(self.n_items)

    def _map(self, uniforms, rows, out):
        """Unit numbers of ``rows`` replicates from their uniforms (the definition), into ``out``."""
        u = uniforms.reshape(rows, self.n_units)
        if self.n_strata <= 1:
            np.multiply(u, self.n_units, out=out, casting="unsafe")
        else:
            np.multiply(u, self._scale, out=out, casting="unsafe")
            out += self._offset
        if not self._identity:
            np.take(self.members, out, out=out, mode="clip")
        return out

    def iter_unit_blocks(self, seed, start, stop, block_rows=None):
        """Yield ``(r0, r1, units)``: the unit numbers drawn in replicates ``r0 .. r1-1``, ``(r1-r0, U)``.

        The arrays are reused between iterations: copy a block to keep it.
        """
        seed = check_seed(seed)
        start, stop = int(start), int(stop)
        if not 0 <= start <= stop:
            raise ValueError("need 0 <= start <= stop, got start=%d stop=%d" % (start, stop))
        units = self.n_units
        rows = self.rows_per_block() if block_rows is None else max(1, int(block_rows))
        rows = min(rows, max(1, stop - start))
        generator = _generator_at(seed, start * units)
        uniforms = np.empty(rows * units, dtype=np.float64)
        drawn = np.empty(rows * units, dtype=np.intp)
        for r0 in range(start, stop, rows):
            r1 = min(r0 + rows, stop)
            k = r1 - r0
            generator.random(out=uniforms[: k * units])
            yield r0, r1, self._map(uniforms[: k * units], k, drawn[: k * units].reshape(k, units))

    def unit_indices(self, seed, start, stop):
        """The unit numbers of replicates ``start .. stop-1``, ``(stop-start, U)`` (a copy)."""
        out = np.empty((int(stop) - int(start), self.n_units), dtype=np.intp)
        for r0, r1, units in self.iter_unit_blocks(seed, start, stop):
            out[r0 - start : r1 - start] = units
        return out

    def item_counts(self, units, dtype=np.float64):
        """Item resample counts ``(R, n)`` of a block of drawn units ``(R, U)``."""
        counts = counts_from_indices(units, self.n_units, dtype=dtype)
        if self.unit_of_item is not None:
            counts = counts[:, self.unit_of_item]
        return counts

    def iter_blocks(self, seed, start, stop, block_rows=None):
        """Yield ``(r0, r1, indices, counts)`` for the accumulators' ``block(indices, counts)``.

        Without clusters, ``indices`` are the drawn items ``(R, n)``.  With
        clusters a replicate holds a varying number of items, so ``indices``
        is None and ``counts()`` (the memoized ``(R, n)`` float64 item counts)
        is the only view; every accumulator accepts it.
        """
        for r0, r1, units in self.iter_unit_blocks(seed, start, stop, block_rows):
            cache = []

            def counts(units=units, cache=cache):
                if not cache:
                    cache.append(self.item_counts(units))
                return cache[0]

            yield r0, r1, (None if self.clustered else units), counts

    def jackknife_units(self):
        """Leave-one-unit-out item weights: yields ``(units, weights (len(units), n))`` in chunks.

        Without clusters the units are the items (the ordinary jackknife).
        """
        chunk = max(1, (1 << 20) // self.n_items)
        owner = self.unit_of_item if self.clustered else np.arange(self.n_items)
        for start in range(0, self.n_units, chunk):
            units = np.arange(start, min(self.n_units, start + chunk))
            weights = (owner[None, :] != units[:, None]).astype(np.float64)
            yield units, weights

    def expansion(self, confidence_level):
        """The small-cluster correction's factor ``k`` for intervals at ``confidence_level`` (1 for the item bootstrap).

        With ``U_s`` units in stratum ``s`` (``S`` strata, ``U`` units in all),

            k = sqrt(mean_s U_s / (U_s - 1)) * t_(U - S)((1 + level)/2) / z((1 + level)/2),

        the bootstrap's variance factor ``(U_s - 1)/U_s`` per stratum undone (exactly, for a
        mean, when the strata hold as many units each) and Student's t with ``U - S`` degrees
        of freedom in place of the normal reference, the two small-sample corrections of
        cluster-robust inference (CR1's ``G/(G - 1)`` and ``t(G - 1)``: Cameron, Gelbach &
        Miller 2008; Cameron & Miller 2015).  Each replicate's deviation from the full-sample
        score is multiplied by ``k``
        (:func:`leaderboard_ci.core.replicates.expand_replicates`).  Strata with one unit,
        which the bootstrap cannot vary, are left out of the mean; 1 when no stratum has two
        units or ``U - S < 1``.
        """
        if self.trivial:
            return 1.0
        sizes = self.stratum_units[self.stratum_units > 1].astype(np.float64)
        df = int(self.n_units - np.count_nonzero(self.stratum_units))
        if sizes.size == 0 or df < 1:
            return 1.0
        upper = 0.5 * (1.0 + float(confidence_level))
        return float(np.sqrt(np.mean(sizes / (sizes - 1.0))) * t_quantile(upper, df) / ndtri(upper))

    def describe(self):
        """``(units, strata)`` in words for notes: ``"300 clusters"``, ``"4 strata"``."""
        return "%d %s" % (self.n_units, "clusters" if self.clustered else "items"), "%d strata" % self.n_strata


def _counted(n, noun):
    return noun if n is None else "{:,} {}".format(int(n), noun)


def draw_in_words(n, units, cluster=None, n_clusters=None, strata=None, n_strata=None, code=None):
    """How one bootstrap resample is drawn, in words, for the pages and reports that describe an interval.

    Parameters
    ----------
    n : int or None
        The test set's resampling units (items, questions, queries); None when the count is withheld.
    units : str
        Their name in the plural ("test items", "questions").
    cluster, strata : str or None
        The gold columns of ``bootstrap.cluster`` and ``bootstrap.strata`` (None: no such design, or a
        design given without a column name, e.g. codes passed to the Python API).
    n_clusters, n_strata : int or None
        How many clusters and strata (None: no such design, or withheld); a count without a column
        still describes the design.
    code : callable, optional
        Marks a column name up (Markdown backquotes by default; HTML callers pass their own).

    Returns
    -------
    str
        A clause without a final stop, e.g. ``"the 540 test items are drawn at random with replacement"``,
        ``"the 60 clusters of questions (one per value of `paragraph`) are drawn at random with
        replacement, each with all its questions"``, with ``", within each of the 3 strata of the
        column `lang` (each stratum keeps its size)"`` after it when there are strata.
    """
    code = code or (lambda name: "`%s`" % name)
    clustered = cluster is not None or n_clusters is not None
    if clustered:
        text = "the %s of %s%s are drawn at random with replacement, each with all its %s" % (
            _counted(n_clusters, "clusters"),
            units,
            "" if cluster is None else " (one per value of %s)" % code(cluster),
            units,
        )
    else:
        text = "the %s are drawn at random with replacement" % _counted(n, units)
    if strata is not None or n_strata is not None:
        text += ", within each of the %s%s (each stratum keeps its number of %s)" % (
            _counted(n_strata, "strata"),
            "" if strata is None else " of the column %s" % code(strata),
            "clusters" if clustered else units,
        )
    return text
