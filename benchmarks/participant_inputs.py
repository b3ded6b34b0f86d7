"""Adversarial prediction files up to ``files.max_megabytes``: wall time and peak memory of score.py.

Issue 14 asks that any input up to the size limit (200 MB by default) be
scored or rejected within 10 s and 1 GB on the 2-core machine.  Each case is
a file written into a fresh ``/app``-like tree next to the sample
competition's reference data (540 items, 10 classes, B = 10,000, a baseline)
and scored by ``score.py`` as the worker runs it, under ``/usr/bin/time`` for
the peak resident memory and the CPU time (user + system: the machine is
shared, so wall time depends on its load, which is recorded too).  This is a
benchmark, not a test: nothing here is collected by pytest.

    python benchmarks/participant_inputs.py                 # every case, 200 MB where the case allows
    python benchmarks/participant_inputs.py --only blank --megabytes 50

Prints a table and writes ``benchmarks/results/participant_inputs.{json,md}``.
"""

import argparse
import io
import json
import os
import platform
import shutil
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
PROGRAM = os.path.join(ROOT, "scoring_program")
REFERENCE = os.path.join(ROOT, "competition_bundle", "reference_data")
LIMIT_SECONDS, LIMIT_MB = 10.0, 1000.0


def _gold_ids():
    with io.open(os.path.join(REFERENCE, "gold.csv"), encoding="utf-8") as handle:
        next(handle)
        return [line.split(",")[0] for line in handle if line.strip()]


