"""Search the scoring program's outputs for anything that reveals the gold standard.

:func:`find_leaks` looks, in every text it is given, for

* a gold data line (``q7x-001,favor``);
* a gold id and its own gold label close together, in either order
  (``'q7x-001': 'favor'``, ``expected favor for q7x-001``);
* four consecutive gold labels in gold order (``favor, none, none, against``):
  the label sequence, however separated;
* a distinctive gold value (regression targets such as ``13.541471``).

Gold ids alone are public (messages may name missing ids), and so is the
label set (messages list the allowed labels).
"""

import re

_NEAR = 40
_WINDOW = 4


def parse_gold(text):
    """``(lines, pairs)`` of a delimited gold file: its data lines and (id, value) pairs."""
    rows = [line.strip() for line in text.splitlines()[1:] if "," in line]
    pairs = [tuple(field.strip() for field in line.split(",")[:2]) for line in rows]
    return rows, pairs


def _pair_patterns(ident, value):
    i, v = re.escape(ident), re.escape(value)
    near = r"[^\n]{0,%d}?" % _NEAR
    return [
        re.compile(r"(?<![\w-])%s(?![\w-])%s(?<![\w.])%s(?![\w.])" % (i, near, v)),
        re.compile(r"(?<![\w.])%s(?![\w.])%s(?<![\w-])%s(?![\w-])" % (v, near, i)),
    ]


def _sequence_patterns(values):
    """Patterns of the gold values in gold order, ``_WINDOW`` at a time (twice as many when short)."""
    wordy = all(len(v) >= 3 and not v[0].isdigit() for v in values)
    if wordy:  # words: any separator, even none ("favornoneagainst...")
        size, sep, before, after = _WINDOW, r"\W{0,3}", "", ""
    else:  # short codes such as 0/1/2: only as a list, so that digits of numbers do not match
        size, sep, before, after = 2 * _WINDOW, r"\s*[,;\t ]\s*", r"(?<![\w.])", r"(?![\w.])"
    out = []
    for start in range(0, max(0, len(values) - size + 1)):
        window = values[start : start + size]
        out.append(re.compile(before + sep.join(re.escape(v) for v in window) + after))
    return out


def find_leaks(texts, gold_text, distinctive_values=False):
    """Every gold leak found in ``texts`` (a mapping of where -> text), as readable strings.

    Parameters
    ----------
    texts : dict of str
        E.g. ``{"stderr": ..., "output/scores.json": ...}``.
    gold_text : str
        The gold file (CSV with a header; the first two columns are id and value).
    distinctive_values : bool
        Whether every gold value is distinctive on its own (regression
        targets), so that any occurrence of one is a leak.
    """
    lines, pairs = parse_gold(gold_text)
    values = [value for _, value in pairs]
    checks = [("gold line %r" % line, re.compile(re.escape(line))) for line in lines]
    for ident, value in pairs:
        checks += [("gold pair %s -> %s" % (ident, value), p) for p in _pair_patterns(ident, value)]
    checks += [("gold label sequence", p) for p in _sequence_patterns(values)]
    if distinctive_values:
        checks += [("gold value %s" % v, re.compile(r"(?<![\d.])%s(?!\d)" % re.escape(v))) for v in values]
    found = []
    for where, text in texts.items():
        for what, pattern in checks:
            match = pattern.search(text)
            if match:
                found.append("%s in %s: %r" % (what, where, match.group(0)))
    return found


def mentions_ids(texts, gold_text):
    """Gold ids found in ``texts`` (an output of a successful run should name none)."""
    _, pairs = parse_gold(gold_text)
    return [
        "%s in %s" % (ident, where)
        for where, text in texts.items()
        for ident, _ in pairs
        if re.search(r"(?<![\w-])%s(?![\w-])" % re.escape(ident), text)
    ]
