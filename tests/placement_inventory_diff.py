"""Differential test: libnumafit's inventories (numafit_inventory_*, through
numafit.Inventory) against Debian's placement service (python3-placement
8.0.0), run in-process on an SQLite database (placement.direct, the way
nova's functional tests run it).

Each case: a resource provider gets a random inventory of VCPU, PCPU,
MEMORY_MB and DISK_GB (totals, reserved amounts, min_unit, max_unit,
step_size, allocation ratios, some of them invalid) through PUT
/resource_providers/{uuid}/inventories, and random allocations within its
capacity; then a random request of amounts:
- placement's answer to PUT .../inventories (accepted or 400) against
  numafit.Inventory.from_json of the same records (accepted or refused);
- GET /allocation_candidates?resources=... (the provider is a candidate or
  not) against Inventory.check() on the same records and usages;
- PUT /allocations/{consumer} with those amounts (204, or refused) against
  Inventory.claim() (done, or NoSpace), and afterwards the usages
  placement reports against the inventory's JSON usages.

Exit 0 on success, 1 on failure, 77 when placement is not importable.
Last line: "N passed, N failed".
"""
import logging
import os
import random
import sys
import uuid
import warnings

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

try:
    from oslo_config import cfg
    from oslo_config import fixture as config_fixture
    from oslo_policy import opts as policy_opts
    from placement import conf as placement_conf
    from placement import direct
    from placement.tests import fixtures as placement_fixtures
except Exception as e:  # pragma: no cover - environment dependent
    print("placement not importable (%s): skip" % e)
    sys.exit(77)

import nova_request_diff as reqdiff  # noqa: E402

SEED = 20261204
CASES = 800
CLASSES = ("VCPU", "PCPU", "MEMORY_MB", "DISK_GB")
MAX = 2147483647


def start_placement():
    """An in-process placement with an empty SQLite database."""
    cf = config_fixture.Config(cfg.ConfigOpts())
    cf.setUp()
    placement_conf.register_opts(cf.conf)
    db = placement_fixtures.Database(cf, set_config=True)
    db.setUp()
    cf.conf([], default_config_files=[])
    policy_opts.set_defaults(cf.conf)
    cf.config(group="oslo_policy", enforce_scope=False)
    return cf.conf


