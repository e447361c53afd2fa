#!/usr/bin/python3
"""Instructions per numafit_fit() under callgrind, per line of the PCI mix,
with devices against the same line without (doc/performance.md, issue 14).

  bench/pci_callgrind.py [--list] BIN PCIMIX.jsonl NOPCI.jsonl

BIN is tools/numafit/.libs/numafit (LD_LIBRARY_PATH picks the library).
One callgrind run per file: `numafit bench` with collection only inside
numafit_fit and a dump after each line's numafit_host_free; a line's count
is its dump's total over its calls (the repetitions `numafit bench` prints,
plus the warm-up). Prints the per-line ratio by outcome: median, 75th and
90th percentile, lines within 2x, worst, median instructions. With --list,
then every line above 2x: its number, outcome, ratio and both counts.
"""
import glob
import os
import re
import statistics
import subprocess
import sys
import tempfile


def measure(binp, path):
    tmp = tempfile.mkdtemp(prefix='pcicg')
    env = dict(os.environ, LD_BIND_NOW='1')
    r = subprocess.run(['valgrind', '--tool=callgrind', '--toggle-collect=numafit_fit',
                        '--dump-after=numafit_host_free',
                        '--callgrind-out-file=' + tmp + '/cg', binp, 'bench', path],
                       env=env, capture_output=True, text=True, check=True)
    rows = re.findall(r'^\s+(\d+)\s+(yes|no)\s+.*?\s(\d+)\s*$', r.stdout, re.M)
    dumps = sorted((int(f.rsplit('.', 1)[1]), f) for f in glob.glob(tmp + '/cg.*'))
    if len(rows) != len(dumps):
        sys.exit('%s: %d lines timed, %d dumps' % (path, len(rows), len(dumps)))
    out = {}
    for (line, fits, reps), (_, f) in zip(rows, dumps):
        with open(f) as fp:
            text = fp.read()
        tot = int(re.search(r'^summary: (\d+)', text, re.M).group(1))
        # the fit searched other cells: it laid out the device bounds
        # (numafit__pci_caps), or asked the caller's check again
        searched = 'numafit__pci_caps' in text or 'pci_search' in text
        out[int(line)] = (fits == 'yes', tot / (int(reps) + 1), searched)
        os.unlink(f)
    os.unlink(tmp + '/cg')
    os.rmdir(tmp)
    return out


def pct(v, q):
    v = sorted(v)
    k = (len(v) - 1) * q
    f = int(k)
    c = min(f + 1, len(v) - 1)
    return v[f] + (v[c] - v[f]) * (k - f)


def main():
    args = sys.argv[1:]
    listing = args[:1] == ['--list']
    if listing:
        args = args[1:]
    if len(args) != 3:
        sys.exit(__doc__)
    P = measure(args[0], args[1])
    N = measure(args[0], args[2])
    groups = {'all': [], 'no search': [], 'refused for devices': [], 'fit both ways': [],
              'fit neither way': [], 'fit only with devices': []}
    for i in P:
        groups['all'].append(i)
        if not P[i][2]:
            groups['no search'].append(i)
        pf, nf = P[i][0], N.get(i, (False, 0))[0]
        groups['refused for devices' if nf and not pf else
               'fit both ways' if nf else
               'fit neither way' if not pf else 'fit only with devices'].append(i)
    print('%-22s %4s %7s %7s %7s %5s %7s %8s %8s' % ('lines', 'n', 'median', '75th', '90th',
                                                     '<=2x', 'worst', 'Ir', 'Ir nopci'))
    for g, ids in groups.items():
        if not ids:
            continue
        r = [P[i][1] / N[i][1] for i in ids]
        print('%-22s %4d %6.2fx %6.2fx %6.2fx %5d %6.2fx %8.0f %8.0f' % (
            g, len(ids), statistics.median(r), pct(r, .75), pct(r, .9), sum(x <= 2 for x in r),
            max(r), statistics.median(P[i][1] for i in ids),
            statistics.median(N[i][1] for i in ids)))
    if listing:
        for g, ids in list(groups.items())[2:]:
            for i in sorted(ids, key=lambda i: -P[i][1] / N[i][1]):
                if P[i][1] > 2 * N[i][1]:
                    print('line %4d  %-22s %5.2fx %8.0f %8.0f%s' % (
                        i, g, P[i][1] / N[i][1], P[i][1], N[i][1],
                        '  searched' if P[i][2] else ''))


if __name__ == '__main__':
    main()
