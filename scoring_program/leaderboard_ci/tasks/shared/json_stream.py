"""A JSON document read as a stream: bounded memory, C-speed decoding, exact line numbers.

Large JSON documents are often one line (``json.dump`` writes no line ends): a
COCO results file of a few million boxes is hundreds of MB, which ``json.load``
would turn into gigabytes of dictionaries.  :class:`JsonStream` reads the decoded
chunks of the file (``TextFile.chunks``) and keeps only the text not consumed
yet.  A caller reads it value by value (:meth:`JsonStream.value`, the members of
an object or list with :meth:`JsonStream.members`: the scoring program's JSON
tables), or takes the records of a list in batches (:meth:`JsonStream.batches`),
converts them to arrays and drops them (the detection task's COCO files).

A batch is decoded by one ``json.loads`` of a slice of the list that ends
right after a record (at a ``},``): if every slice of the list parses as JSON,
the list's parse is the concatenation of theirs (a JSON text has one parse,
so a cut can only fall between two records), whatever the slices' sizes.
When a slice does not parse (a cut inside a record, or an error), that part is
read again record by record (``raw_decode``), which finds the first malformed
record and its line.  A record the caller refuses is located the same way
(:meth:`Batch.line_of`).

Bounds: a single value longer than :data:`MAX_VALUE_CHARS` characters, nesting
deeper than Python's recursion limit and integers of more than 4,000 digits
(kept as :class:`~leaderboard_ci.tasks.shared.json_documents.LongNumber`, or what
``parse_int`` makes of them) are refused or left for the caller to refuse, each
with a sentence naming the line; a subclass words the sentences (the ``*_message`` methods).

Standard library only (Python 3.7).
"""

from __future__ import annotations

import json
import re

from . import json_documents

__all__ = ["JsonStream", "Batch", "MAX_VALUE_CHARS", "BATCH_CHARS"]

#: The longest single JSON value (one record) read: 32 Mi characters.
MAX_VALUE_CHARS = 1 << 25
#: About this many characters of a list are decoded at once.
BATCH_CHARS = 1 << 22
_SPACE = re.compile(r"[ \t\n\r]*")


class Batch(object):
    """Consecutive records of a list: ``values``, and how to find the line of each.

    ``lines`` is the line of each record when the batch was read record by
    record, else None (then :meth:`line_of` decodes the batch's text again).
    """

    def __init__(self, stream, values, text, first_line, lines=None):
        self.values = values
        self._stream = stream
        self._text = text
        self._first_line = first_line
        self.lines = lines

    def line_of(self, index):
        """The line where record ``index`` of the batch starts."""
        if self.lines is not None:
            return self.lines[index]
        return self._lines(index + 1)[index]

    def all_lines(self):
        """The line where each record of the batch starts."""
        if self.lines is None:
            self.lines = self._lines(len(self.values))
        return self.lines

    def _lines(self, count):
        """The lines of the first ``count`` records, decoding the batch's text again."""
        decoder, text, pos, line, previous = self._stream.decoder, self._text, 0, self._first_line, 0
        out = []
        for _ in range(count):
            start = _SPACE.match(text, pos).end()
            if text.startswith(",", start):
                start = _SPACE.match(text, start + 1).end()
            line += text.count("\n", previous, start)
            previous = start
            out.append(line)
            pos = json_documents.paused_collection(decoder.raw_decode, text, start)[1]
        return out


