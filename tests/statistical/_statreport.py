"""Write the measured tables of a statistical-suite session as JSON and Markdown."""

from __future__ import annotations

import json
import math
import os
import platform

import numpy as np
from _statsim import METHODS, fmt_pct

TARGET = 0.95
BAND = 0.015
TYPE_ONE_LIMIT = 0.06
FAMILY_LIMIT = 0.055


def _jsonable(value):
    if isinstance(value, dict):
        return {str(k): _jsonable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_jsonable(v) for v in value]
    if isinstance(value, (np.floating, float)):
        value = float(value)
        return value if math.isfinite(value) else None
    if isinstance(value, (np.integer,)):
        return int(value)
    if isinstance(value, np.bool_):
        return bool(value)
    if isinstance(value, np.ndarray):
        return _jsonable(value.tolist())
    return value


def machine():
    info = {"platform": platform.platform(), "python": platform.python_version(), "cpu_count": os.cpu_count()}
    try:
        info["cpus_available"] = len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        pass
    try:
        with open("/proc/cpuinfo") as handle:
            for line in handle:
                if line.startswith("model name"):
                    info["cpu"] = line.split(":", 1)[1].strip()
                    break
        with open("/proc/meminfo") as handle:
            for line in handle:
                if line.startswith("MemTotal"):
                    info["memory_gb"] = round(int(line.split()[1]) / 2**20, 1)
                    break
    except OSError:
        pass
    versions = {}
    for module in ("numpy", "scipy", "sklearn", "pandas", "statsmodels", "leaderboard_ci"):
        try:
            versions[module] = __import__(module).__version__
        except Exception:  # noqa: BLE001
            versions[module] = None
    info["versions"] = versions
    return info


def write_report(store, meta, out_dir):
    os.makedirs(out_dir, exist_ok=True)
    settings = store.settings
    doc = {
        "meta": dict(
            meta,
            machine=machine(),
            settings={
                "mode": settings.mode,
                "n_resamples": settings.n_resamples,
                "n_permutations": settings.n_permutations,
                "coverage_reps": {str(k): v for k, v in settings.coverage_reps.items()},
                "error_reps": {"%s-%d" % k: v for k, v in settings.error_reps.items()},
                "fwer_reps": settings.fwer_reps,
                "fwer_permutation_reps": settings.fwer_permutation_reps,
                "fdr_reps": settings.fdr_reps,
                "b_sensitivity_reps": settings.b_sensitivity_reps,
                "confidence_level": TARGET,
                "alpha": 0.05,
            },
        ),
        "outcomes": dict(sorted(store.outcomes.items())),
        "durations": dict(sorted(store.durations.items())),
        "sections": store.sections,
    }
    doc["outside_target"] = outside_target(store.sections)
    with open(os.path.join(out_dir, "latest.json"), "w", encoding="utf-8") as handle:
        json.dump(_jsonable(doc), handle, indent=1, sort_keys=False)
        handle.write("\n")
    with open(os.path.join(out_dir, "latest.md"), "w", encoding="utf-8") as handle:
        handle.write(markdown(doc))


