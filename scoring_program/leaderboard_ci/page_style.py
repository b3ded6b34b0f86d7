"""The one style sheet of every page the package writes (inlined: the pages need no external resources).

:data:`BASE_CSS` holds what the detailed results (``scoring/detailed_html.py``, the participant's
page), the end-of-phase report, the shake-up and the benchmark pages share: the font, the colours,
headings, tables, notes, signatures, scrolling.  Each page adds only its own rules
(:func:`page_css`): the report its matrices and sticky columns, the detailed results its inline
SVG.  Standard library only: the scoring program (Python 3.7) imports it.
"""

__all__ = ["BASE_CSS", "page_css"]

BASE_CSS = """
:root{color-scheme:light}
body{margin:0;background:#fff;color:#1f2328;font:15px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,
"Helvetica Neue",Arial,"Noto Sans",sans-serif}
main{max-width:%(width)dpx;margin:0 auto;padding:18px 22px 30px}
h1{font-size:13px;font-weight:600;color:#57606a;margin:0;text-transform:uppercase;letter-spacing:.05em}
h2{font-size:21px;margin:36px 0 6px;padding-top:14px;border-top:2px solid #d8dee4}
h3{font-size:16px;margin:22px 0 4px}
p{margin:6px 0}
a{color:#0b57a4}
.headline{font-size:25px;font-weight:650;margin:6px 0 4px;overflow-wrap:anywhere}
.headline .ci{font-weight:400;color:#57606a;white-space:nowrap}
.lead{background:#f3f6fa;border-left:4px solid #1f4e9c;padding:8px 12px;margin:10px 0;overflow-wrap:anywhere}
.warn{background:#fff8e6;border-left:4px solid #b36b00;padding:8px 12px;margin:10px 0;overflow-wrap:anywhere}
.muted,figcaption,.note{color:#57606a;font-size:13px}
figure{margin:10px 0 16px;overflow-x:auto}
.scroll{overflow-x:auto}
table{border-collapse:collapse;margin:6px 0;font-size:14px}
th,td{padding:3px 9px;border-bottom:1px solid #e4e8ec;text-align:left;vertical-align:top}
td{overflow-wrap:break-word}
th{background:#f6f8fa;font-weight:600;overflow-wrap:normal}
td.n{text-align:right;font-variant-numeric:tabular-nums;white-space:nowrap;overflow-wrap:normal}
ul.notes li{margin:3px 0}
code,.sig{font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,"Liberation Mono",monospace}
code{font-size:13px}
.sig{display:block;background:#f6f8fa;color:#1f2328;padding:6px 8px;margin:4px 0 8px;white-space:nowrap;
overflow-x:auto;font-size:12px}
footer{margin-top:34px;padding-top:12px;border-top:2px solid #d8dee4;font-size:13px;color:#57606a}
"""


def page_css(extra, width=1200):
    """:data:`BASE_CSS` for a page ``width`` pixels wide at most, followed by the page's own rules ``extra``."""
    return BASE_CSS % {"width": width} + extra.lstrip("\n")
