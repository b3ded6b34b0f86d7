"""Words of the messages participants read."""


def counted(n, noun, plural=None):
    """``'1 line'``, ``'3 lines'``: a count with its noun in the right number (``plural`` when not ``noun + 's'``)."""
    return "%d %s" % (n, noun if n == 1 else (plural or noun + "s"))
