/* Built-in demo host and flavor (seed document 000: real-time KVM on a Huawei
 * RH2288H V3).
 *
 * Host: 2 sockets of Xeon E5-2620 v4, hyper-threading off in the BIOS, NUMA node0 =
 * CPUs 0-7 and node1 = CPUs 8-15, 251 GiB of RAM, isolcpus=4-11 given to guests
 * ([compute] cpu_dedicated_set = 4-11, cpu_shared_set = 0-3,12-15) and
 * vm.nr_hugepages=16 with default_hugepagesz=1G (8 x 1 GiB pages per node).
 * Written as the NUMATopology 1.2 primitive nova stores in
 * compute_nodes.numa_topology, with the node sizes of
 * tests/data/hosts/rh2288h-v3.json (131478404 and 132087636 KiB, i.e. 128396 and
 * 128991 MiB; 4 KiB pages = node memory minus the 1 GiB pages) but no instances
 * yet (that fixture already runs one rt_flavor guest and one shared guest).
 *
 * Flavor: the seed's rt_flavor (nova flavor-create rt_flavor 70 8192 80 4; flavor-key
 * hw:cpu_policy=dedicated hw:cpu_realtime=yes hw:cpu_realtime_mask=^0-1
 * hw:mem_page_size=1GB).
 */
#ifndef NUMAFIT_DEMO_H
#define NUMAFIT_DEMO_H

static const char demo_host_json[] =
    "{\"nova_object.name\":\"NUMATopology\",\"nova_object.namespace\":\"nova\","
    "\"nova_object.version\":\"1.2\","
    "\"nova_object.data\":{\"cells\":[{\"nova_object.name\":\"NUMACell\","
    "\"nova_object.namespace\":\"nova\",\"nova_object.version\":\"1.5\","
    "\"nova_object.data\":{\"id\":0,\"cpuset\":[0,1,2,3],\"pcpuset\":[4,5,6,7],"
    "\"memory\":128396,\"cpu_usage\":0,\"memory_usage\":0,\"pinned_cpus\":[],\"siblings\":[[0],"
    "[1],[2],[3],[4],[5],[6],[7]],"
    "\"mempages\":[{\"nova_object.name\":\"NUMAPagesTopology\","
    "\"nova_object.namespace\":\"nova\",\"nova_object.version\":\"1.1\","
    "\"nova_object.data\":{\"size_kb\":4,\"total\":30772449,\"used\":0,\"reserved\":0}},"
    "{\"nova_object.name\":\"NUMAPagesTopology\",\"nova_object.namespace\":\"nova\","
    "\"nova_object.version\":\"1.1\",\"nova_object.data\":{\"size_kb\":2048,\"total\":0,"
    "\"used\":0,\"reserved\":0}},{\"nova_object.name\":\"NUMAPagesTopology\","
    "\"nova_object.namespace\":\"nova\",\"nova_object.version\":\"1.1\","
    "\"nova_object.data\":{\"size_kb\":1048576,\"total\":8,\"used\":0,\"reserved\":0}}],"
    "\"network_metadata\":{\"nova_object.name\":\"NetworkMetadata\","
    "\"nova_object.namespace\":\"nova\",\"nova_object.version\":\"1.0\","
    "\"nova_object.data\":{\"physnets\":[],\"tunneled\":false}},\"socket\":0}},"
    "{\"nova_object.name\":\"NUMACell\",\"nova_object.namespace\":\"nova\","
    "\"nova_object.version\":\"1.5\",\"nova_object.data\":{\"id\":1,\"cpuset\":[12,13,14,15],"
    "\"pcpuset\":[8,9,10,11],\"memory\":128991,\"cpu_usage\":0,\"memory_usage\":0,"
    "\"pinned_cpus\":[],\"siblings\":[[8],[9],[10],[11],[12],[13],[14],[15]],"
    "\"mempages\":[{\"nova_object.name\":\"NUMAPagesTopology\","
    "\"nova_object.namespace\":\"nova\",\"nova_object.version\":\"1.1\","
    "\"nova_object.data\":{\"size_kb\":4,\"total\":30924757,\"used\":0,\"reserved\":0}},"
    "{\"nova_object.name\":\"NUMAPagesTopology\",\"nova_object.namespace\":\"nova\","
    "\"nova_object.version\":\"1.1\",\"nova_object.data\":{\"size_kb\":2048,\"total\":0,"
    "\"used\":0,\"reserved\":0}},{\"nova_object.name\":\"NUMAPagesTopology\","
    "\"nova_object.namespace\":\"nova\",\"nova_object.version\":\"1.1\","
    "\"nova_object.data\":{\"size_kb\":1048576,\"total\":8,\"used\":0,\"reserved\":0}}],"
    "\"network_metadata\":{\"nova_object.name\":\"NetworkMetadata\","
    "\"nova_object.namespace\":\"nova\",\"nova_object.version\":\"1.0\","
    "\"nova_object.data\":{\"physnets\":[],\"tunneled\":false}},\"socket\":1}}]}}";

static const char demo_flavor_json[] =
    "{\"vcpus\":4,\"memory_mb\":8192,\"extra_specs\":{\"hw:cpu_policy\":\"dedicated\","
    "\"hw:cpu_realtime\":\"yes\",\"hw:cpu_realtime_mask\":\"^0-1\","
    "\"hw:mem_page_size\":\"1GB\"}}";

static const char demo_flavor_name[] = "rt_flavor";

#endif
