"""The report pages' style sheet: the shared one (:mod:`leaderboard_ci.page_style`) and the report's own rules.

Used by the end-of-phase report, the shake-up page and the benchmark page.
"""

from ..page_style import page_css

__all__ = ["CSS"]

CSS = page_css(
    """
section>p{overflow-wrap:anywhere}
nav ul{margin:4px 0;padding-left:20px;columns:2}
nav li{margin:1px 0}
.explain{display:grid;grid-template-columns:repeat(auto-fit,minmax(300px,1fr));gap:6px 22px;font-size:14px}
.explain p{margin:4px 0}
figure img{display:block;max-width:100%;height:auto}
figure img.wide{max-width:none}
td.c{text-align:center}
td.name{min-width:16em}
tr.winner td{font-weight:600;background:#eef3fb}
tr.baseline td{color:#8a5200}
.tag{display:inline-block;font-size:11px;font-weight:600;padding:0 5px;border-radius:8px;margin-left:6px;
vertical-align:1px;background:#f4e6cf;color:#8a5200}
.tag.win{background:#dbe6f6;color:#1f4e9c}
.zero{color:#c62828}.nonzero{color:#2e7d32}
.yes{color:#1f4e9c;font-weight:700}
table.matrix td,table.matrix th{font-size:12px;padding:2px 6px;text-align:right;white-space:nowrap}
table.matrix th.row{text-align:left}
table.matrix td.empty{background:#fff;border-bottom:none}
.two{display:flex;flex-wrap:wrap;gap:8px 24px;align-items:flex-start}
.two>div:first-child{flex:0 1 auto;max-width:100%;overflow-x:auto}
.two>div:last-child{flex:1 1 480px;min-width:min(480px,100%)}
figure.plot img{max-width:100%}
figure.plot img.wide{max-width:none}
.scroll>table>tbody>tr>:first-child,.scroll>table>thead>tr>:first-child{position:sticky;left:0;z-index:1}
.scroll>table>tbody>tr>td:first-child{background:#fff}
.scroll>table>tbody>tr.winner>td:first-child{background:#eef3fb}
.scroll>table.matrix>tbody>tr>th.row{background:#fff;box-shadow:1px 0 0 #d8dee4}
.scroll,figure.plot,.sig{border-right:3px solid transparent}
.scroll::before,figure.plot::before,.sig::before{content:"\\2194  wider than the window: scroll sideways \\2192";
display:block;position:sticky;left:0;width:max-content;max-height:0;overflow:hidden;font:600 13px/1.5 system-ui,
sans-serif;color:#0b57a4}
@supports (animation-timeline:scroll()){.scroll,figure.plot,.sig{animation:more linear both;
animation-timeline:scroll(self inline)}.scroll::before,figure.plot::before,.sig::before{animation:more-note linear both;
animation-timeline:scroll(nearest inline)}}
@keyframes more{from{border-right-color:#8c959f}to{border-right-color:#d8dee4}}
@keyframes more-note{from,to{max-height:2em}}
details{margin:8px 0}
summary{cursor:pointer;color:#0b57a4;font-weight:600}
.row{display:flex;flex-wrap:wrap;gap:8px 40px;align-items:flex-start}
""",
    width=1200,
)
