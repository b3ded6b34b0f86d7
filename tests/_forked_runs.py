"""The scoring program run many times in an image's Python without paying its interpreter and numpy start each time.

The image tests push whole corpora (140 bad inputs, 60 hostile files) through ``score.py`` in the stock images'
interpreters.  Python 3.7 with numpy 1.17 needs about 0.45 s of CPU to start and import numpy, more than most runs
then take.  Here one server process per lane starts in the image's interpreter, imports numpy and PyYAML, and
forks a child for every run: the child changes into the run's fresh ``/app``-like tree, points its file
descriptors 1 and 2 at files, sets ``sys.argv`` and ``sys.path[0]`` as ``python3 /app/program/score.py ...`` would,
and runs the script as ``__main__``.  Nothing else is shared: the program's own package is imported in the child
from the run's own program folder, an uncaught exception is printed and exits 1 by the interpreter's own top
level, ``sys.exit`` and the interpreter's exit (atexit, thread joins, flushing) are the interpreter's own.  What
it does not reproduce: the interpreter's start and the numpy import themselves, which the tests that run one
program per case still exercise (tests/test_images.py, tests/test_examples.py's image runs).
"""

import json
import os
import subprocess
import sys
import threading
from concurrent.futures import ThreadPoolExecutor

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, os.path.join(ROOT, "scoring_program"))

from leaderboard_ci.tools.local_worker import collect_run, metadata_command, prepare_tree  # noqa: E402

# The server's text, run by the image's interpreter: one JSON job per stdin line, one JSON answer per stdout line.
SERVER = r"""
import json, os, runpy, signal, sys
import numpy, yaml  # what every run would import first
if len(sys.argv) > 1:  # the program's own modules, from a copy of the same code as every run's program folder
    sys.path.insert(0, sys.argv[1])
    import leaderboard_ci.core.parallel, leaderboard_ci.scoring.codabench
    del sys.path[0]
requests, answers = sys.stdin, os.fdopen(os.dup(1), "w")
for line in requests:
    job = json.loads(line)
    sys.stdout.flush()
    sys.stderr.flush()
    pid = os.fork()
    if pid == 0:
        for fd, path in ((1, job["stdout"]), (2, job["stderr"])):
            handle = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
            os.dup2(handle, fd)
            os.close(handle)
        devnull = os.open(os.devnull, os.O_RDONLY)
        os.dup2(devnull, 0)
        sys.stdin = open(os.devnull)
        os.chdir(job["cwd"])
        sys.argv = job["argv"][1:]
        sys.path[0] = os.path.dirname(os.path.abspath(sys.argv[0]))
        signal.alarm(job["timeout"])
        runpy.run_path(sys.argv[0], run_name="__main__")
        sys.exit(0)
    _, status = os.waitpid(pid, 0)
    code = os.WEXITSTATUS(status) if os.WIFEXITED(status) else -os.WTERMSIG(status)
    answers.write(json.dumps({"returncode": code}) + "\n")
    answers.flush()
"""


class ForkedScoring(object):
    """``lanes`` servers of the scoring program in ``python``; :meth:`run` is :func:`local_worker.run_scoring`.

    ``preload``: a program folder (compiled by ``python``) whose ``leaderboard_ci`` the servers import before
    forking, for runs of copies of the same code (as the corpus tests' program folders are: they differ only in
    ``config.yaml``, which the program reads when it runs).
    """

    def __init__(self, python, lanes=2, preload=None):
        # score.py sets these before numpy is imported; the server imports numpy first, so it sets them here
        env = dict(os.environ, PYTHONUNBUFFERED="1")
        env.update(dict.fromkeys(("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"), "1"))
        env.pop("PYTHONPATH", None)  # the container has no PYTHONPATH pointing at this checkout
        self.python = python
        self._servers = [
            subprocess.Popen(
                [python, "-c", SERVER] + ([preload] if preload else []),
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                env=env,
                universal_newlines=True,
            )
            for _ in range(lanes)
        ]
        self._free = list(self._servers)
        self._lock = threading.Condition()

    def run(self, root, program, reference, submission, timeout=120):
        prepare_tree(root, program, reference, submission)
        program_dir = os.path.join(root, "program")
        argv = metadata_command(program_dir, root, python=self.python)
        out, err = os.path.join(root, "stdout.txt"), os.path.join(root, "stderr.txt")
        job = {"argv": argv, "cwd": program_dir, "stdout": out, "stderr": err, "timeout": int(timeout)}
        with self._lock:
            while not self._free:
                self._lock.wait()
            server = self._free.pop()
        try:
            server.stdin.write(json.dumps(job) + "\n")
            server.stdin.flush()
            answer = server.stdout.readline()
        finally:
            with self._lock:
                self._free.append(server)
                self._lock.notify()
        if not answer:
            raise RuntimeError("the forking server in %s stopped" % self.python)
        texts = []
        for path in (out, err):
            with open(path, "rb") as handle:
                texts.append(handle.read().decode("utf-8", "replace"))
            os.remove(path)
        return collect_run(root, json.loads(answer)["returncode"], texts[0], texts[1])

    def map(self, jobs):
        """``run(*job)`` for every job, the lanes busy in parallel; results in the jobs' order."""
        with ThreadPoolExecutor(max_workers=len(self._servers)) as pool:
            return list(pool.map(lambda job: self.run(*job), jobs))

    def close(self):
        for server in self._servers:
            server.stdin.close()
            server.wait()
            server.stdout.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
