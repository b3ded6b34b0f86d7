"""The report page's style sheet (inlined: the page needs no external resources)."""

__all__ = ["CSS"]

CSS = """
:root{color-scheme:light}
body{margin:0;background:#fff;color:#1f2328;font:15px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,
"Helvetica Neue",Arial,"Noto Sans",sans-serif}
main{max-width:1200px;margin:0 auto;padding:18px 22px 30px}
h1{font-size:13px;font-weight:600;color:#57606a;margin:0;text-transform:uppercase;letter-spacing:.05em}
h2{font-size:21px;margin:36px 0 6px;padding-top:14px;border-top:2px solid #d8dee4}
h3{font-size:16px;margin:22px 0 4px}
p{margin:6px 0}
a{color:#0b57a4}
.headline{font-size:25px;font-weight:650;margin:6px 0 4px;overflow-wrap:anywhere}
.lead,.warn,section>p{overflow-wrap:anywhere}
.headline .ci{font-weight:400;color:#57606a;white-space:nowrap}
.lead{background:#f3f6fa;border-left:4px solid #1f4e9c;padding:8px 12px;margin:10px 0}
.warn{background:#fff8e6;border-left:4px solid #b36b00;padding:8px 12px;margin:10px 0}
.muted,figcaption,.note{color:#57606a;font-size:13px}
nav ul{margin:4px 0;padding-left:20px;columns:2}
nav li{margin:1px 0}
.explain{display:grid;grid-template-columns:repeat(auto-fit,minmax(300px,1fr));gap:6px 22px;font-size:14px}
.explain p{margin:4px 0}
figure{margin:10px 0 16px;overflow-x:auto}
figure img{display:block;max-width:100%;height:auto}
figure img.wide{max-width:none}
.scroll{overflow-x:auto}
table{border-collapse:collapse;margin:6px 0;font-size:14px}
th,td{padding:3px 9px;border-bottom:1px solid #e4e8ec;text-align:left;vertical-align:top;overflow-wrap:break-word}
th{background:#f6f8fa;font-weight:600;overflow-wrap:normal}
td.n{text-align:right;font-variant-numeric:tabular-nums;white-space:nowrap;overflow-wrap:normal}
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
code,.sig{font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,"Liberation Mono",monospace;font-size:13px}
.sig{display:block;background:#f6f8fa;padding:6px 8px;margin:4px 0 8px;white-space:nowrap;overflow-x:auto;
font-size:12px}
footer{margin-top:34px;padding-top:12px;border-top:2px solid #d8dee4;font-size:13px;color:#57606a}
ul.notes li{margin:3px 0}
"""
