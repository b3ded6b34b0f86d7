"""Task types: how values are parsed and encoded, their per-item statistics and metrics.

Rule: modules here import only the standard library, numpy, ``core`` and ``tasks``; Python 3.7 syntax
(they run inside the stock Codabench images).

Adding a task type
==================
A task type is one module here (``classification.py`` and ``regression.py`` are the
models), registered in :data:`leaderboard_ci.tasks.registry.TASKS`.  Nothing else in
the package names a task type: the configuration, the readers, the per-submission
evaluation, the end-of-phase analysis and the reports reach it only through the
registry and the functions below.  If a new task needs an edit elsewhere, the
protocol is missing something: extend the protocol once, for every task.

What the module provides
------------------------
Names
    ``NAME``
        The task's name, the value of ``task:`` in ``config.yaml``.
    ``METRICS``
        ``{metric name: MetricInfo(NAME, direction, best, title, ppi)}``.
    ``ALIASES``
        Other spellings of metric names (``{alias: name}``); documented in the README.
    ``OPTIONS``
        The metric options this task accepts in a config entry besides ``name`` and
        ``key`` (e.g. ``average``, ``labels``; a ranking task would take ``k``).
    ``resolve_name(name) -> (metric, implied options) or None``
        Shorthands included (``f1_macro`` -> ``("f1", {"average": "macro"})``).
    ``known_names() -> list``
        One spelling of every metric, for messages and "did you mean".
    ``make_spec(name, options, defaults) -> (fields, default key, title)``
        Validate the options (raise ``ValueError`` with a sentence that says what
        was given and what is allowed); ``fields`` are keyword arguments of
        :class:`~leaderboard_ci.tasks.base.MetricSpec` (options of a new task go in
        ``options=tuple(sorted(...))`` and are read back with ``spec.option(name)``).
    ``check_metrics(metrics, labels) -> None or (metric key, message)``
        Whether the metrics agree with what the gold standard turned out to hold.

Parsing (messages name the file and line through ``source.at(line, text)`` /
``source.whole(text)``; a gold value is never quoted; every participant value a
message echoes goes through the ``quote`` it is given, which escapes invisible
characters and shortens; labels are listed only when ``settings["public_labels"]``
(the configured ``labels``) is not None, never from the gold; a parser of the
task's own catches what it can raise and says what is wrong in one sentence)
    ``encode_gold(source, lines, values, labels, config_name) -> (values, labels)``
        The gold column's text values into the encoded array the statistics use.
    ``value_parser(source, gold, quote) -> (convert(line, text), typecode)``
        One participant value into its encoding; ``typecode`` is the
        :mod:`array` code the readers store it with (``"q"`` or ``"d"``).
        ``convert`` depends on ``text`` alone (``line`` only names the place
        in a message): the readers convert each distinct text of a batch once.
    ``is_value(gold, text) -> bool``
        Whether a would-be header field is really a value (the file has no header).
    ``encode_values(gold_values, systems, labels, settings) -> (values, labels, {name: values})``
        In-memory encoding for the Python API (``analyze``); ``ValueError`` names the system.
    ``decode(gold, values)``
        Encoded values back into what a custom metric function receives.

Statistics and scores
    ``Statistics(add, gold, predictions, metrics, group_codes, n_groups, layout)``
        Validates the predictions' shape and range (``ValueError`` saying what it
        got), creates the accumulators (:mod:`leaderboard_ci.core.accumulators`:
        per-item statistics whose weighted sums under the resample counts are
        exact) and registers each with ``add(acc) -> slot``; the unit of
        resampling is whatever one row of ``gold.values`` is (an item, a
        sentence, a query).  Then ``prepare(stats)`` (once per block) and
        ``score(prepared, spec, j) -> (N,)`` scores of ``spec`` on all items
        (``j == 0``) or on group ``j - 1``, vectorized over the N replicates.
        Linear accumulators (``linear_matrix``) make the end-of-phase stacking
        and the permutation test work with no more code.

Optional
    ``SETTINGS`` and ``parse_settings(values) -> dict``
        Top-level ``config.yaml`` keys this task owns (e.g. ``label_separator``,
        ``scheme``) and their validation (``ValueError``; return hashable values).
        The readers pass them, with the ``files:`` settings, the configured
        ``labels`` (None when the label set comes from the gold) and the
        ``group_column``, as the ``settings`` dict of the functions here; they
        also reach ``Statistics`` as ``gold.settings`` (sorted ``(key, value)`` pairs).
    ``check_config(metrics, settings, labels) -> None``
        Cross-checks of the metrics against the task's settings and the
        configured labels, run once the config is parsed (``ValueError``, e.g. a
        coarse-level metric without a hierarchy).
    ``stack(values, gold, settings)``
        For structured values: ``value_parser`` returns ``typecode`` None, the
        readers collect the parsed values in gold order and this builds the array.
    ``read_gold(source, lines, labels, settings) -> dict`` and
    ``read_predictions(source, lines, gold, settings) -> array``
        For a file format of the task's own (CoNLL, TREC, SQuAD JSON): ``lines``
        are the decoded ``(line number, text)`` pairs; ``read_gold`` returns
        ``{"lines", "values", "labels", "ids", "groups"}`` (one entry per unit;
        ids, labels and groups may be None); ``read_predictions`` the aligned array.
        The readers' ``settings`` also carry ``metrics`` (the configured
        MetricSpecs), so a check that depends on the metrics (probabilities in
        [0, 1] for log loss) can name the line.
    ``Statistics.analytic_interval(spec, group, confidence_level) -> Interval or None``
        A closed-form interval the per-submission program shows instead of the
        bootstrap one (``scores``: DeLong's for ``roc_auc`` with ``interval: delong``).
    ``pair_tests(spec, gold, predictions, items, pairs, sides) -> {column: p-values}``
        Extra tests of the end-of-phase pairs table, beside the bootstrap and
        permutation tests (``scores``: ``p_delong`` for binary ROC-AUC);
        ``predictions`` is ``(n, m, ...)``, ``items`` the target's boolean item mask.
    ``Statistics.unit_values(spec, j) -> array or None`` and ``UNIT_VALUES_NAME``
        For a metric that is the mean of a value per unit: that value on every
        unit (``j == 0``) or on the units of group ``j - 1``, whose mean is the
        full-sample score; the end-of-phase report draws each system's
        distribution of them (``ranking``: the per-query nDCG, MAP, ...).
        ``UNIT_VALUES_NAME`` names the unit (``"query"``).
    ``sparse_units(spec, gold, predictions=None, items=None) -> tuple of SparseUnits``
        Where ``spec``'s interval rests on almost nothing in the ``items`` (a boolean
        mask; all by default): the units of a macro average (class, label, entity
        type) with at most :data:`~leaderboard_ci.tasks.base.FEW_UNITS` gold
        occurrences and, with one system's ``predictions``, those it predicts that
        few times; ROC-AUC/AP with few positives or negatives; few queries with a
        relevant document.  :mod:`leaderboard_ci.scoring.validity` and the
        end-of-phase notes turn them into sentences.
    ``item_contributions(spec, gold, predictions) -> (terms, noun, coverage) or None``
        For a metric that is the mean of non-negative per-item terms (squared or
        absolute errors, log loss, Brier score): those terms, what they are called,
        and what a coverage study found when a few dominate (or None); the heavy-tail
        note reads the share of the largest 1 % of them.
    ``unit_rows(statistics, full_stats, rep_stats, labels, method, confidence_level, zero_division)``
        The per-unit table of ``detailed_results.html`` (``ClassRow`` rows) and
        ``UNIT_NAME`` (``"class"``, ``"label"``, ``"entity type"``).

Tests a task type ships
-----------------------
* parity with its reference implementation (scikit-learn with ``sample_weight``
  = the resample counts, seqeval, ranx, ...) on the full sample and on every
  replicate of a block, to 1e-12;
* its bad inputs in ``tests/bad_inputs``: one sentence naming file and line, no gold value;
* an example competition under ``examples/<task>/`` scored end to end through
  ``score.py`` as the worker runs it, in the py37 and py312 image environments.
"""
