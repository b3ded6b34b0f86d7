"""A task type's own top-level ``config.yaml`` keys, as a frozen dataclass: :class:`TaskSettings`.

Each task type declares its settings as a subclass whose fields are made by
:func:`setting` (default, the reference's line, the parser)::

    @dataclass(frozen=True)
    class SequenceSettings(TaskSettings):
        scheme: str = setting("IOB2", "IOB1, IOB2, IOE1, IOE2, IOBES or BILOU.", parse=_scheme)
        unit: str = setting("sentence", "The resampling unit: sentence or document.", parse=_unit)

The configuration reads the keys the subclass declares (:meth:`TaskSettings.keys`),
builds the instance with :meth:`TaskSettings.parse` and cross-checks it with the
metrics (:meth:`TaskSettings.check`).  The instance reaches every function of the
task: the readers (``ReadContext.settings``), the in-memory encoding and the
statistics (``GoldStandard.settings``).  It holds hashable values only (tuples,
not lists or dicts), so configurations compare and hash.

These are only the task's *own* keys; what the readers also need from the
configuration (the ``files:`` columns, the configured labels, the metrics) is
:class:`~leaderboard_ci.tasks.protocol.ReadContext`.

Python 3.7, the standard library only.
"""

from __future__ import annotations

from dataclasses import dataclass, field, fields

__all__ = ["TaskSettings", "setting"]


def setting(default=None, doc="", parse=None):
    """A field of a :class:`TaskSettings` subclass.

    Parameters
    ----------
    default : hashable
        The value when ``config.yaml`` does not give the key.
    doc : str
        The key's line in the generated configuration reference.
    parse : callable, optional
        ``parse(value) -> hashable value``: the value ``config.yaml`` gives
        (``None`` for ``key: null``), validated and normalized; raises
        ValueError with a sentence naming the key, what was given and what
        is allowed.  None: the value is kept as given.
    """
    return field(default=default, metadata={"doc": doc, "parse": parse})


@dataclass(frozen=True)
class TaskSettings:
    """The settings of a task type with no keys of its own; the base of every task's settings.

    Subclasses add fields made by :func:`setting` and may override
    :meth:`check` and :meth:`organizer_warnings`.
    """

    @classmethod
    def keys(cls):
        """The top-level keys this task owns, in declaration order."""
        return tuple(f.name for f in fields(cls))

    @classmethod
    def docs(cls):
        """``{key: its line in the configuration reference}``."""
        return dict((f.name, f.metadata.get("doc", "")) for f in fields(cls))

    @classmethod
    def defaults(cls):
        """``{key: default}``."""
        return dict((f.name, f.default) for f in fields(cls))

    @classmethod
    def of(cls, gold):
        """The settings a :class:`~leaderboard_ci.tasks.shared.base.GoldStandard` carries.

        The defaults when it carries none, or another task's (``scores`` scores its labels with
        ``classification``'s statistics).
        """
        return cls.given(gold.settings)

    @classmethod
    def given(cls, settings):
        """``settings`` when it is this task's (a ``ReadContext``'s, the in-memory API's), else the defaults."""
        return settings if isinstance(settings, cls) else cls()

    @classmethod
    def parse(cls, values):
        """The settings from ``{key: value}`` of the keys ``config.yaml`` gives (ValueError naming the key).

        Each given key goes through its field's ``parse``; the others take their defaults.
        """
        unknown = sorted(set(values) - set(cls.keys()))
        if unknown:
            raise ValueError("%s is not a setting of this task type" % unknown[0])
        given = {}
        for f in fields(cls):
            if f.name in values:
                parse = f.metadata.get("parse")
                given[f.name] = values[f.name] if parse is None else parse(values[f.name])
        return cls(**given)

    def check(self, metrics, labels):
        """Cross-check the settings with the configured ``metrics`` and ``labels`` (ValueError; default: none).

        E.g. a coarse-level metric needs a hierarchy; a hierarchy must name
        labels of the configured label set.
        """
        return None

    def organizer_warnings(self, labels, source):
        """Sentences for the organizer about settings that weaken participants' messages (default: none).

        ``labels`` is the configured label set (None: read from the gold), ``source`` the config's name.
        """
        return ()