# ---------------------------------------------------------------------------
# What falls outside its target
# ---------------------------------------------------------------------------
def outside_target(sections):
    out = []
    for study in sections.get("coverage", {}).values():
        for c in study["cells"]:
            if abs(c["coverage"] - TARGET) > BAND:
                out.append(
                    {
                        "kind": "coverage",
                        "what": c["what"],
                        "n": c["n"],
                        "method": c["method"],
                        "system": c["system"],
                        "metric": c["metric"],
                        "value": c["coverage"],
                        "se": c["se"],
                        "target": "95 ± 1.5",
                        "tested": c["n"] >= 1000,
                    }
                )
    for study in sections.get("errors", {}).values():
        for r in study["rows"]:
            if abs(r["true_difference"]) > 1e-9:
                continue
            for key in ("boot_one_sided", "perm_one_sided", "boot_two_sided", "perm_two_sided"):
                if key in r and r[key][0] > TYPE_ONE_LIMIT:
                    out.append(
                        {
                            "kind": "type I error",
                            "n": r["n"],
                            "metric": r["metric"],
                            "test": key,
                            "value": r[key][0],
                            "se": r[key][1],
                            "target": "<= 6%",
                        }
                    )
    for study in sections.get("fwer", {}).values():
        for r in study["rows"]:
            if r["sides"] != "two":
                continue
            for c in ("bonferroni", "holm", "fdr_bh"):
                if r[c][0] > FAMILY_LIMIT:
                    out.append(
                        {
                            "kind": "FWER",
                            "metric": r["metric"],
                            "test": r["test"],
                            "correction": c,
                            "value": r[c][0],
                            "se": r[c][1],
                            "target": "<= 5.5%",
                        }
                    )
    for study in sections.get("fdr", {}).values():
        for r in study["rows"]:
            if r["sides"] == "two" and r["correction"] == "fdr_bh" and r["fdr"][0] > FAMILY_LIMIT:
                out.append(
                    {
                        "kind": "FDR",
                        "correction": "fdr_bh",
                        "value": r["fdr"][0],
                        "se": r["fdr"][1],
                        "target": "<= 5.5%",
                    }
                )
            if r["sides"] == "two" and r["correction"] in ("bonferroni", "holm") and r["fwer"][0] > FAMILY_LIMIT:
                out.append(
                    {
                        "kind": "FWER (mix)",
                        "correction": r["correction"],
                        "value": r["fwer"][0],
                        "se": r["fwer"][1],
                        "target": "<= 5.5%",
                    }
                )
    for name, r in sections.get("simultaneous", {}).items():
        if r["maxt_fwer_nulls_only"][0] > FAMILY_LIMIT:
            out.append(
                {
                    "kind": "FWER (max-t)",
                    "study": name,
                    "value": r["maxt_fwer_nulls_only"][0],
                    "se": r["maxt_fwer_nulls_only"][1],
                    "target": "<= 5.5%",
                }
            )
        for key in ("fw_interval_coverage", "single_step_interval_coverage", "rank_set_coverage"):
            if key in r and r[key][0] < TARGET - BAND:
                out.append(
                    {
                        "kind": "simultaneous coverage",
                        "study": name,
                        "what": key,
                        "value": r[key][0],
                        "se": r[key][1],
                        "target": ">= 93.5%",
                        "tested": key != "fw_interval_coverage" and name != "phase60",
                    }
                )
    return out


# ---------------------------------------------------------------------------
# Markdown
# ---------------------------------------------------------------------------
def _table(header, rows):
    lines = ["| " + " | ".join(header) + " |", "|" + "|".join("---" for _ in header) + "|"]
    lines += ["| " + " | ".join(str(x) for x in row) + " |" for row in rows]
    return "\n".join(lines) + "\n"


def _cov(cell):
    text = fmt_pct(cell["coverage"], cell["se"])
    return "**%s**" % text if abs(cell["coverage"] - TARGET) > BAND else text


def coverage_tables(sections, what):
    studies = sorted(sections.get("coverage", {}).values(), key=lambda s: (s["kind"], s["n"]))
    ns = sorted(set(s["n"] for s in studies))
    out = []
    for kind in ("classification", "regression"):
        cells = {}
        rows_order = []
        for s in studies:
            if s["kind"] != kind:
                continue
            for c in s["cells"]:
                if c["what"] != what:
                    continue
                row = (c["system"], c["metric"])
                if row not in rows_order:
                    rows_order.append(row)
                cells[(row, c["n"], c["method"])] = c
        if not rows_order:
            continue
        header = ["system", "metric", "true value"] + ["n=%d %s" % (n, m) for n in ns for m in METHODS]
        rows = []
        for row in rows_order:
            any_cell = next(c for (r, _, _), c in cells.items() if r == row)
            rows.append(
                [row[0], row[1], "%.4f" % any_cell["truth"]]
                + [_cov(cells[(row, n, m)]) if (row, n, m) in cells else "-" for n in ns for m in METHODS]
            )
        reps = sorted(set(c["reps"] for c in cells.values()))
        out.append(
            "**%s** (test sets per cell: %s)\n\n" % (kind, ", ".join(str(r) for r in reps)) + _table(header, rows)
        )
    return "\n".join(out)


def _rate(pair):
    return fmt_pct(pair[0], pair[1])


