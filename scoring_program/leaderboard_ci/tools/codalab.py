"""Legacy CodaLab (competition.yaml v1.5): the bundle ``leaderboard-ci init --platform codalab`` writes.

The format was read from codalab/codalab-competitions, ``codalab/apps/web/models.py``
(``CompetitionDefBundle.unpack``) and ``codalab/apps/web/tasks.py`` (how ``scores.txt`` is read):

* the unpacker opens the first archive entry whose name contains ``.yaml``;
* every top-level key except ``html``, ``phases``, ``leaderboard`` and ``admin_names`` is passed to the
  ``Competition`` model (an unknown key fails the upload), and so is every phase key except ``datasets``
  to ``CompetitionPhase``;
* ``html`` maps ``overview``, ``evaluation``, ``terms`` and ``data`` (required) to HTML files;
* ``phases`` maps a number to a phase whose ``scoring_program`` and ``reference_data`` (required) are
  zips inside the bundle, as are ``starting_kit``, ``public_data`` and ``input_data``;
* ``leaderboard`` has ``leaderboards`` (``{key: {label, rank}}``) and ``columns`` (``{key: {leaderboard:
  {label}, label, rank, numeric_format, sort}}``); a column's key is a ``key: value`` line of ``scores.txt``
  (split at its one colon, the value read with ``float``).
"""

from __future__ import annotations

import datetime
import html
import re

import yaml

__all__ = [
    "COMPETITION_FIELDS",
    "PHASE_FIELDS",
    "HTML_PAGES",
    "PHASE_FILE_TYPES",
    "is_legacy",
    "markdown_to_html",
    "legacy_competition_yaml",
    "legacy_columns",
    "legacy_referenced_paths",
]

#: Fields of CodaLab's ``Competition`` model a competition.yaml may set (the unpacker passes the top level to it).
COMPETITION_FIELDS = (
    "title",
    "description",
    "url_redirect",
    "image",
    "image_url_base",
    "has_registration",
    "start_date",
    "end_date",
    "published",
    "force_submission_to_leaderboard",
    "disallow_leaderboard_modifying",
    "enable_medical_image_viewer",
    "enable_detailed_results",
    "show_datasets_from_yaml",
    "reward",
    "allow_teams",
    "enable_per_submission_metadata",
    "allow_public_submissions",
    "enable_forum",
    "anonymous_leaderboard",
    "enable_teams",
    "require_team_approval",
    "hide_top_three",
    "hide_chart",
    "allow_organizer_teams",
    "upper_bound_max_submission_size",
    "competition_docker_image",
    "admin_names",
    "html",
    "phases",
    "leaderboard",
)
#: Fields of CodaLab's ``CompetitionPhase`` model a phase may set (``datasets`` is read apart).
PHASE_FIELDS = (
    "description",
    "phasenumber",
    "label",
    "start_date",
    "max_submissions",
    "max_submissions_per_day",
    "is_scoring_only",
    "scoring_program",
    "reference_data",
    "input_data",
    "datasets",
    "leaderboard_management_mode",
    "force_best_submission_to_leaderboard",
    "auto_migration",
    "is_migrated",
    "execution_time_limit",
    "color",
    "max_submission_size",
    "participant_max_storage_use",
    "delete_submissions_except_best_and_last",
    "phase_never_ends",
    "scoring_program_docker_image",
    "default_docker_image",
    "disable_custom_docker_image",
    "starting_kit",
    "public_data",
    "ingestion_program",
    "ingestion_program_docker_image",
)
#: The pages the unpacker reads (``data`` is required: "No HTML file with key `data` specified").
HTML_PAGES = ("overview", "evaluation", "terms", "data")
#: The phase keys that name a zip of the bundle.
PHASE_FILE_TYPES = (
    "scoring_program",
    "reference_data",
    "ingestion_program",
    "input_data",
    "starting_kit",
    "public_data",
)


def is_legacy(competition):
    """Whether a parsed competition.yaml has CodaLab v1.5's shape (``html:``, numbered phases, ``leaderboard:``)."""
    if not isinstance(competition, dict) or "leaderboards" in competition:
        return False
    return (
        "html" in competition
        or isinstance(competition.get("phases"), dict)
        or isinstance(competition.get("leaderboard"), dict)
    )


def legacy_referenced_paths(competition):
    """Every file a v1.5 competition.yaml points at: (path, what) pairs."""
    out = []
    if isinstance(competition.get("image"), str):
        out.append((competition["image"], "image"))
    pages = competition.get("html")
    if isinstance(pages, dict):
        out.extend((path, "page") for path in pages.values() if isinstance(path, str))
    phases = competition.get("phases")
    for phase in (phases.values() if isinstance(phases, dict) else []) or []:
        if isinstance(phase, dict):
            for key in PHASE_FILE_TYPES:
                if isinstance(phase.get(key), str) and phase[key].endswith(".zip"):
                    out.append((phase[key], key))
    return out


# ---------------------------------------------------------------------------
# Markdown pages as HTML (CodaLab shows the page files as HTML)
# ---------------------------------------------------------------------------
def _inline(text):
    text = html.escape(text, quote=False)
    text = re.sub(r"`([^`]+)`", r"<code>\1</code>", text)
    return re.sub(r"\*\*([^*]+)\*\*", r"<strong>\1</strong>", text)


