#!/usr/bin/env python3
"""Latency versus size as an SVG, from benchmark JSON lines, with no plotting library (the GPU
machines have none). One line per (op, backend) that matches the filter; log-log axes.

    plot_svg.py OUT.svg TITLE FILE.jsonl... [--ops REGEX] [--form FORM]
"""
import json
import math
import re
import sys

W, H, L, R, T, B = 900, 560, 80, 260, 40, 60
COLORS = ["#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#8c564b", "#e377c2", "#7f7f7f",
          "#bcbd22", "#17becf", "#000000", "#aec7e8"]


def main():
    args = sys.argv[1:]
    ops, form = ".*", None
    if "--ops" in args:
        i = args.index("--ops"); ops = args[i + 1]; del args[i:i + 2]
    if "--form" in args:
        i = args.index("--form"); form = args[i + 1]; del args[i:i + 2]
    out, title, files = args[0], args[1], args[2:]
    series = {}
    for path in files:
        with open(path) as f:
            for line in f:
                if not line.startswith("{"):
                    continue
                r = json.loads(line)
                if not re.fullmatch(ops, r["op"]) or (form and r.get("form") != form) or r["bytes"] <= 0:
                    continue
                series.setdefault(f'{r["op"]} [{r["backend"]}]', []).append((r["bytes"], r["p50_us"]))
    if not series:
        sys.exit("plot_svg.py: no rows match")
    xs = [x for s in series.values() for x, _ in s]
    ys = [y for s in series.values() for _, y in s if y > 0]
    x0, x1 = math.log2(min(xs)), math.log2(max(xs)) + 1e-9
    y0, y1 = math.floor(math.log10(min(ys))), math.ceil(math.log10(max(ys)))
    px = lambda x: L + (math.log2(x) - x0) / (x1 - x0) * (W - L - R)
    py = lambda y: H - B - (math.log10(y) - y0) / max(y1 - y0, 1) * (H - T - B)
    svg = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{W}" height="{H}" font-family="sans-serif" font-size="12">',
           f'<rect width="{W}" height="{H}" fill="white"/>',
           f'<text x="{W / 2 - R / 2}" y="22" text-anchor="middle" font-size="15">{title}</text>']
    for e in range(y0, y1 + 1):
        y = py(10 ** e)
        svg.append(f'<line x1="{L}" x2="{W - R}" y1="{y:.1f}" y2="{y:.1f}" stroke="#ddd"/>')
        svg.append(f'<text x="{L - 6}" y="{y + 4:.1f}" text-anchor="end">{10 ** e:g} us</text>')
    e = math.ceil(x0)
    while e <= x1:
        x = px(2 ** e)
        svg.append(f'<line x1="{x:.1f}" x2="{x:.1f}" y1="{T}" y2="{H - B}" stroke="#eee"/>')
        b = 2 ** e
        label = f"{b >> 20}M" if b >= 1 << 20 else f"{b >> 10}K" if b >= 1 << 10 else str(b)
        svg.append(f'<text x="{x:.1f}" y="{H - B + 16}" text-anchor="middle">{label}</text>')
        e += 2
    svg.append(f'<text x="{(L + W - R) / 2}" y="{H - 18}" text-anchor="middle">bytes</text>')
    for k, (name, pts) in enumerate(sorted(series.items())):
        c = COLORS[k % len(COLORS)]
        pts = sorted(p for p in pts if p[1] > 0)
        path = " ".join(f"{px(x):.1f},{py(y):.1f}" for x, y in pts)
        svg.append(f'<polyline points="{path}" fill="none" stroke="{c}" stroke-width="2"/>')
        for x, y in pts:
            svg.append(f'<circle cx="{px(x):.1f}" cy="{py(y):.1f}" r="2.5" fill="{c}"/>')
        ly = T + 14 + 16 * k
        svg.append(f'<line x1="{W - R + 12}" x2="{W - R + 32}" y1="{ly - 4}" y2="{ly - 4}" stroke="{c}" stroke-width="2"/>')
        svg.append(f'<text x="{W - R + 38}" y="{ly}">{name}</text>')
    svg.append("</svg>")
    with open(out, "w") as f:
        f.write("\n".join(svg) + "\n")


if __name__ == "__main__":
    main()
