"""A task type's metrics: one :class:`Metric` object per metric, gathered in a :class:`Metrics` catalog.

A metric is defined in one place, as sacrebleu keeps a metric in one class: the
:class:`Metric` object holds its name and other spellings, which way is better,
its best value and title, the options it takes (each an :class:`Option` with its
validation and its line in the configuration reference), the per-unit sums it
needs and its formula.  The task's ``Statistics`` computes the sums its metrics
need and calls :meth:`Metric.score` on them, so adding a metric to a task type
is adding one entry to its catalog.

A task type whose metrics share a way of naming or validating options (the
averaged precision, recall and F1 of ``classification``; the sacrebleu options
of ``generation``) subclasses :class:`Metric` once and overrides
:meth:`Metric.make_spec`, :meth:`Metric.parse_name`, :meth:`Metric.check_gold`
or :meth:`Metric.signature`; its metrics are instances of that subclass.

Python 3.7, the standard library only.
"""

from __future__ import annotations

from collections import OrderedDict
from dataclasses import dataclass, field
from typing import Any, Callable, Optional, Tuple

from .shared.base import MetricInfo

__all__ = ["Option", "Metric", "Metrics"]


@dataclass(frozen=True)
class Option:
    """One option a metric entry of ``config.yaml`` may give besides ``name`` and ``key``.

    Attributes
    ----------
    name : str
        The key in the metric entry (``average``, ``k``, ``tokenize``).
    doc : str
        Its line in the generated configuration reference.
    default : object
        Its value when the entry does not give it.
    check : callable, optional
        ``check(value) -> value``: the given value, validated and normalized;
        raises ValueError with a sentence that says what was given and what is
        allowed.  None: any value is taken as given.
    """

    name: str
    doc: str
    default: Any = None
    check: Optional[Callable[[Any], Any]] = None

    def value(self, given):
        """``given`` through :attr:`check` (ValueError)."""
        return given if self.check is None else self.check(given)


@dataclass(frozen=True, eq=False, repr=False)
class Metric:
    """Everything about one metric of one task type.

    Attributes
    ----------
    task : str
        The task type's name.
    name : str
        The canonical name (``f1``, ``ndcg``, ``bleu``).
    title : str
        Its name in reports.
    direction : {"higher", "lower"}
        Which is better.
    best : float or None
        The best value it can take (None: unbounded).
    ppi : bool
        Whether the Performance Potential Index is meaningful (a fixed,
        unit-free scale).
    aliases : tuple of str
        Other spellings of the name (``acc``, ``auroc``).
    shorthands : tuple of (str, tuple of (option, value))
        Spellings that imply options (``qwk``: ``weights: quadratic``).
    spellings : tuple of str
        The spellings messages and the reference list for this metric (a
        cut-off written ``k``: ``ndcg@k``); empty: the name.
    options : tuple of Option
        The options it takes.
    needs : tuple of str
        The per-unit sums its formula reads, in the task's own vocabulary
        (regression: ``("sq_err", "y", "yy")`` for R²); the task's
        ``Statistics`` computes the union over the configured metrics.
    formula : callable, optional
        ``formula(sums, spec) -> (N,) array``: the score of every (re)sample
        from the task's sums (what ``sums`` is, is the task's: class counts,
        regression sums, n-gram statistics) and the configured
        :class:`~leaderboard_ci.tasks.shared.base.MetricSpec`.
    """

    task: str
    name: str
    title: str
    direction: str
    best: Optional[float]
    ppi: bool = True
    aliases: Tuple[str, ...] = ()
    shorthands: Tuple[Tuple[str, Tuple[Tuple[str, Any], ...]], ...] = ()
    spellings: Tuple[str, ...] = ()
    options: Tuple[Option, ...] = ()
    needs: Tuple[str, ...] = ()
    formula: Optional[Callable[..., Any]] = None
    info: MetricInfo = field(init=False)

    def __post_init__(self):
        if self.direction not in ("higher", "lower"):
            raise ValueError("metric %s: direction must be higher or lower, got %r" % (self.name, self.direction))
        object.__setattr__(self, "info", MetricInfo(self.task, self.direction, self.best, self.title, self.ppi))

    def __repr__(self):
        return "<metric %s.%s>" % (self.task, self.name)

    # -- Names ---------------------------------------------------------------------------------------------------
    def known_names(self):
        """The spellings listed in messages and the reference (default: the name)."""
        return self.spellings or (self.name,)

    def parse_name(self, name):
        """The options implied by an open-ended spelling of this metric (``top_3_accuracy``, ``ndcg@10``,
        ``f1_macro``, ``bleu_intl_lc``), or None when ``name`` is not one (default: never)."""
        return None

    # -- Options -------------------------------------------------------------------------------------------------
    def make_spec(self, options, defaults):
        """``(fields for MetricSpec, default key, title)`` of this metric with ``options`` (ValueError).

        ``options`` are the entry's options (those implied by its name
        included); ``defaults`` holds the config's top-level ``labels``,
        ``pos_label`` and ``zero_division``.  Default: every option goes
        through its :class:`Option`'s check and is kept in ``options`` of the
        MetricSpec when it differs from the option's default; the key is the
        name and the title :attr:`title`.  A metric with options named in its
        key or title overrides this.
        """
        allowed = OrderedDict((option.name, option) for option in self.options)
        unknown = sorted(set(options) - set(allowed))
        if unknown:
            takes = ", ".join(allowed) if allowed else "no options"
            raise ValueError("%s takes no option %r (it takes: %s)" % (self.name, unknown[0], takes))
        chosen = []
        for name, option in allowed.items():
            if name in options:
                value = option.value(options[name])
                if value != option.default:
                    chosen.append((name, value))
        return {"options": tuple(sorted(chosen))}, self.name, self.title

    def check_gold(self, spec, labels):
        """A sentence saying why the gold's ``labels`` do not allow ``spec``, or None (default: they do)."""
        return None

    def signature(self, spec, gold):
        """The options behind ``spec``'s numbers in the field's own signature style, or None (default).

        Written into the signature after ``metric:`` (generation: sacrebleu's
        ``nrefs:2|case:mixed|eff:no|tok:13a|smooth:exp``), so a score can be
        matched with one computed by the field's reference tool.
        """
        return None

    # -- The formula ---------------------------------------------------------------------------------------------
    def score(self, sums, spec):
        """The score of every (re)sample: :attr:`formula` applied to the task's ``sums``."""
        if self.formula is None:
            raise NotImplementedError("metric %s.%s has no formula" % (self.task, self.name))
        return self.formula(sums, spec)


