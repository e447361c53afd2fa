#!/usr/bin/python3
"""Write the running-domain fixtures of `numafit doctor --domain`:
tests/data/doctor-domains/*.xml, `virsh dumpxml` output of guests on the
captured hosts of tests/data/doctor/. Each good domain is the library's own
domain XML (numafit xml --domain) for a flavor on that host, given what
`virsh dumpxml` adds to what nova writes (the domain id, nova's
<metadata><nova:instance>, the os type's machine, features, a disk, an
interface, a serial console, the seclabel); each broken one is a good one
with one hand-made change. Deterministic; regenerate with

    /usr/bin/python3 tests/data/make-doctor-domains.py BUILDDIR/tools/numafit/numafit

Domains (tests/cli/doctor-domain.test and tests/check_doctor.c list what
the doctor must say about each):

  rt-good-rt.xml            rt-good host: 4 vCPUs, hw:cpu_policy=dedicated,
                            1G pages, hw:cpu_realtime with mask ^0,
                            emulator threads share; as nova writes it.
  rt-good-dedicated.xml     rt-good host: 4 vCPUs, dedicated, hw:numa_nodes=2,
                            1G pages; as nova writes it, with nova's
                            extra specs in its metadata (newer nova).
  rt-good-shared.xml        rt-good host: 2 vCPUs floating over one node's
                            part of cpu_shared_set, hw:numa_nodes=1.
  pinned-to-shared.xml      rt-good-dedicated with vCPU 1 pinned to CPU 3,
                            a CPU of cpu_shared_set.
  cell-split.xml            rt-good-dedicated with vCPU 3 (guest cell 1, on
                            node 1) pinned to CPU 6 of node 0.
  floating-everywhere.xml   rt-good-shared with its vCPUs floating over every
                            CPU (0-15): dedicated CPUs and both nodes.
  rt-off-isolcpus.xml       rt-good-rt with real-time vCPU 3 pinned to CPU 13,
                            which the kernel does not isolate.
  legacy-2m.xml             e5-2620-legacy host (vcpu_pin_set, hyper-
                            threading, 2M pages): 4 vCPUs, 2 GiB, dedicated, 2M.
  legacy-1g-missing.xml     legacy-2m backed by 1G pages, which the host's
                            nodes do not have.
"""
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "doctor-domains")
HOSTS = os.path.join(HERE, "doctor")
NOVA_NS = "http://openstack.org/xmlns/libvirt/nova/1.1"


def numafit_xml(numafit, host, flavor, name, uuid):
    """The library's domain XML for flavor on the captured host."""
    root = os.path.join(HOSTS, host)
    conf = os.path.join(root, "etc/nova/nova.conf")
    with tempfile.TemporaryDirectory() as tmp:
        hj = os.path.join(tmp, "host.json")
        fj = os.path.join(tmp, "flavor.json")
        with open(hj, "w") as f:
            subprocess.run([numafit, "host", "--sysfs", root, "--nova-conf", conf],
                           stdout=f, check=True)
        with open(fj, "w") as f:
            f.write(flavor)
        return subprocess.run([numafit, "xml", "--host", hj, "--flavor", fj,
                               "--nova-conf", conf, "--domain", "--name", name,
                               "--uuid", uuid], stdout=subprocess.PIPE,
                              check=True, text=True).stdout


