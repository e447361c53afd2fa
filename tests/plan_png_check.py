#!/usr/bin/python3
"""Checks of numafit's plan pictures (tests/plan-render.test), stdlib only.

  plan_png_check.py svg FILE.svg [--text S]...    well-formed SVG 1.1 picture
  plan_png_check.py html FILE.html [--text S]...  well-formed (polyglot) HTML5 page
  plan_png_check.py png FILE.png --page FILE.html [--color NAME=#rrggbb]...
                                                  a browser screenshot of the page

svg/html: the document parses as XML; every <svg> has the SVG namespace,
version 1.1, width, height and a matching viewBox; thread boxes (rect
class="t-STATE ...") lie inside the picture and do not overlap; a pinned,
emulator or isolated thread names an instance (class inst-ID) whose legend
swatch exists in the same host box, pinned threads have their instance's
swatch color, instances of a host have distinct colors and an instance id
has the same color on every host of a picture; each --text string
appears in the document's text (after XML unescaping).

png: decodes the PNG (8-bit RGB or RGBA, not interlaced) and checks it is
not blank, that the page fitted the window (the last rows are background),
and, for each color (every --color, plus the color of every pinned thread
of the page), that the number of pixels of exactly that color is between
half and 1.1 times the area of the page's rects filled with it (text and
borders drawn over a box take some of its pixels). Exit status 0 when all
checks pass, 1 otherwise, with one line per failure.
"""

import argparse
import re
import struct
import sys
import xml.etree.ElementTree as ET
import zlib

SVG = "{http://www.w3.org/2000/svg}"
INSTANCE_STATES = ("pinned", "emulator", "isolated")
BODY_MARGIN = 16  # px, the page's body margin (plan_render.c's CSS)
failures = []


def fail(msg):
    failures.append(msg)
    print("FAIL: " + msg)


# ---------------------------------------------------------------- documents


def svgs_of(root):
    if root.tag == SVG + "svg":
        return [root]
    return [e for e in root.iter(SVG + "svg")]


def classes(e):
    return (e.get("class") or "").split()


def num(e, attr):
    try:
        return float(e.get(attr))
    except (TypeError, ValueError):
        return None


def check_picture(svg, where):
    if svg.get("version") != "1.1":
        fail("%s: version is %r, not 1.1" % (where, svg.get("version")))
    w, h = num(svg, "width"), num(svg, "height")
    if not w or not h or w <= 0 or h <= 0:
        fail("%s: no width/height" % where)
        return
    vb = (svg.get("viewBox") or "").split()
    if vb != ["0", "0", svg.get("width"), svg.get("height")]:
        fail("%s: viewBox %r does not match width/height" % (where, svg.get("viewBox")))
    # instances are numbered per host: legends and colors are checked per
    # host box (g class="host"), and an id has one color in the picture
    hosts = [g for g in svg.iter(SVG + "g") if "host" in classes(g)] or [svg]
    color_of_id = {}
    boxes = []
    for hi, host in enumerate(hosts):
        hw = "%s host %d" % (where, hi + 1)
        capped = "instances not listed" in "".join(host.itertext())
        swatches = {}
        for r in host.iter(SVG + "rect"):
            c = classes(r)
            inst = [k for k in c if k.startswith("inst-")]
            if "swatch" in c and inst:
                swatches[inst[0]] = r.get("fill")
                if color_of_id.setdefault(inst[0], r.get("fill")) != r.get("fill"):
                    fail("%s: %s is %s here, %s on another host"
                         % (hw, inst[0], r.get("fill"), color_of_id[inst[0]]))
        colors = {}
        for inst, fill in sorted(swatches.items()):
            if fill in colors:
                fail("%s: instances %s and %s share color %s" % (hw, colors[fill], inst, fill))
            colors[fill] = inst
        for r in host.iter(SVG + "rect"):
            c = classes(r)
            states = [k[2:] for k in c if k.startswith("t-")]
            if not states:
                continue
            x, y, rw, rh = num(r, "x"), num(r, "y"), num(r, "width"), num(r, "height")
            if None in (x, y, rw, rh):
                fail("%s: thread box without geometry" % hw)
                continue
            if x < 0 or y < 0 or x + rw > w or y + rh > h:
                fail("%s: thread box at %g,%g outside the picture" % (hw, x, y))
            boxes.append((x, y, rw, rh))
            if states[0] not in INSTANCE_STATES:
                continue
            inst = [k for k in c if k.startswith("inst-")]
            if not inst:
                fail("%s: %s thread at %g,%g names no instance" % (hw, states[0], x, y))
            elif inst[0] not in swatches:
                if not capped:  # the legend lists at most 128 instances a host
                    fail("%s: %s has no legend entry" % (hw, inst[0]))
            elif states[0] == "pinned" and r.get("fill") != swatches[inst[0]]:
                fail("%s: pinned thread of %s is %s, its legend says %s"
                     % (hw, inst[0], r.get("fill"), swatches[inst[0]]))
    # overlaps: boxes on the same rows, sorted by x
    boxes.sort()
    rows = {}
    for b in boxes:
        rows.setdefault(b[1], []).append(b)
    ys = sorted(rows)
    for i, y in enumerate(ys):
        row = rows[y]
        for a, b in zip(row, row[1:]):
            if b[0] < a[0] + a[2]:
                fail("%s: thread boxes at %g,%g and %g,%g overlap" % (where, a[0], y, b[0], y))
        if i + 1 < len(ys) and ys[i + 1] < y + row[0][3]:
            nxt = rows[ys[i + 1]]
            for a in row:
                for b in nxt:
                    if b[0] < a[0] + a[2] and a[0] < b[0] + b[2]:
                        fail("%s: thread boxes at %g,%g and %g,%g overlap"
                             % (where, a[0], a[1], b[0], b[1]))
                        break
    return len(boxes)