def error_tables(sections):
    studies = sorted(sections.get("errors", {}).values(), key=lambda s: (s["kind"], s["n"]))
    type_one, power = [], []
    for s in studies:
        for r in s["rows"]:
            null = abs(r["true_difference"]) <= 1e-9
            cols = []
            for key in (
                "boot_one_sided",
                "perm_one_sided",
                "boot_two_sided",
                "perm_two_sided",
                "boot_one_sided_data_directed",
                "perm_one_sided_data_directed",
            ):
                cols.append(_rate(r[key]) if key in r else "-")
            if null:
                ratio = "-"
                if r.get("sd_of_difference"):
                    ratio = "%.3f" % (r["mean_bootstrap_sd"] / r["sd_of_difference"])
                reps = str(r["reps"]) if "perm_reps" not in r else "%d (permutation: %d)" % (r["reps"], r["perm_reps"])
                type_one.append([r["kind"], r["n"], "%s vs %s" % (r["a"], r["b"]), r["metric"], reps] + cols + [ratio])
            elif r["b"].startswith(("acc_minus", "f1_minus")):
                target_metric = "accuracy" if r["b"].startswith("acc") else "f1_macro"
                if r["metric"] != target_metric:
                    continue
                pcols = [
                    _rate(r[k]) if k in r else "-"
                    for k in (
                        "boot_one_sided",
                        "perm_one_sided",
                        "boot_two_sided_right_direction",
                        "perm_two_sided_right_direction",
                        "boot_two_sided_wrong_direction",
                    )
                ]
                predicted = r.get("predicted_power")
                power.append(
                    [r["n"], r["metric"], "%.4f" % r["true_difference"], r["reps"]]
                    + pcols
                    + ["-" if predicted is None else fmt_pct(predicted)]
                )
    out = ""
    if type_one:
        out += (
            "#### Type I error (systems of exactly equal population quality), alpha = 0.05\n\n"
            + _table(
                [
                    "kind",
                    "n",
                    "pair",
                    "metric",
                    "test sets",
                    "bootstrap one-sided (pre-specified)",
                    "permutation one-sided (pre-specified)",
                    "bootstrap two-sided (report default)",
                    "permutation two-sided (report default)",
                    "bootstrap one-sided, data-directed (sides='one')",
                    "permutation one-sided, data-directed (sides='one')",
                    "bootstrap SD / true SD of the difference",
                ],
                type_one,
            )
            + "\n"
        )
    if power:
        out += (
            "#### Power (A = logreg against a copy of equal quality degraded by the true difference)\n\n"
            + _table(
                [
                    "n",
                    "metric",
                    "true difference",
                    "test sets",
                    "bootstrap one-sided",
                    "permutation one-sided",
                    "bootstrap two-sided, right direction",
                    "permutation two-sided, right direction",
                    "bootstrap two-sided, wrong direction",
                    "normal-approximation prediction (one-sided)",
                ],
                power,
            )
            + "\n"
        )
    return out


def fwer_tables(sections):
    rows = []
    for s in sections.get("fwer", {}).values():
        for r in s["rows"]:
            rows.append(
                [r["n"], r["metric"], r["test"], r["sides"], r["reps"]]
                + [_rate(r[c]) for c in ("none", "bonferroni", "holm", "fdr_bh")]
            )
    if not rows:
        return ""
    return "#### Family-wise error: ten systems of equal quality, all 45 pairs (family all_pairs)\n\n" + _table(
        ["n", "metric", "test", "sides", "test sets", "uncorrected", "Bonferroni", "Holm", "BH"], rows
    )


def fdr_tables(sections):
    out = ""
    for s in sections.get("fdr", {}).values():
        rows = [
            [
                r["sides"],
                r["correction"],
                r["reps"],
                _rate(r["fdr"]),
                _rate(r["fwer"]),
                "%.3f" % r["directional_errors_per_test_set"],
                fmt_pct(r["share_of_real_differences_found"]),
            ]
            for r in s["rows"]
        ]
        groups = "; ".join("%s: %s" % (k, ", ".join(v)) for k, v in s["groups"].items())
        out += (
            "#### False discovery rate: ten systems in three quality groups (accuracy), n = %d\n\n"
            "Groups (equal population accuracy within a group): %s. %d of %d pairs are true nulls.\n\n"
            % (s["n"], groups, s["true_null_pairs"], s["pairs"])
            + _table(
                [
                    "sides",
                    "correction",
                    "test sets",
                    "FDR (mean false-discovery proportion)",
                    "FWER (any false discovery)",
                    "wrong-direction rejections per test set",
                    "share of real differences found",
                ],
                rows,
            )
        )
    return out


def b_tables(sections):
    rows = []
    for s in sections.get("b_sensitivity", {}).values():
        for r in s["rows"]:
            keys = [k for k in r if k.startswith("B=")]
            rows.append(
                [r["n"], r["system"], r["metric"], r["method"], r["reps"]]
                + [_rate(r[k]) for k in keys]
                + [fmt_pct(r["difference"][0], r["difference"][1], 2)]
            )
    if not rows:
        return ""
    return "#### Does B = 1000 suffice? Coverage on the same test sets with B = 1000 and B = 4000\n\n" + _table(
        ["n", "system", "metric", "method", "test sets", "B=1000", "B=4000", "difference (points, paired SE)"], rows
    )