def _write_repeated(path, head, unit, tail, size, encoding="utf-8"):
    """``head`` + ``unit`` repeated to about ``size`` bytes + ``tail``, written in large blocks."""
    unit_bytes = unit.encode(encoding)
    block = unit_bytes * max(1, (1 << 22) // max(1, len(unit_bytes)))
    with open(path, "wb") as out:
        out.write(head.encode(encoding))
        written = len(head)
        while written + len(block) <= size:
            out.write(block)
            written += len(block)
        rest = max(0, (size - written) // len(unit_bytes))
        out.write(unit_bytes * rest)
        out.write(tail.encode(encoding))


def _write_decoys(path, head, size, row="d%09d,3\n", tail=""):
    """``head``, then rows of distinct unscored ids (``row % k``) up to about ``size`` bytes, then ``tail``."""
    with open(path, "w") as out:
        out.write(head)
        written, k = len(head), 0
        step = len(row % 0) * 100000
        while written + step + len(tail) < size:
            chunk = "".join(row % (k + j) for j in range(100000))
            out.write(chunk)
            written += len(chunk)
            k += 100000
        out.write(tail)


def _clean_rows(ids):
    return "".join("%s,%d\n" % (i, k % 10) for k, i in enumerate(ids))


_DECOYS = "files: {unscored_ids: ignore}\n"
_ALL_ROWS = "files: {unscored_ids: ignore, max_ids: 1000000000}\n"


def cases(size):
    """``name -> (file name, writer(path), what is expected, config override)``."""
    ids = _gold_ids()
    rows = _clean_rows(ids)
    big = int(10**6 * size) - 4096  # the tails stay within the limit
    return {
        "blank_lines_after_the_predictions": (
            "predictions.csv",
            lambda p: _write_repeated(p, "id,label\n" + rows, "\n", "", big),
            "scored",
            None,
        ),
        "crcrlf_blank_lines": (
            "predictions.csv",
            lambda p: _write_repeated(p, "id,label\r\r\n" + rows.replace("\n", "\r\r\n"), "\r\r\n", "", big),
            "scored",
            None,
        ),
        "json_list_far_too_long": (
            "predictions.json",
            lambda p: _write_repeated(p, "[", '"3", ', '"3"]', big),
            "rejected",
            None,
        ),
        "json_records_far_too_long": (
            "predictions.json",
            lambda p: _write_repeated(p, "[", '{"id": "x", "label": "3"}, ', '{"id": "x", "label": "3"}]', big),
            "rejected",
            None,
        ),
        "json_columns_orient_far_too_long": (
            "predictions.json",
            lambda p: _write_repeated(p, '{"id": {', '"0": "x", ', '"1": "x"}, "label": {"0": "1"}}', big),
            "rejected",
            None,
        ),
        "json_one_huge_string": (
            "predictions.json",
            lambda p: _write_repeated(p, '["', "abcdefgh", '"]', big),
            "rejected",
            None,
        ),
        "json_nested_deep": ("predictions.json", lambda p: _write_repeated(p, "", "[", "", big), "rejected", None),
        "json_integer_of_a_million_digits": (
            "predictions.json",
            lambda p: _write_repeated(p, "[", "9", "]", min(big, 10**6)),
            "rejected",
            None,
        ),
        "jsonl_far_too_long": (
            "predictions.jsonl",
            lambda p: _write_repeated(p, "", '{"id": "x", "label": "3"}\n', "", big),
            "rejected",
            None,
        ),
        "csv_far_too_many_rows": (
            "predictions.csv",
            lambda p: _write_repeated(p, "id,label\n" + rows, "zz-1,3\n", "", big),
            "rejected",
            None,
        ),
        "csv_one_line_without_end": (
            "predictions.csv",
            lambda p: _write_repeated(p, "id,label\n", "x,", "", big),
            "rejected",
            None,
        ),
        "csv_quote_never_closed": (
            "predictions.csv",
            lambda p: _write_repeated(p, 'id,label\n%s,"' % ids[0], "abc\n", "", big),
            "rejected",
            None,
        ),
        "lines_far_too_many": ("predictions.txt", lambda p: _write_repeated(p, "", "3\n", "", big), "rejected", None),
        "utf16_far_too_long": (
            "predictions.csv",
            lambda p: _write_repeated(p, "\ufeffid,label\n" + rows, "zz-1,3\n", "", big - 40000, encoding="utf-16-le"),
            "rejected",
            None,
        ),
        "nul_at_the_end": (
            "predictions.csv",
            lambda p: _write_repeated(p, "id,label\n" + rows, "\n", "\x00", big),
            "rejected",
            None,
        ),
        # Decoy ids (files.unscored_ids: ignore): every row is read.  With files.max_ids raised to its maximum,
        # nothing but the file size bounds the rows (CSV and TSV); with its default (10^6) reading stops at
        # row 10^6 + 1.
        "decoys_ignored_every_row_read": (
            "predictions.csv",
            lambda p: _write_decoys(p, "id,label\n" + rows, big),
            "scored",
            _ALL_ROWS,
        ),
        "decoys_tsv": (
            "predictions.tsv",
            lambda p: _write_decoys(p, "id\tlabel\n" + rows.replace(",", "\t"), big, "d%09d\t3\n"),
            "scored",
            _ALL_ROWS,
        ),
        "decoys_csv_quoted_crlf": (  # what R's write.csv writes on Windows
            "predictions.csv",
            lambda p: _write_decoys(
                p,
                '"id","label"\r\n' + "".join('"%s","%d"\r\n' % (i, k % 10) for k, i in enumerate(ids)),
                big,
                '"d%09d","3"\r\n',
            ),
            "scored",
            _ALL_ROWS,
        ),
        "decoys_csv_default_max_ids": (
            "predictions.csv",
            lambda p: _write_decoys(p, "id,label\n" + rows, big),
            "rejected",
            _DECOYS,
        ),
        "decoys_jsonl_default_max_ids": (
            "predictions.jsonl",
            lambda p: _write_decoys(
                p,
                "".join('{"id": "%s", "label": "%d"}\n' % (i, k % 10) for k, i in enumerate(ids)),
                big,
                '{"id": "d%09d", "label": "3"}\n',
            ),
            "rejected",
            _DECOYS,
        ),
        "decoys_json_records_default_max_ids": (
            "predictions.json",
            lambda p: _write_decoys(
                p,
                "[" + "".join('{"id": "%s", "label": "%d"}, ' % (i, k % 10) for k, i in enumerate(ids)),
                big,
                '{"id": "d%09d", "label": "3"}, ',
                '{"id": "last", "label": "3"}]',
            ),
            "rejected",
            _DECOYS,
        ),
        "decoys_json_records_900k": (  # 0.9 million rows: under the default files.max_ids
            "predictions.json",
            lambda p: _write_decoys(
                p,
                "[" + "".join('{"id": "%s", "label": "%d"}, ' % (i, k % 10) for k, i in enumerate(ids)),
                36 * (10**6 - 540),
                '{"id": "d%09d", "label": "3"}, ',
                '{"id": "last", "label": "3"}]',
            ),
            "scored",
            _DECOYS,
        ),
    }


def run_case(name, spec, workdir, python):
    file_name, write, expected, config = spec
    root = os.path.join(workdir, name)
    program = os.path.join(root, "program")
    shutil.copytree(PROGRAM, program, ignore=shutil.ignore_patterns("__pycache__", "*.egg-info"))
    reference = os.path.join(root, "input", "ref")
    shutil.copytree(REFERENCE, reference)
    if config:
        with open(os.path.join(reference, "config.yaml"), "a") as handle:
            handle.write("\n" + config)
    res = os.path.join(root, "input", "res")
    os.makedirs(res)
    path = os.path.join(res, file_name)
    write(path)
    size = os.path.getsize(path)
    output = os.path.join(root, "output")
    argv = [
        "/usr/bin/time",
        "-f",
        "%e %U %S %M",
        python,
        os.path.join(program, "score.py"),
        os.path.join(root, "input"),
        output,
    ]
    start = time.time()
    proc = subprocess.run(argv, cwd=program, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    wall = time.time() - start
    err = proc.stderr.decode("utf-8", "replace").strip().splitlines()
    seconds, user, system, kib = err[-1].split()
    message = err[0] if len(err) > 1 else ""
    shutil.rmtree(root, ignore_errors=True)
    return {
        "case": name,
        "megabytes": round(size / 1e6, 1),
        "exit": proc.returncode,
        "seconds": float(seconds),
        "cpu_seconds": round(float(user) + float(system), 2),
        "load": round(os.getloadavg()[0], 1),
        "wall": round(wall, 2),
        "peak_mb": round(int(kib) / 1024.0, 1),
        "expected": expected,
        "message": message[:160],
    }


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--megabytes", type=float, default=200.0, help="file size (default 200, the limit)")
    parser.add_argument("--only", default=None, help="comma-separated substrings of case names")
    parser.add_argument("--python", default=sys.executable)
    parser.add_argument("--out", default=os.path.join(HERE, "results", "participant_inputs"))
    args = parser.parse_args(argv)
    selected = cases(args.megabytes)
    if args.only:
        keys = args.only.split(",")
        selected = dict((k, v) for k, v in selected.items() if any(key in k for key in keys))
    workdir = tempfile.mkdtemp(prefix="participant-inputs-")
    results = []
    try:
        for name, spec in selected.items():
            result = run_case(name, spec, workdir, args.python)
            result["within_limits"] = result["cpu_seconds"] <= LIMIT_SECONDS and result["peak_mb"] <= LIMIT_MB
            results.append(result)
            print(
                "%-36s %6.1f MB  exit %d  %6.2f s wall  %6.2f s CPU  %7.1f MB peak  load %4.1f  %s"
                % (
                    name,
                    result["megabytes"],
                    result["exit"],
                    result["seconds"],
                    result["cpu_seconds"],
                    result["peak_mb"],
                    result["load"],
                    result["message"][:90],
                ),
                flush=True,
            )
    finally:
        shutil.rmtree(workdir, ignore_errors=True)
    version = (
        subprocess.run([args.python, "--version"], stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
        .stdout.decode()
        .strip()
    )
    meta = {
        "python": version,
        "machine": platform.machine(),
        "cpus": os.cpu_count(),
        "limits": {"seconds": LIMIT_SECONDS, "peak_mb": LIMIT_MB},
    }
    if args.out and not args.only:
        with open(args.out + ".json", "w") as handle:
            json.dump({"meta": meta, "results": results}, handle, indent=1)
        lines = [
            "| case | MB | exit | wall s | CPU s | peak MB | load | within 10 s (CPU) and 1 GB | message |",
            "|---|---|---|---|---|---|---|---|---|",
        ]
        for r in results:
            lines.append(
                "| %s | %.1f | %d | %.2f | %.2f | %.0f | %.1f | %s | %s |"
                % (
                    r["case"],
                    r["megabytes"],
                    r["exit"],
                    r["seconds"],
                    r["cpu_seconds"],
                    r["peak_mb"],
                    r["load"],
                    "yes" if r["within_limits"] else "**no**",
                    r["message"].replace("|", "\\|")[:100],
                )
            )
        with open(args.out + ".md", "w") as handle:
            handle.write(
                "%s, %d CPUs; score.py with the sample competition (540 items, B = 10,000, a "
                "baseline).\n\n" % (version, os.cpu_count()) + "\n".join(lines) + "\n"
            )
    return 0 if all(r["within_limits"] for r in results) else 1


if __name__ == "__main__":
    sys.exit(main())