def markdown_to_html(text):
    """The Markdown the scaffold writes (headings, paragraphs, lists, code, tables) as an HTML fragment."""
    out, paragraph, items, table = [], [], [], []
    lines = text.splitlines()

    def flush():
        if paragraph:
            out.append("<p>%s</p>" % _inline(" ".join(paragraph)))
            del paragraph[:]
        if items:
            out.append("<ul>%s</ul>" % "".join("<li>%s</li>" % _inline(i) for i in items))
            del items[:]
        if table:
            rows = [r for r in table if not re.match(r"^\|[\s|:-]+\|$", r)]
            cells = [[c.strip() for c in r.strip("|").split("|")] for r in rows]
            head = "".join("<th>%s</th>" % _inline(c) for c in cells[0])
            body = "".join("<tr>%s</tr>" % "".join("<td>%s</td>" % _inline(c) for c in r) for r in cells[1:])
            out.append("<table><thead><tr>%s</tr></thead><tbody>%s</tbody></table>" % (head, body))
            del table[:]

    i = 0
    while i < len(lines):
        line = lines[i]
        if line.startswith("```"):
            flush()
            block = []
            i += 1
            while i < len(lines) and not lines[i].startswith("```"):
                block.append(lines[i])
                i += 1
            out.append("<pre><code>%s</code></pre>" % html.escape("\n".join(block), quote=False))
        elif line.startswith("    ") and not items and not paragraph:
            flush()
            out.append("<pre><code>%s</code></pre>" % html.escape(line.strip(), quote=False))
        elif line.startswith("#"):
            flush()
            level = len(line) - len(line.lstrip("#"))
            out.append("<h%d>%s</h%d>" % (level, _inline(line[level:].strip()), level))
        elif line.startswith("|"):
            if paragraph or items:
                flush()
            table.append(line.strip())
        elif line.startswith(("* ", "- ")):
            if paragraph or table:
                flush()
            items.append(line[2:].strip())
        elif not line.strip():
            flush()
        elif items and line.startswith("  "):
            items[-1] += " " + line.strip()
        else:
            if table:
                flush()
            paragraph.append(line.strip())
        i += 1
    flush()
    return "\n".join(out) + "\n"


# ---------------------------------------------------------------------------
# competition.yaml v1.5
# ---------------------------------------------------------------------------
def legacy_columns(columns, board):
    """``{key: column}`` of a v1.5 leaderboard from the Codabench column dicts; the first is the default sort."""
    out = {}
    for column in columns:
        entry = {
            "leaderboard": board,
            "label": column["title"],
            "rank": column["index"] + 1,
            "numeric_format": column.get("precision", 4),
            "sort": column["sorting"],
        }
        if column["index"] == 0:
            entry["selection_default"] = 1
        out[column["key"]] = entry
    return out


def legacy_competition_yaml(title, columns, config, n_items, name, units="test items"):
    """The text of a CodaLab v1.5 competition.yaml with ``columns`` (the Codabench column dicts) on its leaderboard.

    The official metric (the first column) is the leaderboard's default sort (``selection_default``).
    """
    # A YAML timestamp, not a string: the unpacker's parse_datetime refuses a quoted date without a time.
    start = datetime.datetime.combine(datetime.date.today(), datetime.time())
    board = {"label": "Results", "rank": 1}
    leaderboard_columns = legacy_columns(columns, board)
    competition = {
        "title": title,
        "description": "Scores with %g%% bootstrap confidence intervals (leaderboard-ci); %d %s."
        % (100 * config.bootstrap.confidence_level, n_items, units),
        "image": "logo.png",
        "has_registration": True,
        "enable_detailed_results": True,
        "competition_docker_image": "codalab/codalab-legacy:py37",
        "html": {
            "overview": "pages/overview.html",
            "evaluation": "pages/evaluation.html",
            "terms": "pages/terms.html",
            "data": "pages/data.html",
        },
        "phases": {
            1: {
                "phasenumber": 1,
                "label": "Evaluation",
                "description": "Submit your predictions, zipped.",
                "start_date": start,
                "max_submissions": 100,
                "max_submissions_per_day": 5,
                "execution_time_limit": 600,
                "color": "green",
                "scoring_program": "scoring_program.zip",
                "reference_data": "reference_data.zip",
                "starting_kit": "starting_kit.zip",
                "public_data": "public_data.zip",
            }
        },
        "leaderboard": {"leaderboards": {"RESULTS": board}, "columns": leaderboard_columns},
    }
    head = (
        "# Legacy CodaLab bundle (competition.yaml v1.5), written by leaderboard-ci init --platform codalab.\n"
        "# Build and check the uploadable zip with:  leaderboard-ci bundle %s\n"
        "# The leaderboard columns are the scores.txt keys the scoring program writes for reference_data/config.yaml;\n"
        "# after changing the config, print them again with:\n"
        "#   leaderboard-ci columns reference_data/config.yaml --platform codalab\n" % name
    )
    # The one leaderboard mapping is written once as an anchor, every column refers to it (as CodaLab's examples do).
    return head + yaml.safe_dump(competition, sort_keys=False, allow_unicode=True, default_flow_style=False)