def permutation_tables(sections):
    rows = []
    for name, r in sorted(sections.get("permutation_vs_scipy", {}).items()):
        rows.append(
            [
                name,
                r["n"],
                r["metric"],
                r["alternative"],
                r["exact"],
                "%.4f" % r["ours"],
                "%.4f" % r["scipy"],
                "%.4f" % abs(r["ours"] - r["scipy"]),
                "%.4f" % r["tolerance"],
            ]
        )
    if not rows:
        return ""
    return "#### Permutation p-values against scipy.stats.permutation_test(permutation_type='samples')\n\n" + _table(
        ["case", "n", "metric", "alternative", "exact", "ours", "SciPy", "|difference|", "tolerance"], rows
    )


def compstats_tables(sections):
    out = ""
    for name, r in sorted(sections.get("compstats", {}).items()):
        out += "#### CompStats %s, workload `%s` (n = %d, m = %d, B = %d, metric %s)\n\n" % (
            r.get("version", "?"),
            name,
            r["n"],
            r["m"],
            r["n_resamples"],
            r["metric"],
        )
        out += _table(["check", "result"], [[k, v] for k, v in r["checks"].items()])
        rows = [
            [c, r["ties_ours"][c], r["ties_compstats"][c], r["pairs_ours"][c], r["pairs_compstats"][c]]
            for c in ("none", "bonferroni", "holm", "fdr_bh")
        ]
        out += "\n" + _table(
            [
                "correction",
                "ties with winner: ours (sides='one')",
                "CompStats",
                "non-significant pairs: ours (sides='one')",
                "CompStats",
            ],
            rows,
        )
        if r.get("notes"):
            out += "\n" + "\n".join("- " + n for n in r["notes"]) + "\n"
        out += "\n"
    return out


def simultaneous_tables(sections):
    """Issue 20: max-t step-down, family-wise intervals and rank sets against the truth."""
    rows = []
    for name, r in sections.get("simultaneous", {}).items():
        rows.append(
            [
                name,
                r["m"],
                r["pairs"],
                r["n"],
                r["n_resamples"],
                r["reps"],
                _rate(r["maxt_fwer_nulls_only"]),
                _rate(r["holm_fwer_nulls_only"]) if "holm_fwer_nulls_only" in r else "-",
                _rate(r["fw_interval_coverage"]),
                _rate(r["single_step_interval_coverage"]),
                _rate(r["rank_set_coverage"]) if "rank_set_coverage" in r else "-",
                fmt_pct(r["marginal_rank_coverage_mean"]) if "marginal_rank_coverage_mean" in r else "-",
                _rate(r["marginal_rank_coverage_worst"]) if "marginal_rank_coverage_worst" in r else "-",
                fmt_pct(r["maxt_share_found"]),
                fmt_pct(r["holm_share_found"]) if "holm_share_found" in r else "-",
                "-" if r.get("maxt_share_far_found") is None else fmt_pct(r["maxt_share_far_found"]),
                "-" if r.get("holm_share_far_found") is None else fmt_pct(r["holm_share_far_found"]),
            ]
        )
    out = ""
    if rows:
        out += (
            "#### Max-t step-down (default) and Holm: family-wise error, coverage, power\n\n"
            "FWER: share of test sets with a rejected pair of exactly equal systems. Coverage: share of "
            "test sets where EVERY pair's interval (or every system's rank set) contains the truth. "
            "Step-wise: the reported fw_low/fw_high; single-step: delta -/+ c_1 se.\n\n"
            + _table(
                [
                    "study",
                    "m",
                    "pairs",
                    "n",
                    "B",
                    "test sets",
                    "FWER max-t",
                    "FWER Holm",
                    "pair intervals, step-wise",
                    "pair intervals, single-step",
                    "simultaneous rank sets",
                    "marginal rank sets (mean)",
                    "marginal rank sets (worst system)",
                    "real differences found: max-t",
                    "Holm",
                    "runs >= 0.30 below the winner found: max-t",
                    "Holm",
                ],
                rows,
            )
            + "\n"
        )
    rows = [
        [
            k,
            r["systems"],
            r["n_resamples"],
            r["far_runs"],
            r["far_significant_primary"],
            r["far_significant_holm"],
            r["pairs_significant_maxt"],
            r["pairs_significant_holm"],
            r["pairs"],
            r["tied_with_winner"],
        ]
        for k, r in sections.get("phase60", {}).items()
    ]
    if rows:
        out += "#### The 60-system phase (one realization, the organizer's reading path)\n\n" + _table(
            [
                "variant",
                "systems",
                "B",
                "runs >= 0.30 below the winner",
                "significant (primary)",
                "significant (Holm)",
                "pairs significant (max-t)",
                "pairs significant (Holm)",
                "pairs",
                "tied with the winner",
            ],
            rows,
        )
    return out


