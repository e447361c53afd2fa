"""Differential test of numafit.PciRequests.add_port against Debian's nova
26.2.2: nova's neutron API (create_resource_requests) with the port's
facts given by stand-ins for neutron (vnic type, trusted from the binding
profile, physical network, the port's numa_affinity_policy), after the
requests of a flavor alias, for every vnic type, trusted unset / true /
false, a physical network or none, and every pair of port and flavor
policies. The requests must be the same (count, spec, requester, policy).

Exit 0 on success, 1 on failure, 77 when nova is missing. Last line:
"N passed, N failed".
"""
import itertools
import os
import sys
from unittest import mock

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

try:
    from nova import context as nova_context
    from nova import objects
    from nova.network import neutron
    objects.register_all()
except Exception as e:  # pragma: no cover - environment dependent
    print("nova not importable (%s): skip" % e)
    sys.exit(77)

import nova_request_diff as reqdiff  # noqa: E402

VNIC = ["normal", "direct", "macvtap", "direct-physical", "virtio-forwarder", "vdpa",
        "remote-managed", "baremetal", "smart-nic"]
POLICIES = [None, "required", "legacy", "preferred", "socket"]
PORT = "dddddddd-0000-0000-0000-000000000001"


def nova_side(vnic, trusted, physnet, port_policy, policy):
    api = neutron.API()
    reqs = objects.InstancePCIRequests(requests=[objects.InstancePCIRequest(
        count=1, spec=[{"vendor_id": "10de"}], alias_name="t4", numa_policy="legacy")])
    nets = objects.NetworkRequestList(objects=[objects.NetworkRequest(port_id=PORT)])
    with mock.patch.object(neutron, "get_client"), \
            mock.patch.object(api, "has_extended_resource_request_extension",
                              return_value=False), \
            mock.patch.object(api, "_get_port_vnic_info",
                              return_value=(vnic, trusted, "net1", None, port_policy, None)), \
            mock.patch.object(api, "_get_physnet_tunneled_info",
                              return_value=(physnet, physnet is None)):
        api.create_resource_requests(nova_context.get_admin_context(), nets, reqs,
                                     affinity_policy=policy)
    return [(q.count, q.spec, q.requester_id,
             q.numa_policy if "numa_policy" in q else None) for q in reqs.requests[1:]]


def ours_side(numafit, vnic, trusted, physnet, port_policy, policy):
    with numafit.PciRequests.new() as r:
        r.add_port(vnic, physnet, trusted, PORT, port_policy, policy)
        d = r.to_dict()
    return [(q["nova_object.data"]["count"], q["nova_object.data"]["spec"],
             q["nova_object.data"]["requester_id"], q["nova_object.data"].get("numa_policy"))
            for q in d["nova_object.data"]["requests"]]


def main():
    args, numafit = reqdiff.setup(0, 0)
    passed = failed = 0
    for vnic, trusted, physnet, pp, fp in itertools.product(
            VNIC, [None, True, False], ["physnet1", None], POLICIES, POLICIES):
        # trusted comes from the binding profile of SR-IOV ports only
        t = trusted if vnic in neutron.network_model.VNIC_TYPES_SRIOV else None
        nova = nova_side(vnic, t, physnet, pp, fp)
        ours = ours_side(numafit, vnic, t, physnet, pp, fp)
        if nova == ours:
            passed += 1
        else:
            failed += 1
            if failed <= 10:
                print("FAIL %s trusted=%s physnet=%s port=%s flavor=%s:\n  nova %s\n  numafit %s"
                      % (vnic, t, physnet, pp, fp, nova, ours))
    print("%d passed, %d failed" % (passed, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