class Metrics(object):
    """The catalog of one task type's metrics: lookup by name and spelling, options, validation.

    Parameters
    ----------
    metrics : sequence of Metric
        In the order the reference lists them; names, aliases and shorthands
        must not collide.
    options : sequence of Option, optional
        Every option of the catalog, in the order the reference lists them,
        with their lines (default: the metrics' options in order of first appearance).

    Iterating gives the names; ``catalog[name]`` the :class:`Metric`.
    """

    def __init__(self, metrics, options=None):
        self._metrics = OrderedDict()
        self._options = None if options is None else tuple(options)
        self._spelled = {}
        for metric in metrics:
            if metric.name in self._metrics:
                raise ValueError("metric %s is defined twice" % metric.name)
            self._metrics[metric.name] = metric
        for metric in self._metrics.values():
            spellings = list(metric.aliases) + [s for s, _ in metric.shorthands]
            for spelling in spellings:
                if spelling in self._metrics or spelling in self._spelled:
                    raise ValueError("%s names two metrics" % spelling)
                self._spelled[spelling] = metric.name
        self._shorthands = dict((s, dict(o)) for m in self._metrics.values() for s, o in m.shorthands)
        if self._options is not None:
            listed = set(o.name for o in self._options)
            for metric in self._metrics.values():
                missing = [o.name for o in metric.options if o.name not in listed]
                if missing:
                    raise ValueError("metric %s's option %s is not in the catalog" % (metric.name, missing[0]))

    def __getitem__(self, name):
        return self._metrics[name]

    def __contains__(self, name):
        return name in self._metrics

    def __iter__(self):
        return iter(self._metrics)

    def __len__(self):
        return len(self._metrics)

    def values(self):
        return list(self._metrics.values())

    def items(self):
        return list(self._metrics.items())

    @property
    def aliases(self):
        """``{alias: metric name}`` of the plain aliases (no implied options)."""
        return dict((a, m.name) for m in self._metrics.values() for a in m.aliases)

    @property
    def shorthands(self):
        """``{spelling: (metric name, implied options)}`` of the spellings that imply options."""
        return dict((s, (self._spelled[s], dict(o))) for s, o in self._shorthand_items())

    def _shorthand_items(self):
        return [(s, o) for m in self._metrics.values() for s, o in m.shorthands]

    @property
    def options(self):
        """Every option name any metric of the catalog takes, in order of first appearance."""
        if self._options is not None:
            return tuple(o.name for o in self._options)
        names = []
        for metric in self._metrics.values():
            names.extend(o.name for o in metric.options if o.name not in names)
        return tuple(names)

    @property
    def option_docs(self):
        """``{option: its line in the reference}`` (the first metric's, when several take it)."""
        docs = OrderedDict((o.name, o.doc) for o in self._options or ())
        for metric in self._metrics.values():
            for option in metric.options:
                docs.setdefault(option.name, option.doc)
        return docs

    def resolve(self, name):
        """``(Metric, implied options)`` of a canonical spelling, or None.

        In order: an alias, a shorthand, a metric's own name, then each
        metric's open-ended spellings (:meth:`Metric.parse_name`).
        """
        if name in self._shorthands:
            return self._metrics[self._spelled[name]], dict(self._shorthands[name])
        name = self._spelled.get(name, name)
        if name in self._metrics:
            return self._metrics[name], {}
        for metric in self._metrics.values():
            implied = metric.parse_name(name)
            if implied is not None:
                return metric, dict(implied)
        return None

    def known_names(self):
        """One spelling of every metric, for messages and "did you mean"."""
        return [spelling for metric in self._metrics.values() for spelling in metric.known_names()]

    def make_spec(self, name, options, defaults):
        """``(fields, key, title)`` of metric ``name`` with ``options`` (see :meth:`Metric.make_spec`)."""
        return self._metrics[name].make_spec(options, defaults)

    def check_gold(self, specs, labels):
        """``(metric key, sentence)`` of the first of ``specs`` the gold's ``labels`` do not allow, or None."""
        for spec in specs:
            metric = self._metrics.get(spec.name)
            if metric is None or spec.task != metric.task:
                continue
            message = metric.check_gold(spec, labels)
            if message is not None:
                return spec.key, message
        return None
