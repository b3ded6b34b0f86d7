"""Task types: how values are parsed and encoded, their per-item statistics and metrics.

Rule: modules here import only the standard library, numpy, ``core`` and ``tasks``; Python 3.7 syntax
(they run inside the stock Codabench images).

A task type is one module here that defines a subclass of
:class:`leaderboard_ci.tasks.protocol.TaskType` (the protocol, with no-op defaults for
every optional hook) and its instance ``TASK``, registered in
:data:`leaderboard_ci.tasks.registry.TASKS`.  Nothing else in the package names a task type.
What each attribute means, and the tests a task ships: ``docs/adding_a_task_type.md``.
"""
