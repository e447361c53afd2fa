"""Differential test: libnumafit's numafit_request_new() (through the
Python binding, numafit.Request.from_json) against nova's
numa_get_constraints() (Debian's nova 26.2.2, profile NUMAFIT_REQUEST_ZED).

Random flavors and images (fixed seed) mix every input of nova-reference C
with valid and invalid values. For each, both must refuse with the same nova
exception class, or both accept with the same cells (cpuset, pcpuset, memory,
pagesize, policies) and emulator threads policy. Documented divergences
(request.c's header comment: nova crashes or accepts nonsense) are counted
apart and are not failures. The upstream ("latest") profile must give the
same answers whenever no memory-encryption input is present.

Exit 0 on success, 1 on failure, 77 when nova is not importable.
Last line: "N passed, N failed".
"""
import argparse
import json
import os
import random
import sys

TOP = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

SEED = 20261130
CASES = 3000

try:
    from nova import exception as nova_exc  # noqa: F401
    from nova import objects
    from nova.virt import hardware as hw
    from oslo_utils import strutils
    objects.register_all()
except Exception as e:  # pragma: no cover - environment dependent
    print("nova not importable (%s): skip" % e)
    sys.exit(77)

CPU_SPECS = ['0', '1', '0-1', '0-3', '^0', '^0-1', '^1', '1-', '3-1', '', '0,,1', ' 0 ',
             '0-20000', '99', '^99', '0-1,^1', '2-3', '1,3', '0-7', '^0-3', 'a', '^']
GOOD_SPECS = ['0', '1', '0-1', '^0', '^0-1', '^1', '2-3', '1,3', '0,2']
GOOD_PAGE_SIZES = ['small', 'large', 'any', '2048', '2MB', '1GiB', '1048576', '4', '2048KiB']
PAGE_SIZES = ['small', 'large', 'any', '2048', '2MB', '1GiB', '1.5MB', '3', '0', '-1', 'foo',
              '2M', '4k', '2048KiB', '100B', '-2KiB', '0KiB', '1048576', '', '4096b', '02048']


def pick(r, values):
    return values[r.randrange(len(values))]


