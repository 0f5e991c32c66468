#!/usr/bin/env python3
"""Growth plot for docs/performance.md (issue #23): CPU, RSS and store size of `netvigil run` against the number of
targets, from the `RESULT scale` lines that `bash Benchmarks/run.sh scale` prints.

    python3 Benchmarks/scale_plot.py scale-100.log scale-1000.log scale-10000.log > docs/scale-growth.svg

Plain SVG, no plotting library: three panels, log-scaled target axis, one point per run (the last per target count)."""
import math, re, sys

runs = {}
for path in sys.argv[1:]:
    for line in open(path):
        if line.startswith("RESULT scale "):
            fields = dict(item.split("=", 1) for item in line.split()[2:])
            runs[int(fields["targets"])] = fields
if not runs:
    sys.exit("no RESULT scale lines")
targets = sorted(runs)
panels = [("CPU, % of one core", "cpu_percent"), ("RSS, MB", "rss_mb"), ("store after the run, MB", "store_mb")]
width, height, margin = 260, 200, 44
out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width * len(panels)}" height="{height + 30}" '
       'font-family="sans-serif" font-size="11">',
       f'<text x="8" y="{height + 24}">netvigil run: HTTPS targets every 60 s against loopback nginx '
       '(x: targets, log scale)</text>']
low, high = math.log10(min(targets)), math.log10(max(targets))
for index, (title, key) in enumerate(panels):
    left = index * width
    values = [float(runs[t][key]) for t in targets]
    top = max(values) * 1.15 or 1
    def x(t): return left + margin + (math.log10(t) - low) / max(high - low, 1e-9) * (width - margin - 16)
    def y(v): return height - margin + 12 - v / top * (height - margin - 20)
    out.append(f'<text x="{left + margin}" y="14" font-weight="bold">{title}</text>')
    out.append(f'<line x1="{left + margin}" y1="{y(0)}" x2="{left + width - 12}" y2="{y(0)}" stroke="#888"/>')
    out.append(f'<line x1="{left + margin}" y1="{y(0)}" x2="{left + margin}" y2="{y(top)}" stroke="#888"/>')
    for tick in (0, top / 2, top):
        out.append(f'<text x="{left + margin - 4}" y="{y(tick) + 4}" text-anchor="end">{tick:.0f}</text>')
    points = " ".join(f"{x(t):.1f},{y(v):.1f}" for t, v in zip(targets, values))
    out.append(f'<polyline points="{points}" fill="none" stroke="#2a6fb0" stroke-width="2"/>')
    for t, v in zip(targets, values):
        out.append(f'<circle cx="{x(t):.1f}" cy="{y(v):.1f}" r="3" fill="#2a6fb0"/>')
        out.append(f'<text x="{x(t):.1f}" y="{y(v) - 7:.1f}" text-anchor="middle">{v:.1f}</text>')
        out.append(f'<text x="{x(t):.1f}" y="{y(0) + 14:.1f}" text-anchor="middle">{t:,}</text>')
out.append("</svg>")
print("\n".join(out))