def dumpxml(xml, domid, instance, flavor_name, vcpus, memory_mb, specs=None):
    """What virsh dumpxml shows of a running nova guest around nova's XML."""
    spec_xml = ""
    if specs:
        spec_xml = "        <nova:extraSpecs>\n" + "".join(
            '          <nova:extraSpec name="%s">%s</nova:extraSpec>\n' % kv
            for kv in sorted(specs.items())) + "        </nova:extraSpecs>\n"
    meta = """  <metadata>
    <nova:instance xmlns:nova="%s">
      <nova:package version="26.2.2"/>
      <nova:name>%s</nova:name>
      <nova:creationTime>2026-11-30 09:12:44</nova:creationTime>
      <nova:flavor name="%s">
        <nova:memory>%d</nova:memory>
        <nova:disk>20</nova:disk>
        <nova:swap>0</nova:swap>
        <nova:ephemeral>0</nova:ephemeral>
        <nova:vcpus>%d</nova:vcpus>
%s      </nova:flavor>
      <nova:owner>
        <nova:user uuid="5e1f0c1e8b7c4f2a9d3e6b1a2c3d4e5f">admin</nova:user>
        <nova:project uuid="0a1b2c3d4e5f40718293a4b5c6d7e8f9">rt</nova:project>
      </nova:owner>
      <nova:root type="image" uuid="9d8c7b6a-5f4e-4d3c-8b2a-1f0e9d8c7b6a"/>
    </nova:instance>
  </metadata>
""" % (NOVA_NS, instance, flavor_name, memory_mb, vcpus, spec_xml)
    xml = xml.replace("<domain type='kvm'>", "<domain type='kvm' id='%d'>" % domid, 1)
    xml = xml.replace("  <memory unit='KiB'>", meta + "  <memory unit='KiB'>", 1)
    mem = xml.split("<memory unit='KiB'>")[1].split("<")[0]
    xml = xml.replace("</memory>\n", "</memory>\n  <currentMemory unit='KiB'>%s</currentMemory>\n"
                      % mem, 1)
    xml = xml.replace("""  <os>
    <type>hvm</type>
  </os>
""", """  <resource>
    <partition>/machine</partition>
  </resource>
  <sysinfo type='smbios'>
    <system>
      <entry name='manufacturer'>OpenStack Foundation</entry>
      <entry name='product'>OpenStack Nova</entry>
    </system>
  </sysinfo>
  <os>
    <type arch='x86_64' machine='pc-i440fx-rhel7.6.0'>hvm</type>
    <boot dev='hd'/>
    <smbios mode='sysinfo'/>
  </os>
  <features>
    <acpi/>
    <apic/>
  </features>
""", 1)
    xml = xml.replace("<cpu mode='host-passthrough'>",
                      "<cpu mode='host-passthrough' check='none'>", 1)
    xml = xml.replace("  <devices>\n", """  <on_poweroff>destroy</on_poweroff>
  <on_reboot>restart</on_reboot>
  <on_crash>destroy</on_crash>
  <devices>
    <emulator>/usr/libexec/qemu-kvm</emulator>
    <disk type='file' device='disk'>
      <driver name='qemu' type='qcow2' cache='none'/>
      <source file='/var/lib/nova/instances/%s/disk'/>
      <target dev='vda' bus='virtio'/>
      <alias name='virtio-disk0'/>
    </disk>
    <interface type='bridge'>
      <mac address='fa:16:3e:4c:2d:%02x'/>
      <source bridge='qbr4c2d1e0f-aa'/>
      <target dev='tap4c2d1e0f-aa'/>
      <model type='virtio'/>
      <alias name='net0'/>
    </interface>
    <serial type='pty'>
      <source path='/dev/pts/%d'/>
      <target type='isa-serial' port='0'/>
      <alias name='serial0'/>
    </serial>
""" % (instance, domid, domid), 1)
    xml = xml.replace("      <memballoon", "    <memballoon").replace(
        "        <stats", "      <stats").replace("      </memballoon>", "    </memballoon>")
    xml = xml.replace("</devices>\n", """</devices>
  <seclabel type='dynamic' model='selinux' relabel='yes'>
    <label>system_u:system_r:svirt_t:s0:c87,c640</label>
  </seclabel>
""", 1)
    return xml


def change(xml, old, new):
    """One hand-made change; the old text must be there exactly once."""
    assert xml.count(old) == 1, (old, xml)
    return xml.replace(old, new)


