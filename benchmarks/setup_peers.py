#!/usr/bin/env python3
"""Create ``benchmarks/.venv-peers`` with the peer implementations.

    python benchmarks/setup_peers.py            # create or update the venv
    python benchmarks/setup_peers.py --check    # only say what is installed

The project itself never depends on these packages; they are installed into a
separate virtual environment (git-ignored) that only the benchmark's child
processes use.  numpy, SciPy and scikit-learn are pinned to the versions of the
interpreter running this script when it has them, so that "ours" and the peers
run on the same numpy.

Peers:
  * CompStats 0.1.15          (pinned: the version the brief names)
  * SciPy, scikit-learn, numpy (scipy.stats.bootstrap; a plain sklearn loop)
  * BootCI 1.0.1               (paired-difference bootstrap; PyPI has only 1.0.1)
A peer whose install fails is skipped with its reason written to
``.venv-peers/peers.json``; the benchmark then prints that reason.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import venv

HERE = os.path.dirname(os.path.abspath(__file__))
VENV = os.path.join(HERE, ".venv-peers")
STATUS = os.path.join(VENV, "peers.json")

# (name used by the benchmark, pip requirement, import name)
OPTIONAL_PEERS = [("compstats", "compstats==0.1.15", "CompStats"), ("bootci", "bootci==1.0.1", "BootCI")]


def venv_python(path=VENV):
    return os.path.join(path, "bin", "python")


def _same_versions():
    """Pin numpy/scipy/scikit-learn to this interpreter's versions when present."""
    reqs = []
    for dist, module in (("numpy", "numpy"), ("scipy", "scipy"), ("scikit-learn", "sklearn")):
        try:
            mod = __import__(module)
            reqs.append("%s==%s" % (dist, mod.__version__))
        except Exception:  # noqa: BLE001 - absent here: take the newest
            reqs.append(dist)
    return reqs


def _pip(python, args):
    cmd = [python, "-m", "pip", "install", "--disable-pip-version-check", "-q"] + list(args)
    print("+ " + " ".join(cmd), flush=True)
    proc = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, universal_newlines=True)
    lines = [ln for ln in proc.stdout.splitlines() if "is ignored: it is neither a file nor a directory" not in ln]
    return proc.returncode, "\n".join(lines[-15:])


def check(python=None):
    """Versions of the peer packages in the venv (None where absent)."""
    python = python or venv_python()
    code = (
        "import json, importlib\n"
        "out = {}\n"
        "for mod in ('numpy', 'scipy', 'sklearn', 'CompStats', 'BootCI', 'joblib'):\n"
        "    try:\n"
        "        m = importlib.import_module(mod)\n"
        "        out[mod] = getattr(m, '__version__', 'installed')\n"
        "    except Exception as exc:\n"
        "        out[mod] = None\n"
        "print(json.dumps(out))\n"
    )
    if not os.path.exists(python):
        return None
    proc = subprocess.run([python, "-c", code], stdout=subprocess.PIPE, universal_newlines=True)
    return json.loads(proc.stdout) if proc.returncode == 0 else None


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--check", action="store_true", help="only report what is installed")
    parser.add_argument("--venv", default=VENV, help="where to create the venv (default: %(default)s)")
    args = parser.parse_args(argv)
    python = venv_python(args.venv)
    if args.check:
        print(json.dumps(check(python), indent=2))
        return 0

    if not os.path.exists(python):
        print("creating %s" % args.venv, flush=True)
        venv.EnvBuilder(with_pip=True, clear=False).create(args.venv)
    code, out = _pip(python, _same_versions())
    if code != 0:
        print(out)
        print("could not install numpy/scipy/scikit-learn into the peers venv", file=sys.stderr)
        return 1
    status = {}
    for name, requirement, _module in OPTIONAL_PEERS:
        code, out = _pip(python, [requirement])
        if code == 0:
            status[name] = {"installed": True, "requirement": requirement}
        else:
            reason = out.strip().splitlines()[-1] if out.strip() else "pip exited with %d" % code
            print("SKIP %s: %s" % (name, reason))
            status[name] = {"installed": False, "requirement": requirement, "reason": reason}
    versions = check(python)
    with open(os.path.join(args.venv, "peers.json"), "w") as handle:
        json.dump({"peers": status, "versions": versions}, handle, indent=2)
    print(json.dumps(versions, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
