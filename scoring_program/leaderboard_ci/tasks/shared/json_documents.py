"""The members of a JSON document's top-level object or list, with the line each starts on.

One reader for the task types whose files are one JSON document (SQuAD
answers, multilabel JSON): the document is read whole (a minified file is one
line of any length; the file's size is limited before reading), its members
decoded one at a time with the line each starts on (counted incrementally, so
reading is linear in the file), and what Python's ``json`` refuses or cannot
hold becomes one sentence naming the line and the expected shape:

* an integer of more digits than Python converts (``sys.set_int_max_str_digits``,
  4,300 by default since Python 3.11) is kept as a :class:`LongNumber`, which
  a reader reports as "a JSON number" like any other number it does not take;
* nesting deeper than Python's recursion limit is "nested too deeply; expected
  <shape>" (decoded with the garbage collector paused: :func:`paused_collection`).

Standard library only (Python 3.7).
"""

import gc
import json
import re

__all__ = ["LongNumber", "integer", "may_hold_long", "kind", "document_text", "members", "paused_collection", "loads"]

_SPACE = re.compile(r"[ \t\n\r]*")
_LONG_DIGITS = 4000
#: Texts shorter than this nest at most this deep: far from the recursion limit (1,000 frames) wherever read.
_SHALLOW = 200
#: A digit run of ``_LONG_DIGITS`` or more covers at least this many consecutive characters of ``text[::_STRIDE]``.
_STRIDE = 250
_SAMPLED_RUN = re.compile(r"[0-9]{%d}" % (_LONG_DIGITS // _STRIDE))
_LONG_RUN = re.compile(r"[0-9]{%d}" % _LONG_DIGITS)


def paused_collection(decode, *args, **kwargs):
    """``decode(*args, **kwargs)`` (a ``json`` decoding call) with Python's garbage collector paused.

    ``json`` recurses once per level of nesting.  A collection that starts deep in that recursion (one
    is due every few hundred new lists) runs the finalizers of whatever garbage waits with almost no
    stack left; their RecursionError is printed as "Exception ignored in ..." on stderr, which is what
    a participant reads.  Paused, the collection waits until the decoding has returned or failed with
    the reader's sentence.  (Process-wide, as the collector is; left alone when already paused.)
    A text shorter than ``_SHALLOW`` characters (a JSON Lines file's usual line) is decoded as it is: it
    cannot nest deeper than its length, so the recursion stays hundreds of frames short of the limit;
    pausing costs a third of such a line's decoding time.
    """
    if not gc.isenabled() or (args and isinstance(args[0], str) and len(args[0]) < _SHALLOW):
        return decode(*args, **kwargs)
    gc.disable()
    try:
        return decode(*args, **kwargs)
    finally:
        gc.enable()


def may_hold_long(text):
    """Whether ``text`` may hold a JSON integer of more than 4,000 characters (a run of 4,000 digits or more).

    A run of ``L >= 4000`` digits covers ``floor(L / 250) >= 16`` consecutive characters of the sample
    ``text[::250]``; only when the sample holds 16 digits in a row is the whole text searched.  Both are C
    scans: the sample is 1/250 of the text, and an honest text (numbers of a few dozen digits) seldom
    reaches the whole-text search (no slice of the 10^6-detection benchmark file does; with a stride of
    500 and 8 digits, 2 of its 18 did), which costs half a ``json.loads`` of the same text.
    """
    return _SAMPLED_RUN.search(text[::_STRIDE]) is not None and _LONG_RUN.search(text) is not None


def loads(text, **kwargs):
    """``json.loads(text, **kwargs)`` with the garbage collector paused (:func:`paused_collection`).

    With ``parse_int=integer`` and a text that holds no run of 4,000 digits (:func:`may_hold_long`), the
    hook is left out: every integer is then ``int(text)`` either way, and the decoder's C path, which
    converts integers itself, is a third faster on a list of numbers than calling the hook millions of times.
    """
    if kwargs.get("parse_int") is integer and not may_hold_long(text):
        del kwargs["parse_int"]
    return paused_collection(json.loads, text, **kwargs)


class LongNumber(object):
    """A JSON integer too long for ``int()`` on every Python: its text, never converted."""

    __slots__ = ("text",)

    def __init__(self, text):
        self.text = text

    def __str__(self):
        return self.text

    __repr__ = __str__  # inside a quoted list or object (a bbox), its digits, never the class's name


def integer(text):
    """``parse_int`` of a JSON decoder: an int, or a :class:`LongNumber` beyond 4,000 digits."""
    return int(text) if len(text) <= _LONG_DIGITS else LongNumber(text)


def kind(value):
    """The JSON type of a decoded value, for messages: null, boolean, number, list, object, string."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, (int, float, LongNumber)):
        return "number"
    if isinstance(value, list):
        return "list"
    if isinstance(value, dict):
        return "object"
    return "string"


def document_text(lines):
    """The whole text of a file: a TextFile's :meth:`text`, or ``(line, text)`` pairs joined."""
    if hasattr(lines, "text"):
        return lines.text()
    return "\n".join(text for _, text in lines)


class _Lines(object):
    """The line of a position of ``text``, counted from the last position asked (positions only grow)."""

    def __init__(self, text):
        self.text, self.offset, self.line = text, 0, 1

    def __call__(self, pos):
        if pos < self.offset:
            return self.text.count("\n", 0, pos) + 1
        self.line += self.text.count("\n", self.offset, pos)
        self.offset = pos
        return self.line


def _one_line_list(decoder, text):
    """A one-line document that is a JSON list, decoded at once (the C decoder: a few times faster than member by
    member), or None: anything else, valid or not, is read member by member, which names an error's line."""
    try:
        value = paused_collection(decoder.decode, text)
    except (ValueError, RecursionError):
        return None
    return value if isinstance(value, list) else None


def members(source, text, expected, allow_list=False):
    """Yield ``(line, key, value)`` for the members of the top-level object (``key`` None for a list's items).

    Parameters
    ----------
    source : Source
        The file (its errors name it).
    text : str
        The whole document (:func:`document_text`).
    expected : str
        The expected shape, for messages (``{"question id": "answer text", ...}``).
    allow_list : bool
        Whether a top-level list is read too (else it is an error naming ``expected``).
    """
    decoder = json.JSONDecoder(parse_int=integer)
    if allow_list and "\n" not in text:  # one line (a minified run, as json.dump writes it): every member is on line 1
        whole = _one_line_list(decoder, text)
        if whole is not None:
            for value in whole:
                yield 1, None, value
            return
    line_of = _Lines(text)

    def space(pos):
        return _SPACE.match(text, pos).end()

    def value_at(pos):
        try:
            return paused_collection(decoder.raw_decode, text, pos)
        except RecursionError:
            raise source.at(line_of(pos), "the JSON is nested too deeply; expected %s" % expected)
        except ValueError as exc:
            line = getattr(exc, "lineno", None) or line_of(pos)
            raise source.at(line, "not valid JSON (%s); expected %s" % (getattr(exc, "msg", "error"), expected))

    pos = space(0)
    if pos == len(text):
        raise source.whole("is empty; expected %s" % expected)
    opening = text[pos]
    if opening not in "{[" or (opening == "[" and not allow_list):
        shown = "is a JSON list; expected a JSON object" if opening == "[" else "does not start a JSON object; expected"
        raise source.at(line_of(pos), "%s %s" % (shown, expected))
    closing = "}" if opening == "{" else "]"
    pos = space(pos + 1)
    if text.startswith(closing, pos):
        pos = space(pos + 1)
    else:
        while True:
            line = line_of(pos)
            key = None
            if closing == "}":
                if not text.startswith('"', pos):
                    raise source.at(line, "not valid JSON (expected a key in double quotes); expected %s" % expected)
                key, pos = value_at(pos)
                pos = space(pos)
                if not text.startswith(":", pos):
                    raise source.at(line_of(pos), "not valid JSON (expected ':' after a key); expected %s" % expected)
                pos = space(pos + 1)
            value, pos = value_at(pos)
            yield line, key, value
            pos = space(pos)
            if text.startswith(",", pos):
                pos = space(pos + 1)
            elif text.startswith(closing, pos):
                pos = space(pos + 1)
                break
            else:
                raise source.at(
                    line_of(min(pos, max(len(text) - 1, 0))),
                    "not valid JSON (expected ',' or '%s'); expected %s" % (closing, expected),
                )
    if pos != len(text):
        raise source.at(
            line_of(pos), "not valid JSON (extra data after the object); expected one JSON document %s" % expected
        )
