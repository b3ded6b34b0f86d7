"""Whether the first line of a table is its header or already its first data row.

A file that should start with a header (``id,label``, ``unique_id,ds,y``,
``model_a,model_b,winner``) but lacks the expected columns is most often a
file written without one.  Telling the two apart changes the message from
"the header has no column 'label'" to "the first line is data, not a header",
which names the actual mistake.

:func:`first_row_is_data` judges the first row by the file's own rows only
(never by a gold fact), so it serves the gold, the organizer's other files and
a participant's file alike.  Standard library only (Python 3.7).
"""

from .numbers import finite_number

__all__ = ["first_row_is_data", "DATA_NOT_HEADER", "FOLLOWING_ROWS"]

#: How many rows after the first :func:`first_row_is_data` looks at.
FOLLOWING_ROWS = 50

#: The sentence every reader says, followed by the expected header.
DATA_NOT_HEADER = "the first line is data, not a header; start the file with the header %s"


def first_row_is_data(first, following=(), names=()):
    """Whether the would-be header ``first`` is a data row.

    A header names columns: none of its fields is a number, and none recurs in
    its column below it.  A data row has a number (an id, a score, a count)
    or a value that the rows after it repeat in the same column (a class
    label, a series id, a model's name).  A first row that holds one of the
    expected column ``names`` is a header (with a mistake elsewhere).

    Parameters
    ----------
    first : sequence of str
        The first non-blank row's fields.
    following : iterable of sequence of str
        The rows after it (up to :data:`FOLLOWING_ROWS` are read).
    names : iterable of str
        The column names the file should have (compared without case).

    Returns
    -------
    bool
    """
    fields = [field.strip() for field in first]
    wanted = set(name.casefold() for name in names if name)
    if any(field.casefold() in wanted for field in fields):
        return False
    if any(field and finite_number(field) is not None for field in fields):
        return True
    seen = [set() for _ in fields]
    for count, row in enumerate(following):
        if count >= FOLLOWING_ROWS:
            break
        for k, field in enumerate(row[: len(fields)]):
            seen[k].add(field.strip())
    return any(field and field in column for field, column in zip(fields, seen))