def numa_lists(r, vcpus, mem, prefix, sep, sane):
    """hw:numa_cpus.N / hw:numa_mem.N keys (valid or broken)."""
    out = {}
    n = r.choice([1, 2, 2, 3, 4])
    cpus = list(range(vcpus))
    r.shuffle(cpus)
    parts = [sorted(cpus[i::n]) for i in range(n)]
    mems = [mem // n] * n
    mems[-1] += mem - sum(mems)
    mode = r.random() * (2.5 if sane else 1.0)
    if mode < 0.15 and n > 1:  # duplicate a CPU
        parts[1] = parts[1] + parts[0][:1]
    elif mode < 0.25:  # an out of range CPU
        parts[0] = parts[0] + [vcpus + r.choice([0, 3, 20000])]
    elif mode < 0.35 and n > 1:  # unassigned
        parts[1] = parts[1][1:]
    elif mode < 0.45:  # memory sum mismatch
        mems[0] += r.choice([1, -1, 512])
    elif mode < 0.5:  # negative / nonsense memory
        mems[0] = r.choice([-4096, 'abc', '1_024', ' 512 ', '1.5', '\x1c512', '\x1f512',
                            '\u00a0512', '512\u3000', '\u2009512\u0085'])
    elif mode < 0.55:  # gap
        n_keep = r.randrange(n)
        parts[n_keep] = None
    for i in range(n):
        if parts[i] is not None and r.random() > 0.03:
            spec = ','.join(str(c) for c in parts[i]) if parts[i] else '^0'
            if parts[i] and parts[i] == list(range(parts[i][0], parts[i][-1] + 1)) and \
                    len(parts[i]) > 1 and r.random() < 0.5:
                spec = '%d-%d' % (parts[i][0], parts[i][-1])
            out['%snuma_cpus%s%d' % (prefix, sep, i)] = spec
        if parts[i] is not None and r.random() > 0.03:
            m = mems[i]
            out['%snuma_mem%s%d' % (prefix, sep, i)] = m if isinstance(m, str) else str(m)
    return out


def gen_coherent(r):
    """A flavor/image that nova most likely accepts, with a NUMA topology."""
    vcpus = r.choice([1, 2, 4, 6, 8, 12, 16])
    nodes = r.choice([d for d in (1, 2, 3, 4) if vcpus % d == 0])
    mem = nodes * r.choice([256, 512, 1024, 2048])
    es, props = {}, {}
    policy = r.choice([None, 'shared', 'dedicated', 'dedicated', 'mixed'])
    on_image = r.random() < 0.2
    if policy:
        (props if on_image else es)['hw%scpu_policy' % ('_' if on_image else ':')] = policy
    if policy in ('dedicated', 'mixed'):
        if r.random() < 0.3:
            es['hw:cpu_thread_policy'] = r.choice(['prefer', 'isolate', 'require'])
        if r.random() < 0.3:
            es['hw:emulator_threads_policy'] = r.choice(['share', 'isolate'])
        if vcpus > 1 and r.random() < (0.3 if policy == 'dedicated' else 0.5):
            es['hw:cpu_realtime'] = 'yes'
            mask = r.choice(['^0', '^0-%d' % (vcpus // 2 - 1) if vcpus > 2 else '^0',
                             '1-%d' % (vcpus - 1), '%d' % (vcpus - 1)])
            if r.random() < 0.3:
                props['hw_cpu_realtime_mask'] = mask
            else:
                es['hw:cpu_realtime_mask'] = mask
        elif policy == 'mixed':
            es['hw:cpu_dedicated_mask'] = r.choice(['^0', '0', '1-%d' % (vcpus - 1)]) \
                if vcpus > 1 else '0'
    if r.random() < 0.6:
        es['hw:numa_nodes'] = str(nodes)
        if r.random() < 0.5:
            cpus = list(range(vcpus))
            r.shuffle(cpus)
            per = mem // nodes
            split = r.randrange(0, per + 1) if nodes > 1 else 0
            for i in range(nodes):
                part = sorted(cpus[i::nodes])
                es['hw:numa_cpus.%d' % i] = ','.join(map(str, part))
                m = per + (split if i == 0 else -split if i == 1 else 0)
                es['hw:numa_mem.%d' % i] = str(m)
    if r.random() < 0.4:
        es['hw:mem_page_size'] = r.choice(['small', 'large', 'any', '2048', '2MB', '1GiB'])
        if es['hw:mem_page_size'] in ('large', 'any') and r.random() < 0.4:
            props['hw_mem_page_size'] = r.choice(['2MB', '1048576', 'small', 'large'])
        if r.random() < 0.3:
            es['hw:locked_memory'] = r.choice(['true', 'false'])
    if r.random() < 0.1:
        es['hw:pmem'] = '4GB,8GB'
    return vcpus, mem, es, props


def gen_case(r):
    if r.random() < 0.3:
        return gen_coherent(r)
    vcpus = r.choice([1, 2, 3, 4, 4, 6, 8, 16])
    mem = r.choice([512, 1024, 2048, 3072, 4096, 4096, 8192, 0])
    es = {}
    props = {}
    sane = r.random() < 0.5  # mostly valid values, to reach the topology code

    def maybe(p):
        return r.random() < p

    def val(good, bad):
        """A value from good, or (more often when not sane) from bad."""
        if bad and r.random() < (0.1 if sane else 0.4):
            return pick(r, bad)
        return pick(r, good)

    if maybe(0.6):
        es['hw:cpu_policy'] = val(['dedicated', 'dedicated', 'shared', 'mixed', 'mixed'],
                                  ['bogus', ''])
    if maybe(0.25):
        es['hw:cpu_thread_policy'] = val(['prefer', 'isolate', 'require'], ['x', ''])
    if maybe(0.25):
        es['hw:emulator_threads_policy'] = val(['share', 'isolate', 'isolate'], ['shared', ''])
    if maybe(0.25):
        es['hw:cpu_realtime'] = val(['yes', 'True', '1', 'no', 'false', 'on'], ['bogus'])
    if maybe(0.3):
        es['hw:cpu_realtime_mask'] = val(GOOD_SPECS, CPU_SPECS)
    if maybe(0.3):
        es['hw:cpu_dedicated_mask'] = val(GOOD_SPECS, CPU_SPECS)
    if maybe(0.3):
        es['hw:numa_nodes'] = val(['1', '2', '2', '4', '8'],
                                  ['3', '0', '-1', 'abc', '1.5', '02', '1000000', ' 2', ''])
    if maybe(0.25):
        es.update(numa_lists(r, vcpus, mem, 'hw:', '.', sane))
        if maybe(0.5) and 'hw:numa_nodes' not in es:
            n = len([k for k in es if k.startswith('hw:numa_cpus.')])
            es['hw:numa_nodes'] = str(max(n, 1))
    if maybe(0.3):
        es['hw:mem_page_size'] = val(GOOD_PAGE_SIZES, PAGE_SIZES)
    if maybe(0.1):
        es['hw:locked_memory'] = val(['true', 'false', 'yes', 'no'], ['x'])
    if maybe(0.08):
        es['hw:pmem'] = val(['4GB', '4GB, 8GB'], [',', ' ', ''])
    if maybe(0.08):
        es[pick(r, ['resources:VCPU', 'resources1:VCPU'])] = val([str(vcpus)], ['2', 'abc', '0'])
    if maybe(0.08):
        es[pick(r, ['resources:PCPU', 'resources2:PCPU'])] = val(
            [str(vcpus), str(vcpus + 1)], ['1', 'x'])
    if maybe(0.08):
        es[pick(r, ['trait:HW_CPU_HYPERTHREADING', 'trait1:HW_CPU_HYPERTHREADING'])] = val(
            ['forbidden', 'required'], ['x'])
    if maybe(0.04):
        es['hw:mem_encryption'] = pick(r, ['true', 'false'])

    if maybe(0.4):
        if maybe(0.3):
            props['hw_cpu_policy'] = val(['dedicated', 'shared', 'mixed'], ['bogus'])
        if maybe(0.15):
            props['hw_cpu_thread_policy'] = val(['prefer', 'isolate', 'require'], ['x'])
        if maybe(0.15):
            props['hw_cpu_realtime_mask'] = val(GOOD_SPECS, CPU_SPECS)
        if maybe(0.15):
            props['hw_numa_nodes'] = val([1, 2, '2', 4], ['abc', 0, 3])
        if maybe(0.15):
            props.update(numa_lists(r, vcpus, mem, 'hw_', '.', sane))
        if maybe(0.15):
            props['hw_mem_page_size'] = val(GOOD_PAGE_SIZES, PAGE_SIZES)
        if maybe(0.1):
            props['hw_locked_memory'] = pick(r, [True, False, 'yes', 'no'])
        if maybe(0.05):
            props['trait:HW_CPU_HYPERTHREADING'] = 'required'
        if maybe(0.03):
            props['hw_mem_encryption'] = pick(r, [True, False])
    return vcpus, mem, es, props


def nova_run(vcpus, mem, es, props):
    """('ok', cells, emu) / ('exc', class name, text) / ('image', class name, text)."""
    try:
        image = objects.ImageMeta.from_dict({'properties': dict(props)})
    except Exception as e:
        return ('image', type(e).__name__, str(e))
    flavor = objects.Flavor(vcpus=vcpus, memory_mb=mem, extra_specs=dict(es))
    try:
        t = hw.numa_get_constraints(flavor, image)
    except Exception as e:
        return ('exc', type(e).__name__, str(e))
    if t is None:
        return ('ok', None, None)
    cells = [(sorted(c.cpuset), sorted(c.pcpuset), c.memory, c.pagesize, c.cpu_policy,
              c.cpu_thread_policy) for c in t.cells]
    return ('ok', cells, t.emulator_threads_policy)


def import_numafit(library=None):
    """The numafit package of bindings/python, loading `library` (default:
    $NUMAFIT_LIBRARY, else the installed libnumafit.so.0)."""
    if library:
        os.environ['NUMAFIT_LIBRARY'] = library
    sys.path.insert(0, os.path.join(TOP, 'bindings', 'python'))
    import numafit
    return numafit


def setup(cases, seed, **more):
    """The options of a differential test (--library, --numafit, --cases,
    --seed, and more: name -> (type, default)) and the numafit package:
    (args, numafit)."""
    ap = argparse.ArgumentParser()
    ap.add_argument('--library')
    ap.add_argument('--numafit')
    ap.add_argument('--cases', type=int, default=cases)
    ap.add_argument('--seed', type=int, default=seed)
    for name, (typ, default) in more.items():
        ap.add_argument('--' + name, type=typ, default=default)
    args = ap.parse_args()
    return args, import_numafit(args.library)


def ours_run(numafit, vcpus, mem, es, props, profile):
    try:
        r = numafit.Request.from_json({'vcpus': vcpus, 'memory_mb': mem, 'extra_specs': es},
                                      {'properties': props} if props else None, profile)
    except numafit.errors.NumafitError as e:
        return ('exc', e.exception or 'rc=%d' % -e.errno, e.text, e.where)
    with r:
        doc = r.to_dict()
        cell_count = len(r)
    if doc is None:
        assert cell_count == 0 and not r.has_numa
        return ('ok', None, None)
    assert cell_count == len(doc['nova_object.data']['cells']) and r.has_numa
    cells = []
    for i, c in enumerate(doc['nova_object.data']['cells']):
        d = c['nova_object.data']
        assert d['id'] == i
        cells.append((d['cpuset'], d['pcpuset'], d['memory'], d['pagesize'], d['cpu_policy'],
                      d['cpu_thread_policy']))
    return ('ok', cells, doc['nova_object.data']['emulator_threads_policy'])


def nova_page_size(v):
    """nova's check_and_return_pages_size for one value, or None if it raises."""
    if v in ('any', 'large', 'small'):
        return None
    if v.isdigit():
        return int(v)
    try:
        return strutils.string_to_bytes(v, return_int=True) / 1024
    except ValueError:
        return None


def known_divergence(nova, ours, es, props):
    """Name of the documented divergence explaining a mismatch, or None."""
    if ours[0] != 'exc':
        return None
    exc, where = ours[1], ours[3]
    if nova[0] == 'image':
        return 'image property coercion fails in ImageMeta.from_dict'
    if nova[1] == 'ValueError' and exc == 'InvalidCPUThreadAllocationPolicy' and \
            es.get('hw:cpu_thread_policy') == '':
        return 'hw:cpu_thread_policy="" stored in the cells'
    if exc == 'InvalidRequest' and 'numa_mem' in where:
        return 'non-integer or negative numa_mem'
    if exc == 'MemoryPageSizeInvalid':
        v = es.get(where) if where.startswith('hw:') else props.get(where)
        ps = nova_page_size(str(v)) if v is not None else None
        if ps is not None and (ps <= 0 or ps != int(ps)):
            return 'page size 0, negative or not whole KiB'
    if nova[0] == 'exc' and {nova[1], exc} == {'ImageNUMATopologyCPUOutOfRange',
                                               'ImageNUMATopologyCPUDuplicates'}:
        return 'set iteration order (out of range vs duplicate)'
    return None


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--library')
    ap.add_argument('--numafit')
    ap.add_argument('--cases', type=int, default=CASES)
    ap.add_argument('--seed', type=int, default=SEED)
    ap.add_argument('-v', '--verbose', action='store_true')
    args = ap.parse_args()
    numafit = import_numafit(args.library)

    r = random.Random(args.seed)
    passed = failed = 0
    diverged = {}
    text_diff = 0
    outcomes = {}
    for i in range(args.cases):
        vcpus, mem, es, props = gen_case(r)
        nova = nova_run(vcpus, mem, es, props)
        ours = ours_run(numafit, vcpus, mem, es, props, 'zed')
        latest = ours_run(numafit, vcpus, mem, es, props, 'latest')
        key = nova[1] if nova[0] != 'ok' else ('NUMA' if nova[1] else 'None')
        outcomes[key] = outcomes.get(key, 0) + 1
        ok = False
        if nova[0] == 'ok' and ours[0] == 'ok':
            ok = nova[1:] == ours[1:]
        elif nova[0] == 'exc' and ours[0] == 'exc':
            ok = nova[1] == ours[1]
            if ok and nova[2] != ours[2]:
                text_diff += 1
                if args.verbose:
                    print('text: nova %r / ours %r' % (nova[2], ours[2]))
        why = None if ok else known_divergence(nova, ours, es, props)
        enc = 'hw:mem_encryption' in es or 'hw_mem_encryption' in props
        if not enc and latest[:2] != ours[:2]:
            print('FAIL profile latest != zed: %r %r %r %r' % (vcpus, mem, es, props))
            failed += 1
            continue
        if ok:
            passed += 1
        elif why:
            diverged[why] = diverged.get(why, 0) + 1
        else:
            failed += 1
            print('FAIL vcpus=%d mem=%d extra_specs=%s props=%s\n  nova: %r\n  ours: %r'
                  % (vcpus, mem, json.dumps(es), json.dumps(props), nova, ours))
    print('nova outcomes: %s' % ', '.join('%s=%d' % kv for kv in sorted(outcomes.items())))
    for why, n in sorted(diverged.items()):
        print('known divergence (%s): %d' % (why, n))
    print('same exception class, different text: %d' % text_diff)
    print('%d passed, %d failed' % (passed, failed))
    return 1 if failed else 0


if __name__ == '__main__':
    sys.exit(main())
