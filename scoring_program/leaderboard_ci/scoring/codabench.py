"""The Codabench / CodaLab adapter of the per-submission scoring program.

The worker runs ``python3 $program/score.py $input $output`` (from
``metadata.yaml``) with the program folder as working directory; ``$input``
holds ``ref/`` (the gold standard, private) and ``res/`` (the participant's
files).  This module reads them, scores the submission and writes:

* ``scores.json``: ``{key: number}``, finite values only (a NaN or infinity
  would make Codabench silently drop the submission's scores);
* ``scores.txt``: the same as ``key: value`` lines, for legacy CodaLab;
* ``detailed_results.html``: a self-contained page for the participant.

It never writes ``metadata`` into the output (the worker would fail the run).

Exit codes: 0 scored; 1 the participant's mistake (one sentence on stderr);
2 the organizer's mistake (config or gold); 3 an internal error.
No traceback is printed for 1 and 2, and none of the messages quotes the gold
standard.  Set ``LEADERBOARD_CI_DEBUG=1`` to see tracebacks of internal errors.
"""

from __future__ import annotations

import io
import json
import os
import sys
import traceback
import warnings

from .._version import __version__
from ..console import entry_point
from .config import load_config
from .detailed_html import render_detailed_results
from .errors import ConfigError, SubmissionError
from .evaluation import draws_ahead, evaluate
from .outputs import check_output_groups
from .readers import read_baseline, read_gold, read_submission
from .text_files import one_line

__all__ = [
    "main",
    "run",
    "write_outputs",
    "format_scores_txt",
    "EXIT_OK",
    "EXIT_SUBMISSION",
    "EXIT_CONFIG",
    "EXIT_INTERNAL",
]

EXIT_OK = 0
EXIT_SUBMISSION = 1
EXIT_CONFIG = 2
EXIT_INTERNAL = 3

USAGE = "usage: score.py INPUT_DIR OUTPUT_DIR   (INPUT_DIR holds ref/ and res/)"


def _yaml_float(value):
    """A float as YAML 1.1 reads back as a float (pyyaml needs a dot: 1.0e-05)."""
    text = repr(float(value))
    if "e" in text and "." not in text.split("e")[0]:
        mantissa, exponent = text.split("e")
        text = "%s.0e%s" % (mantissa, exponent)
    return text


def format_scores_txt(scores):
    """``key: value`` lines, as legacy CodaLab and Codabench's fallback parse them."""
    return "".join("%s: %s\n" % (key, _yaml_float(value)) for key, value in scores.items())


def write_outputs(result, config, output_dir):
    """Write scores.json, scores.txt and detailed_results.html into ``output_dir``."""
    # A zero is written as 0.0, never -0.0 (a sign that numpy versions do not agree on).
    raw = result.leaderboard_scores(config)
    scores = type(raw)((key, value + 0.0 if isinstance(value, float) else value) for key, value in raw.items())
    if not os.path.isdir(output_dir):
        os.makedirs(output_dir)
    with io.open(os.path.join(output_dir, "scores.json"), "w", encoding="utf-8") as handle:
        handle.write(json.dumps(scores, indent=2, allow_nan=False))
        handle.write("\n")
    with io.open(os.path.join(output_dir, "scores.txt"), "w", encoding="utf-8") as handle:
        handle.write(format_scores_txt(scores))
    html = render_detailed_results(result, config)
    with io.open(os.path.join(output_dir, "detailed_results.html"), "w", encoding="utf-8") as handle:
        handle.write(html)
    return scores


def _summary(result):
    lines = []
    for s in result.scores:
        lines.append(
            "%-24s %.6f   %g%% CI [%.6f, %.6f]"
            % (s.key, s.score, 100 * s.interval.confidence_level, s.interval.low, s.interval.high)
        )
    for b in result.baseline:
        lines.append(
            "%-24s %+.6f   %g%% CI [%+.6f, %+.6f]  p = %.4g"
            % (b.key, b.difference, 100 * b.interval.confidence_level, b.interval.low, b.interval.high, b.p_value)
        )
    lines.append("signature: %s" % result.signature)
    return "\n".join(lines)


def _say(stream, message):
    """Write a message as exactly one line, whatever it holds and whatever the stream's encoding."""
    text = one_line(message) + "\n"
    encoding = getattr(stream, "encoding", None)
    if encoding:
        text = text.encode(encoding, "backslashreplace").decode(encoding, "replace")
    stream.write(text)


def run(input_dir, output_dir, program_dir, stdout=None, stderr=None):
    """Score the submission in ``input_dir/res`` against ``input_dir/ref``.

    Returns the exit code; messages go to ``stdout`` / ``stderr``.
    """
    stdout = sys.stdout if stdout is None else stdout
    stderr = sys.stderr if stderr is None else stderr
    ref_dir = os.path.join(input_dir, "ref")
    res_dir = os.path.join(input_dir, "res")
    ahead = None
    try:
        if not os.path.isdir(ref_dir):
            raise ConfigError("the input folder has no ref/ (the reference data); check the task's reference data")
        config = load_config(program_dir, ref_dir)
        gold = read_gold(ref_dir, config)
        ahead = draws_ahead(config, gold)  # a second core draws the first replicates while the rest is read
        if config.groups is not None:
            check_output_groups(config.outputs, gold.group_values, config.source)
        baseline = read_baseline(ref_dir, config, gold) if config.baseline is not None else None
        predictions = read_submission(res_dir, config, gold)
        result = evaluate(config, gold, predictions, baseline=baseline, ahead=ahead)
        write_outputs(result, config, output_dir)
    except SubmissionError as exc:
        _say(stderr, exc.message)
        return EXIT_SUBMISSION
    except ConfigError as exc:
        _say(stderr, "Scoring configuration error (for the competition organizers): %s" % exc.message)
        return EXIT_CONFIG
    except MemoryError:
        stderr.write(
            "The scoring program ran out of memory (leaderboard-ci %s); "
            "the organizers can lower bootstrap.n_resamples.\n" % __version__
        )
        return EXIT_INTERNAL
    except Exception as exc:  # a bug: say so without leaking data
        stderr.write(
            "Internal error in leaderboard-ci %s (%s). The organizers can reproduce it with "
            "leaderboard-ci score.\n" % (__version__, type(exc).__name__)
        )
        if os.environ.get("LEADERBOARD_CI_DEBUG"):
            traceback.print_exc(file=stderr)
        return EXIT_INTERNAL
    finally:
        if ahead is not None:
            ahead.stop()
    stdout.write(_summary(result) + "\n")
    return EXIT_OK


@entry_point
def main(argv=None, program_dir=None):
    """Entry point of ``score.py INPUT OUTPUT``."""
    argv = sys.argv[1:] if argv is None else list(argv)
    if len(argv) != 2 or argv[0] in ("-h", "--help"):
        sys.stderr.write(USAGE + "\n")
        return EXIT_CONFIG
    if program_dir is None:
        program_dir = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    with warnings.catch_warnings():
        # stderr is what the participant reads: one sentence or nothing.  A numpy RuntimeWarning (numpy 1.17 warns
        # on comparisons with NaN) would print the program's path and a source line there; what such a warning
        # could signal, a non-finite score, is caught by the outputs' own checks.
        warnings.simplefilter("ignore", RuntimeWarning)
        return run(argv[0], argv[1], program_dir)