def check_document(path, kind, texts):
    try:
        tree = ET.parse(path)
    except ET.ParseError as e:
        fail("%s: not well-formed XML: %s" % (path, e))
        return None
    root = tree.getroot()
    if kind == "svg":
        if root.tag != SVG + "svg":
            fail("%s: root is %s, not svg" % (path, root.tag))
            return None
        with open(path, "rb") as f:
            if not f.read(64).startswith(b'<?xml version="1.0" encoding="UTF-8"?>'):
                fail("%s: no XML declaration" % path)
    else:
        with open(path, "rb") as f:
            if not f.read(16).startswith(b"<!DOCTYPE html>"):
                fail("%s: no <!DOCTYPE html>" % path)
        if root.tag not in ("html", "{http://www.w3.org/1999/xhtml}html"):
            fail("%s: root is %s, not html" % (path, root.tag))
    pictures = svgs_of(root)
    if not pictures:
        fail("%s: no <svg>" % path)
    nthreads = 0
    for i, svg in enumerate(pictures):
        nthreads += check_picture(svg, "%s: picture %d" % (path, i + 1)) or 0
    alltext = "\n".join(t for t in root.itertext())
    for t in texts:
        if t not in alltext:
            fail("%s: text %r not found" % (path, t))
    print("%s: %d picture(s), %d thread boxes" % (path, len(pictures), nthreads))
    return root


# ---------------------------------------------------------------- PNG


def _lanes_add(a, b, hi, lo):
    """Bytewise a + b mod 256 of two equal-length byte strings held as ints."""
    return ((a & lo) + (b & lo)) ^ ((a ^ b) & hi)


def read_png(path):
    with open(path, "rb") as f:
        data = f.read()
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        raise ValueError("not a PNG")
    pos, idat, ihdr = 8, [], None
    while pos + 8 <= len(data):
        (n,) = struct.unpack(">I", data[pos:pos + 4])
        kind, body = data[pos + 4:pos + 8], data[pos + 8:pos + 8 + n]
        pos += 12 + n
        if kind == b"IHDR":
            ihdr = struct.unpack(">IIBBBBB", body)
        elif kind == b"IDAT":
            idat.append(body)
        elif kind == b"IEND":
            break
    if not ihdr:
        raise ValueError("no IHDR")
    w, h, depth, ctype, _, _, interlace = ihdr
    if depth != 8 or ctype not in (2, 6) or interlace:
        raise ValueError("only 8-bit RGB/RGBA non-interlaced PNGs (depth %d, color type %d, "
                         "interlace %d)" % (depth, ctype, interlace))
    bpp = 3 if ctype == 2 else 4
    stride = w * bpp
    raw = zlib.decompress(b"".join(idat))
    if len(raw) != h * (stride + 1):
        raise ValueError("bad image data size")
    hi = int.from_bytes(b"\x80" * stride, "big")
    lo = int.from_bytes(b"\x7f" * stride, "big")
    prev = bytes(stride)
    rows = []
    for y in range(h):
        ftype = raw[y * (stride + 1)]
        line = raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)]
        if ftype == 1:  # Sub: a prefix sum per channel, by doubling
            s = int.from_bytes(line, "big")
            k = bpp
            while k < stride:
                s = _lanes_add(s, s >> (8 * k), hi, lo)
                k *= 2
            line = s.to_bytes(stride, "big")
        elif ftype == 2:  # Up
            s = _lanes_add(int.from_bytes(line, "big"), int.from_bytes(prev, "big"), hi, lo)
            line = s.to_bytes(stride, "big")
        elif ftype in (3, 4):
            cur = bytearray(line)
            for x in range(stride):
                a = cur[x - bpp] if x >= bpp else 0
                b = prev[x]
                if ftype == 3:
                    cur[x] = (cur[x] + ((a + b) >> 1)) & 255
                else:
                    c = prev[x - bpp] if x >= bpp else 0
                    p = a + b - c
                    pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                    pred = a if pa <= pb and pa <= pc else (b if pb <= pc else c)
                    cur[x] = (cur[x] + pred) & 255
            line = bytes(cur)
        elif ftype != 0:
            raise ValueError("bad filter type %d" % ftype)
        rows.append(line)
        prev = line
    return w, h, bpp, rows