class JsonStream(object):
    """A JSON document read from ``(text, final)`` chunks (see the module docstring).

    Parameters
    ----------
    source : Source
        The file: its errors name it and the line.
    chunks : iterator of (str, bool)
        The decoded text in order, ``final`` True on the last chunk.
    expected : str
        The expected shape, for messages.
    parse_int : callable
        How integers are decoded (default: ``int``, or a ``LongNumber`` beyond 4,000 digits).
    """

    def __init__(self, source, chunks, expected, parse_int=json_documents.integer):
        self.source = source
        self.expected = expected
        self._chunks = iter(chunks)
        self._parse_int = parse_int
        self.decoder = json.JSONDecoder(parse_int=parse_int)
        self.text = ""
        self.pos = 0
        self.done = False
        self._seen = 0
        self._line = 1

    # -- position, lines and errors ---------------------------------------------------------------------------------
    def line_at(self, pos):
        """The line of position ``pos`` of the current text (positions only move forward)."""
        if pos > self._seen:
            self._line += self.text.count("\n", self._seen, pos)
            self._seen = pos
        return self._line

    def error(self, message, pos=None):
        return self.source.at(self.line_at(self.pos if pos is None else pos), message)

    def _more(self, wanted):
        """Read chunks until ``wanted`` characters are left after the position (or the end); False at the end."""
        if self.done:
            return False
        if self.pos > (1 << 20):  # drop what is consumed
            self.line_at(self.pos)
            self.text, self._seen, self.pos = self.text[self.pos :], self._seen - self.pos, 0
        added = []
        left = len(self.text) - self.pos
        while left < wanted and not self.done:
            text, final = next(self._chunks, ("", True))
            added.append(text)
            left += len(text)
            self.done = final
        self.text += "".join(added)
        return True

    def peek(self):
        """The next character that is not white space ('' at the end)."""
        while True:
            self.pos = _SPACE.match(self.text, self.pos).end()
            if self.pos < len(self.text):
                return self.text[self.pos]
            if not self._more(1):
                return ""

    # -- values -----------------------------------------------------------------------------------------------------
    def value(self):
        """Decode the value at the position (reading more chunks while it is cut off)."""
        self.peek()
        while True:
            try:
                value, end = json_documents.paused_collection(self.decoder.raw_decode, self.text, self.pos)
            except json.JSONDecodeError as exc:
                left = len(self.text) - self.pos
                if not self.done and (exc.pos >= len(self.text) - 6 or exc.msg.startswith("Unterminated")):
                    self._check_size(left)
                    self._more(2 * left + 1)
                    continue
                raise self.error(self.invalid_message("%s, column %d" % (exc.msg, exc.colno)), exc.pos)
            except RecursionError:
                raise self.error(self.nested_message())
            if end >= len(self.text) and not self.done:  # a number may go on in the next chunk
                self._check_size(len(self.text) - self.pos)
                self._more(2 * (len(self.text) - self.pos) + 1)
                continue
            self.pos = end
            return value

    def _check_size(self, chars):
        if chars > MAX_VALUE_CHARS:
            raise self.error(self.long_message(MAX_VALUE_CHARS))

    # -- the sentences (a subclass words them for its readers) --------------------------------------------------
    def invalid_message(self, what):
        """Malformed JSON: ``what`` says what the parser found."""
        return "not valid JSON (%s); expected %s" % (what, self.expected)

    def nested_message(self):
        return "the JSON is nested too deeply (hundreds of levels); expected %s" % self.expected

    def long_message(self, limit):
        return "a single JSON value here is longer than {:,} characters; expected {}".format(limit, self.expected)

    def extra_message(self):
        return self.invalid_message("extra data after the end of the document")

    def expect_start(self, opening, found_message):
        """Check that the next character opens the expected container (``found_message(char)`` otherwise).

        An empty or blank file is named as a whole (``found_message("")``), anything else by its line.
        """
        char = self.peek()
        if char != opening:
            raise self.source.whole(found_message(char)) if not char else self.error(found_message(char))

    def members(self):
        """Yield ``(line, key)`` for each member of the object or list at the position (``key`` None in a list).

        The caller reads each member's value (:meth:`value`, :meth:`batches` or a nested
        :meth:`members`) before asking for the next.
        """
        closing = "]" if self.peek() == "[" else "}"
        self.pos += 1
        if self.peek() == closing:
            self.pos += 1
            return
        while True:
            key = None
            if closing == "}":
                if self.peek() != '"':
                    raise self.error(self.invalid_message("expected a key in double quotes"))
                key = self.value()
                if self.peek() != ":":
                    raise self.error(self.invalid_message("expected ':' after a key"))
                self.pos += 1
            self.peek()
            yield self.line_at(self.pos), key
            if self._after_member(closing):
                return

    def _after_member(self, closing):
        """Step over the ``,`` after a member (False) or the ``closing`` character (True)."""
        after = self.peek()
        if after == ",":
            self.pos += 1
            return False
        if after == closing:
            self.pos += 1
            return True
        if after == "":
            raise self.error(self.invalid_message("the file ends before the closing '%s'" % closing))
        raise self.error(self.invalid_message("expected ',' or '%s'" % closing))

    def batches(self):
        """Yield :class:`Batch` es of the records of the list at the position, in order."""
        self.pos += 1
        if self.peek() == "]":
            self.pos += 1
            return
        while True:
            self._more(BATCH_CHARS)
            start = self.pos
            values, cut = self._fast_batch(start)
            if values is not None:
                line = self.line_at(start)
                batch = Batch(self, values, self.text[start : cut + 1], line)
                self.pos = cut + 2
                yield batch
                continue
            finished, batch = self._slow_batch(start + max(cut - start, 1))
            yield batch
            if finished:
                return

    def _fast_batch(self, start):
        """``(records, position of the last one's "}")`` of a slice of the list, or ``(None, cut)``.

        The slice ends at a ``},`` before the first ``}]`` of the window (the list's likely end, when
        another list follows it), else at the window's last ``},``.
        """
        window = start + BATCH_CHARS
        end = self.text.find("}]", start, window)
        cuts = [self.text.rfind("},", start, end)] if end > start else []
        cuts.append(self.text.rfind("},", start, window))
        for cut in cuts:
            if cut > start:
                try:
                    text = "[" + self.text[start : cut + 1] + "]"
                    return json_documents.loads(text, parse_int=self._parse_int), cut
                except (ValueError, RecursionError):
                    pass
        return None, cuts[-1]

    def _slow_batch(self, until):
        """Records one by one up to position ``until`` (or the list's end): ``(list ended, Batch)``."""
        values, lines = [], []
        while True:
            self.peek()
            lines.append(self.line_at(self.pos))
            values.append(self.value())
            if self._after_member("]"):
                return True, Batch(self, values, None, lines[0], lines)
            if self.pos >= until:
                return False, Batch(self, values, None, lines[0], lines)

    def finish(self):
        """Check that nothing but white space follows the document."""
        if self.peek() != "":
            raise self.error(self.extra_message())