def gen_record(r, bad):
    """A record; with bad, one value placement refuses (most of the time)."""
    total = r.choice([1, 2, 4, 16, 64, 1024, 65536, MAX])
    rec = {"total": total}
    if r.random() < 0.7:
        rec["reserved"] = r.choice([0, 0, 1, 2, total // 4, total // 2, total])
    if r.random() < 0.3:
        rec["min_unit"] = r.choice([1, 1, 2, 4])
    if r.random() < 0.8:
        rec["max_unit"] = r.choice([total, total, 1, 8, max(1, total // 2)])
    if r.random() < 0.3:
        rec["step_size"] = r.choice([1, 1, 2, 4])
    if r.random() < 0.8:
        rec["allocation_ratio"] = r.choice([1.0, 1.5, 4.0, 16.0, 0.5, 0.0, 1.1, 2.0, 0.3])
    if bad:
        key = r.choice(["total", "reserved", "min_unit", "max_unit", "step_size",
                        "allocation_ratio", "extra"])
        rec[key] = r.choice({"total": [0, -1, MAX + 1, "4"], "reserved": [-1, total + 1, MAX + 1],
                             "min_unit": [0, -2], "max_unit": [0, MAX + 1],
                             "step_size": [0, -1], "allocation_ratio": [-1.0, "2", None, 4e38],
                             "extra": [1]}[key])
    return rec


def gen(r):
    inv = {rc: gen_record(r, r.random() < 0.06) for rc in CLASSES if r.random() < 0.9}
    ask = {}
    for rc in CLASSES:
        if rc in inv and r.random() < 0.6:
            t = inv[rc]["total"] if isinstance(inv[rc]["total"], int) and inv[rc]["total"] > 0 \
                else 4
            ask[rc] = max(1, r.choice([1, 2, 3, 4, 8, t // 8, t // 4, t // 2, t, t + 1]))
    if not ask or r.random() < 0.05:
        ask[r.choice(CLASSES)] = r.choice([1, 2])
    smt_host = r.random() < 0.5
    smt_ask = r.choice([0, 0, 0, 2, 4])  # numafit_resources_result bits: required, forbidden
    return inv, ask, r.choice([0.0, 0.0, 0.3, 0.7, 0.95, 1.0]), smt_host, smt_ask


def capacity(rec):
    return int((rec["total"] - rec.get("reserved", 0)) * rec.get("allocation_ratio", 1.0))



def ours_inventory(numafit, inv, usages, traits):
    try:
        return numafit.Inventory.from_json({"inventories": inv, "usages": usages,
                                            "traits": traits})
    except numafit.errors.NumafitError:
        return None


def run_case(client, numafit, case, r):
    inv, ask, fill, smt_host, smt_ask = case
    rp = str(uuid.uuid4())
    out = {}
    resp = client.post("/resource_providers", json={"name": rp, "uuid": rp})
    assert resp.status_code in (200, 201), resp.text
    gen_ = resp.json()["generation"]
    traits = ["HW_CPU_HYPERTHREADING"] if smt_host else []
    if traits:
        resp = client.put("/resource_providers/%s/traits" % rp,
                          json={"resource_provider_generation": gen_, "traits": traits})
        assert resp.status_code == 200, resp.text
        gen_ = resp.json()["resource_provider_generation"]
    resp = client.put("/resource_providers/%s/inventories" % rp,
                      json={"resource_provider_generation": gen_, "inventories": inv})
    out["accepted"] = resp.status_code == 200
    ours = ours_inventory(numafit, inv, {}, traits)
    out["ours_accepted"] = ours is not None
    if not out["accepted"] or ours is None:
        if ours is not None:
            ours.close()
        return out, None
    # allocations within capacity: a part of each class's room, one unit size at a time
    usages = {}
    for rc, rec in inv.items():
        cap = capacity(rec)
        step, lo, hi = rec.get("step_size", 1), rec.get("min_unit", 1), rec.get("max_unit", 1)
        want = int(cap * fill)
        amount = (min(want, hi) // step) * step
        if lo <= amount <= hi and amount > 0:
            usages[rc] = amount
    if usages:
        resp = client.put("/allocations/%s" % uuid.uuid4(), json={
            "allocations": {rp: {"resources": usages}}, "project_id": "p", "user_id": "u",
            "consumer_generation": None}, microversion="1.28")
        assert resp.status_code == 204, (resp.status_code, resp.text, inv, usages)
    ours.close()
    ours = ours_inventory(numafit, inv, usages, traits)
    try:
        q = ",".join("%s:%d" % kv for kv in sorted(ask.items()))
        if smt_ask:
            q += "&required=%sHW_CPU_HYPERTHREADING" % ("!" if smt_ask == 4 else "")
        resp = client.get("/allocation_candidates?resources=%s" % q, microversion="1.36")
        out["candidate"] = resp.status_code == 200 and rp in resp.json()["provider_summaries"]
        res = numafit.Resources(ask)
        res.bits = smt_ask
        try:
            out["ours_room"], why = ours.check(res)
        except numafit.errors.InvalidArgument:  # an amount above 2147483647
            assert max(ask.values()) > MAX
            out["ours_room"] = False
        resp = client.put("/allocations/%s" % uuid.uuid4(), json={
            "allocations": {rp: {"resources": ask}}, "project_id": "p", "user_id": "u",
            "consumer_generation": None}, microversion="1.28")
        out["claimed"] = resp.status_code == 204
        try:
            ours.claim(ask)
            out["ours_claimed"] = True
        except (numafit.errors.NoSpace, numafit.errors.InvalidArgument):
            out["ours_claimed"] = False
        resp = client.get("/resource_providers/%s/usages" % rp)
        placed = {k: v for k, v in resp.json()["usages"].items() if v}
        mine = {k: v for k, v in ours.to_dict()["usages"].items() if v}
        out["usages_same"] = placed == mine
    finally:
        ours.close()
    return out, (inv, ask, usages)


def main():
    args, numafit = reqdiff.setup(CASES, SEED)
    logging.disable(logging.CRITICAL)
    warnings.simplefilter("ignore")
    conf = start_placement()
    r = random.Random(args.seed)
    passed = failed = 0
    outcomes = {}
    with direct.PlacementDirect(conf, latest_microversion=True) as client:
        for _ in range(args.cases):
            case = gen(r)
            out, detail = run_case(client, numafit, case, r)
            ok = out["accepted"] == out["ours_accepted"]
            if ok and out["accepted"]:
                ok = (out["candidate"] == out["ours_room"] and
                      out["claimed"] == out["ours_claimed"] and out["usages_same"])
                key = "candidate" if out["candidate"] else "no candidate"
            else:
                key = "inventory accepted" if out["accepted"] else "inventory refused"
            outcomes[key] = outcomes.get(key, 0) + 1
            if ok:
                passed += 1
            else:
                failed += 1
                print("FAIL %r\n  %r\n  %r" % (case, out, detail))
    print("placement outcomes: %s" % ", ".join("%s=%d" % kv for kv in sorted(outcomes.items())))
    print("%d passed, %d failed" % (passed, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