def color_counts(w, h, bpp, rows):
    """{(r, g, b): pixels}; alpha is ignored (a screenshot is opaque)."""
    counts = {}
    for line in rows:
        if bpp == 4:
            line = bytes(b for i, b in enumerate(line) if i % 4 != 3)
        mv = memoryview(line)
        for x in range(0, 3 * w, 3):
            key = bytes(mv[x:x + 3])
            counts[key] = counts.get(key, 0) + 1
    return {(k[0], k[1], k[2]): v for k, v in counts.items()}


def rgb(hexcolor):
    m = re.fullmatch(r"#([0-9a-fA-F]{6})", hexcolor or "")
    if not m:
        return None
    v = int(m.group(1), 16)
    return (v >> 16, (v >> 8) & 255, v & 255)


def fill_areas(root):
    """{(r, g, b): (area of rects with that fill, paths stroked with it)}."""
    areas = {}
    for svg in svgs_of(root):
        for r in svg.iter(SVG + "rect"):
            c = rgb(r.get("fill"))
            if c:
                a, p = areas.get(c, (0, 0))
                areas[c] = (a + (num(r, "width") or 0) * (num(r, "height") or 0), p)
        for e in svg.iter(SVG + "path"):
            c = rgb(e.get("stroke"))
            if c:
                a, p = areas.get(c, (0, 0))
                areas[c] = (a, p + 1)
    return areas


def check_png(path, page, named):
    root = check_document(page, "html", [])
    if root is None:
        return
    try:
        w, h, bpp, rows = read_png(path)
    except (OSError, ValueError, zlib.error) as e:
        fail("%s: %s" % (path, e))
        return
    counts = color_counts(w, h, bpp, rows)
    total = w * h
    bg = counts.get((255, 255, 255), 0)
    print("%s: %dx%d, %d colors, %.1f%% background" % (path, w, h, len(counts), 100.0 * bg / total))
    if len(counts) < 8 or total - bg < total // 50:
        fail("%s: blank (%d colors, %d non-white pixels)" % (path, len(counts), total - bg))
    # the page fitted the window: its last rows and columns are background
    edge = [rows[y] for y in range(h - 4, h)]
    if any(line.count(b"\xff") != len(line) for line in edge):
        fail("%s: the page is taller than the window (enlarge --window-size)" % path)
    widest = max((num(svg, "width") or 0) for svg in svgs_of(root))
    if widest + 2 * BODY_MARGIN > w:
        fail("%s: a picture is %d px wide, the window %d (enlarge --window-size)"
             % (path, widest, w))

    areas = fill_areas(root)
    wanted = dict(named)
    for svg in svgs_of(root):
        for r in svg.iter(SVG + "rect"):
            c = classes(r)
            if "t-pinned" in c:
                inst = [k for k in c if k.startswith("inst-")]
                wanted.setdefault("pinned " + (inst[0] if inst else "?"), r.get("fill"))
    seen = {}
    for name, hexcolor in sorted(wanted.items()):
        c = rgb(hexcolor)
        if c is None:
            fail("%s: bad color %r" % (name, hexcolor))
            continue
        if c in seen:
            continue
        seen[c] = name
        area, paths = areas.get(c, (0, 0))
        px = counts.get(c, 0)
        lo, hi = 0.5 * area, 1.1 * area + 40 * paths + 100
        ok = area > 0 and lo <= px <= hi
        print("  %-24s %s: %7d px for %7d px of boxes (%.2f)%s"
              % (name, hexcolor, px, area, px / area if area else 0, "" if ok else "  <-- FAIL"))
        if not area:
            fail("%s: no box of color %s (%s) in the page" % (path, hexcolor, name))
        elif not ok:
            fail("%s: %d pixels of %s (%s), expected %d to %d"
                 % (path, px, hexcolor, name, lo, hi))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("kind", choices=("svg", "html", "png"))
    ap.add_argument("file")
    ap.add_argument("--text", action="append", default=[])
    ap.add_argument("--page", help="png: the HTML page of the screenshot")
    ap.add_argument("--color", action="append", default=[], help="NAME=#rrggbb")
    a = ap.parse_args()
    if a.kind == "png":
        if not a.page:
            ap.error("png needs --page")
        named = {}
        for spec in a.color:
            name, _, value = spec.partition("=")
            named[name] = value
        check_png(a.file, a.page, named)
    else:
        check_document(a.file, a.kind, a.text)
    if failures:
        print("%d check(s) failed" % len(failures))
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
