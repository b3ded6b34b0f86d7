"""The configuration schema: each section's keys, types, defaults and documentation, from its dataclass.

A section of ``config.yaml`` (``bootstrap:``, ``files:``, ...) is a frozen dataclass
whose fields are its keys.  A field declared with :func:`setting` carries, in its
``metadata``, a one-line description and the :class:`Check` that validates a value
and normalizes it; the field's default is the key's default.  One function,
:func:`validate_section`, reads a section's mapping against its dataclass: unknown
keys (with "did you mean"), wrong types and out-of-range values, each a
:class:`~leaderboard_ci.scoring.errors.ConfigError` of one sentence naming the
file and the key.  :func:`schema_rows` gives the same facts to the configuration
reference page (``docs/configuration.md``), which is generated from them.

Python 3.7 and the standard library only: this runs in the per-submission program.
"""

from __future__ import annotations

import difflib
import numbers
import os
from dataclasses import MISSING, field, fields

from .errors import ConfigError

__all__ = [
    "setting",
    "Setting",
    "Check",
    "Integer",
    "Number",
    "Choice",
    "lower",
    "Flag",
    "Name",
    "Nullable",
    "Delegate",
    "ListOf",
    "validate_section",
    "setting_fields",
    "section_keys",
    "default_value",
    "schema_rows",
    "unknown_key",
    "default_text",
]

#: The metadata key under which :func:`setting` stores a field's :class:`Setting`.
SCHEMA = "leaderboard_ci.schema"


class Setting(object):
    """What the schema knows of one key beyond its name and default.

    ``doc``: one sentence for the reference page.  ``check``: a :class:`Check`
    (None: any value, checked by the section's ``_finish``).  ``kind``: how the
    reference page names the type (default: the check's).  ``default_doc``: the
    default as the reference page states it, when the dataclass default does not
    say it (a default that depends on other keys).  ``section``: the dataclass of
    a nested section.  ``shorthand``: for a section, the key a bare string sets
    (``groups: language`` is ``groups: {column: language}``).  ``rows``: for a
    field that several keys build (``metric`` and ``extra_metrics``), their
    ``(key, kind, default, doc)`` rows for the reference page.
    """

    def __init__(self, doc, check=None, kind=None, default_doc=None, section=None, shorthand=None, rows=None):
        self.doc = doc
        self.check = check
        self.kind = kind if kind is not None else (check.kind if check is not None else "")
        self.default_doc = default_doc
        self.section = section
        self.shorthand = shorthand
        self.rows = rows


def setting(default=MISSING, doc="", check=None, default_factory=MISSING, **kwargs):
    """A dataclass field that is a ``config.yaml`` key: ``default``, one-line ``doc`` and the ``check``."""
    metadata = {SCHEMA: Setting(doc, check, **kwargs)}
    if default_factory is not MISSING:
        return field(default_factory=default_factory, metadata=metadata)
    if default is MISSING:
        return field(metadata=metadata)
    return field(default=default, metadata=metadata)


def setting_fields(cls):
    """The fields of ``cls`` that are keys, in order, as ``(field, Setting)`` pairs."""
    return [(f, f.metadata[SCHEMA]) for f in fields(cls) if SCHEMA in f.metadata]


def section_keys(cls):
    """The keys of a section (or of the top level), in order."""
    keys = []
    for f, s in setting_fields(cls):
        if s.rows:
            keys.extend(row[0] for row in s.rows)
        else:
            keys.append(f.name)
    return tuple(keys)


def _required(f):
    return f.default is MISSING and f.default_factory is MISSING


def default_value(f):
    """A field's default value (MISSING for a required key)."""
    if f.default is not MISSING:
        return f.default
    if f.default_factory is not MISSING:
        return f.default_factory()
    return MISSING


# ---------------------------------------------------------------------------
# Checks: each validates one value, names the key in its message and returns the value to keep
# ---------------------------------------------------------------------------
class Check(object):
    """Validate ``value`` for the key named by ``where`` (``"config.yaml: bootstrap.seed"``)."""

    kind = "any value"

    def __call__(self, value, where):
        return value