def main():
    numafit = sys.argv[1] if len(sys.argv) > 1 else "tools/numafit/numafit"
    os.makedirs(OUT, exist_ok=True)
    out = {}

    rt_specs = {"hw:cpu_policy": "dedicated", "hw:mem_page_size": "1GB",
                "hw:cpu_realtime": "yes", "hw:cpu_realtime_mask": "^0",
                "hw:emulator_threads_policy": "share", "hw:numa_nodes": "1"}
    flavor = '{"vcpus":4,"memory_mb":4096,"extra_specs":%s}' % str(rt_specs).replace("'", '"')
    x = numafit_xml(numafit, "rt-good", flavor, "instance-00000007",
                    "6f1c2c3e-1111-4e2a-9a3b-0c1d2e3f4a5b")
    out["rt-good-rt.xml"] = dumpxml(x, 7, "rt-vm-1", "rt.medium", 4, 4096)
    x = change(out["rt-good-rt.xml"], "<vcpupin vcpu='3' cpuset='11'/>",
               "<vcpupin vcpu='3' cpuset='13'/>")
    out["rt-off-isolcpus.xml"] = x

    ded_specs = {"hw:cpu_policy": "dedicated", "hw:mem_page_size": "1GB",
                 "hw:numa_nodes": "2"}
    flavor = '{"vcpus":4,"memory_mb":4096,"extra_specs":%s}' % str(ded_specs).replace("'", '"')
    x = numafit_xml(numafit, "rt-good", flavor, "instance-00000008",
                    "7a2d3e4f-2222-4b3c-8d4e-1f2a3b4c5d6e")
    out["rt-good-dedicated.xml"] = dumpxml(x, 8, "db-1", "pinned.2node", 4, 4096, ded_specs)
    x = change(out["rt-good-dedicated.xml"], "<vcpupin vcpu='1' cpuset='5'/>",
               "<vcpupin vcpu='1' cpuset='3'/>")
    out["pinned-to-shared.xml"] = change(x, "<emulatorpin cpuset='4-5,8-9'/>",
                                         "<emulatorpin cpuset='3-4,8-9'/>")
    x = change(out["rt-good-dedicated.xml"], "<vcpupin vcpu='3' cpuset='9'/>",
               "<vcpupin vcpu='3' cpuset='6'/>")
    out["cell-split.xml"] = change(x, "<emulatorpin cpuset='4-5,8-9'/>",
                                   "<emulatorpin cpuset='4-6,8'/>")

    flavor = '{"vcpus":2,"memory_mb":2048,"extra_specs":{"hw:numa_nodes":"1"}}'
    x = numafit_xml(numafit, "rt-good", flavor, "instance-00000009",
                    "8b3e4f50-3333-4c4d-9e5f-2a3b4c5d6e7f")
    out["rt-good-shared.xml"] = dumpxml(x, 9, "web-1", "m1.numa", 2, 2048)
    x = out["rt-good-shared.xml"]
    for v in (0, 1):
        cur = x.split("<vcpupin vcpu='%d' cpuset='" % v)[1].split("'")[0]
        x = change(x, "<vcpupin vcpu='%d' cpuset='%s'/>" % (v, cur),
                   "<vcpupin vcpu='%d' cpuset='0-15'/>" % v)
    cur = x.split("<emulatorpin cpuset='")[1].split("'")[0]
    out["floating-everywhere.xml"] = change(x, "<emulatorpin cpuset='%s'/>" % cur,
                                            "<emulatorpin cpuset='0-15'/>")

    flavor = ('{"vcpus":4,"memory_mb":2048,"extra_specs":{"hw:cpu_policy":"dedicated",'
              '"hw:mem_page_size":"2MB"}}')
    x = numafit_xml(numafit, "e5-2620-legacy", flavor, "instance-0000000a",
                    "9c4f5061-4444-4d5e-8f60-3b4c5d6e7f80")
    out["legacy-2m.xml"] = dumpxml(x, 10, "app-1", "pinned.2m", 4, 2048)
    out["legacy-1g-missing.xml"] = change(out["legacy-2m.xml"],
                                          "<page size='2048' unit='KiB' nodeset='0'/>",
                                          "<page size='1048576' unit='KiB' nodeset='0'/>")

    for name, text in sorted(out.items()):
        with open(os.path.join(OUT, name), "w") as f:
            f.write(text)


if __name__ == "__main__":
    main()