def _or_none(text):
    return text if text.strip() else "(not measured in this run)\n"


def markdown(doc):
    meta = doc["meta"]
    mach = meta["machine"]
    st = meta["settings"]
    outcomes = doc["outcomes"]
    counts = {}
    for outcome in outcomes.values():
        counts[outcome] = counts.get(outcome, 0) + 1
    failed = [k for k, v in outcomes.items() if v == "failed"]
    lines = [
        "# Statistical validity: measured results",
        "",
        "| | |",
        "|---|---|",
        "| date | %s |" % meta["started"],
        "| mode | %s |" % meta["mode"],
        "| command | `%s` |" % meta["command"],
        "| machine | %s; %s; %s CPUs (%s available); %s GB |"
        % (
            mach.get("platform"),
            mach.get("cpu", "?"),
            mach.get("cpu_count"),
            mach.get("cpus_available", "?"),
            mach.get("memory_gb", "?"),
        ),
        "| versions | %s |" % ", ".join("%s %s" % kv for kv in mach["versions"].items()),
        "| load average (1, 5, 15 min) at start / end | %s / %s |"
        % (meta["load_average_start"], meta["load_average_end"]),
        "| wall time | %.0f s |" % meta["seconds"],
        "| B (bootstrap resamples) / P (permutations) | %d / %d |" % (st["n_resamples"], st["n_permutations"]),
        "| test sets | coverage %s; errors %s; FWER %d (bootstrap) / %d (permutation); FDR %d; B check %d |"
        % (
            st["coverage_reps"],
            st["error_reps"],
            st["fwer_reps"],
            st["fwer_permutation_reps"],
            st["fdr_reps"],
            st["b_sensitivity_reps"],
        ),
        "| test outcomes | %s |" % ", ".join("%d %s" % (v, k) for k, v in sorted(counts.items())),
        "",
    ]
    if failed:
        lines += ["Failed tests:", ""] + ["- `%s`" % f for f in failed] + [""]
    pops = doc["sections"].get("population", {})
    if pops:
        lines += ["## Populations", ""]
        for kind, p in pops.items():
            lines.append(
                "- **%s**: %d items%s; agreement/correlation of the equal-quality copy: %s"
                % (
                    kind,
                    p["size"],
                    (", class shares %s" % p["class_shares"]) if "class_shares" in p else "",
                    p.get("agreement_logreg_twin_1", p.get("corr_residuals_linear_twin")),
                )
            )
        lines.append("")
    lines += [
        "## Coverage of 95 % confidence intervals (one system)",
        "",
        "Share of test sets whose interval contains the population value, ± one binomial SE. "
        "Bold: outside 95 ± 1.5 points.",
        "",
        _or_none(coverage_tables(doc["sections"], "system")),
        "## Coverage of 95 % paired-difference confidence intervals",
        "",
        _or_none(coverage_tables(doc["sections"], "difference")),
        "## Tests of a difference",
        "",
        _or_none(error_tables(doc["sections"])),
        "## Multiple comparisons",
        "",
        _or_none(fwer_tables(doc["sections"]) + fdr_tables(doc["sections"])),
        "",
        "## Simultaneous inference (issue 20)",
        "",
        _or_none(simultaneous_tables(doc["sections"])),
        "",
        "## Monte Carlo size",
        "",
        _or_none(b_tables(doc["sections"])),
        "",
        "## Cross-checks with peers",
        "",
        "BCa endpoints equal `scipy.stats.bootstrap(method='BCa')` fed the same resamples to 1e-10: "
        "`tests/test_intervals.py::test_endpoints_equal_scipy_bootstrap_fed_the_same_resamples` and "
        "`::test_bca_for_a_regression_metric_equals_scipy` (not repeated here).",
        "",
        permutation_tables(doc["sections"]),
        "",
        compstats_tables(doc["sections"]),
    ]
    outside = doc["outside_target"]
    lines += ["## Outside the target", ""]
    if not outside:
        lines.append("Nothing.")
    for o in outside:
        desc = ", ".join("%s=%s" % (k, v) for k, v in o.items() if k not in ("value", "se", "target", "kind"))
        lines.append(
            "- %s (%s): %s, target %s%s"
            % (
                o["kind"],
                desc,
                fmt_pct(o["value"], o["se"]),
                o["target"],
                "" if o.get("tested", True) else " (recorded, not asserted)",
            )
        )
    lines.append("")
    return "\n".join(lines)