class Integer(Check):
    def __init__(self, low, high):
        self.low, self.high = low, high
        self.kind = "integer from %s to %s" % (low, high)

    def __call__(self, value, where):
        if isinstance(value, bool) or not isinstance(value, numbers.Integral) or not self.low <= value <= self.high:
            raise ConfigError("%s must be an integer from %d to %d, got %r" % (where, self.low, self.high, value))
        return int(value)


class Number(Check):
    def __init__(self, low, high, low_open=True, high_open=True, kind=None):
        self.low, self.high, self.low_open, self.high_open = low, high, low_open, high_open
        self.kind = kind or "number %s %g and %s %g" % (
            ">" if low_open else ">=",
            low,
            "<" if high_open else "<=",
            high,
        )

    def __call__(self, value, where):
        ok = isinstance(value, numbers.Real) and not isinstance(value, bool)
        if ok:
            value = float(value)
            ok = (value > self.low if self.low_open else value >= self.low) and (
                value < self.high if self.high_open else value <= self.high
            )
        if not ok:
            raise ConfigError(
                "%s must be a number %s %g and %s %g, got %r"
                % (where, ">" if self.low_open else ">=", self.low, "<" if self.high_open else "<=", self.high, value)
            )
        return value


class Choice(Check):
    """One of ``choices`` (after ``normalize``, e.g. ``str.lower``); a boolean is never a choice."""

    def __init__(self, choices, normalize=None, phrase=None):
        self.choices, self.normalize, self.phrase = choices, normalize, phrase

    @property
    def kind(self):
        return self.phrase or "one of: %s" % ", ".join(str(c) for c in self.choices)

    def __call__(self, value, where):
        if self.normalize is not None:
            value = self.normalize(value)
        if isinstance(value, bool) or value not in self.choices:
            raise ConfigError("%s must be %s, got %r" % (where, self.kind, value))
        return value


def lower(value):
    """``str(value).lower()``: choices such as ``bootstrap.method`` are not case-sensitive."""
    return str(value).lower()


class Flag(Check):
    kind = "true or false"

    def __call__(self, value, where):
        if not isinstance(value, bool):
            raise ConfigError("%s must be true or false, got %r" % (where, value))
        return value


class Name(Check):
    """A non-empty name (a string, or a number read as one); ``file``: a file name inside its folder."""

    def __init__(self, file=False):
        self.file = file
        self.kind = "file name" if file else "name"

    def __call__(self, value, where):
        if isinstance(value, bool):
            raise ConfigError(
                "%s is %r because YAML reads yes/no/on/off/true/false as booleans; "
                'quote it (e.g. "yes")' % (where, value)
            )
        if not isinstance(value, (str, int)) or str(value).strip() == "":
            raise ConfigError("%s must be a non-empty name, got %r" % (where, value))
        name = str(value).strip()
        if self.file and (os.path.isabs(name) or ".." in name.replace("\\", "/").split("/")):
            raise ConfigError("%s must be a file name inside its folder, got %r" % (where, value))
        return name


class Nullable(Check):
    """``check``, or null (None)."""

    def __init__(self, check):
        self.check = check
        self.kind = "%s, or null" % check.kind

    def __call__(self, value, where):
        return None if value is None else self.check(value, where)


class Delegate(Check):
    """A check of the core (``check_seed``...): its ValueError/TypeError, which names the key, as a ConfigError."""

    def __init__(self, function, kind):
        self.function, self.kind = function, kind

    def __call__(self, value, where):
        try:
            return self.function(value)
        except (TypeError, ValueError) as exc:
            raise ConfigError("%s.%s" % (where.rsplit(".", 1)[0], exc))


class ListOf(Check):
    """A list of values each passing ``item``; a single value stands for a list of one when ``single``."""

    def __init__(self, item, what="a list", min_length=0, single=False, indexed=False, unique=None):
        self.item, self.what, self.min_length, self.single, self.indexed = item, what, min_length, single, indexed
        self.unique = unique  # None, or the message's tail when an entry repeats ("lists a class twice")
        self.kind = "list of %s" % ("%ss" % item.kind if not isinstance(item, Choice) else "(%s)" % item.kind)

    def __call__(self, value, where):
        if self.single and isinstance(value, str):
            value = [value]
        if isinstance(value, (str, bytes)) or not isinstance(value, (list, tuple)) or len(value) < self.min_length:
            raise ConfigError("%s must be %s, got %r" % (where, self.what, value))
        out = tuple(self.item(v, "%s[%d]" % (where, i) if self.indexed else where) for i, v in enumerate(value))
        if self.unique and len(set(out)) != len(out):
            raise ConfigError("%s %s: %s" % (where, self.unique, ", ".join(str(v) for v in out)))
        return out


# ---------------------------------------------------------------------------
# The validator
# ---------------------------------------------------------------------------
def unknown_key(where, key, allowed, others=None, also=()):
    """The message for an unknown ``key`` (``where`` names it): a close match, the allowed keys.

    ``others``: ``{section name: its keys}`` of the other sections, so that a key put in the
    wrong section is pointed to the right one (``bootstrap.alpha``: did you mean ``analysis.alpha``?).
    ``also``: more keys to suggest that ``allowed`` does not list (the task types' own settings).
    """
    close = difflib.get_close_matches(str(key), [str(a) for a in tuple(allowed) + tuple(also)], n=1, cutoff=0.75)
    hint = (
        close[0]
        if close
        else next((("%s.%s" % (name, key)) for name, keys in sorted((others or {}).items()) if key in keys), None)
    )
    return ConfigError(
        "%s is not a known key%s; allowed: %s"
        % (where, " (did you mean %r?)" % hint if hint else "", ", ".join(allowed))
    )


def validate_section(cls, value, name, source, others=None):
    """Read one section's mapping against its dataclass ``cls``; returns a ``cls`` instance.

    Parameters
    ----------
    cls : dataclass type
        Its :func:`setting` fields are the keys; a classmethod ``_finish(values, where)``
        may check keys against each other and fill defaults that depend on other keys.
    value : dict or None
        The section as read from YAML (None: every default).
    name : str
        The section's key (``"bootstrap"``), to name keys in messages.
    source : str
        How messages name the file (``"config.yaml"``, ``"config.yaml + ref/config.yaml"``).
    others : dict, optional
        ``{section name: keys}`` of the other sections, for "did you mean".

    Raises
    ------
    ConfigError
        One sentence naming the file and the key.
    """
    where = "%s: %s" % (source, name)
    keys = section_keys(cls)
    if value is None:
        value = {}
    shorthand = getattr(cls, "_shorthand", None)
    if shorthand is not None and isinstance(value, str):
        value = {shorthand[0]: value}
    if not isinstance(value, dict):
        raise ConfigError(
            "%s must be %sa mapping (keys: %s), got %r"
            % (where, "%s or " % shorthand[1] if shorthand else "", ", ".join(keys), value)
        )
    unknown = sorted(set(value) - set(keys), key=str)
    if unknown:
        raise unknown_key("%s.%s" % (where, unknown[0]), unknown[0], keys, others)
    values = {}
    for f, s in setting_fields(cls):
        if f.name in value or _required(f):
            values[f.name] = s.check(value.get(f.name), "%s.%s" % (where, f.name)) if s.check else value.get(f.name)
    finish = getattr(cls, "_finish", None)
    if finish is not None:
        values = finish(values, where)
    return cls(**values)


# ---------------------------------------------------------------------------
# The facts for the reference page
# ---------------------------------------------------------------------------
def default_text(f, s):
    """A key's default as the reference page states it, and whether it is a literal value (else prose)."""
    if s.default_doc is not None:
        return s.default_doc, False
    default = default_value(f)
    if default is MISSING:
        return "(required)", False
    if s.section is not None:
        return ("null", True) if default is None else ("", False)
    if default is None:
        return "null", True
    if isinstance(default, bool):
        return ("true" if default else "false"), True
    if isinstance(default, tuple):
        return "[%s]" % ", ".join(str(v) for v in default), True
    return str(default), True


def schema_rows(cls):
    """``(key, kind, default, literal, doc, section class or None)`` for every key of ``cls``, in order.

    ``literal``: whether ``default`` is a value as written in YAML (else words: "(required)",
    "the labels of the gold").
    """
    rows = []
    for f, s in setting_fields(cls):
        if s.rows:
            rows.extend((key, kind, default, default.startswith("["), doc, None) for key, kind, default, doc in s.rows)
        else:
            rows.append((f.name, s.kind) + default_text(f, s) + (s.doc, s.section))
    return rows
