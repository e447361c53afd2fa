#!/usr/bin/python3
"""Write the host-doctor fixtures: captured /proc, /sys and /etc trees of
compute hosts, one directory per scenario under tests/data/doctor/, each with
its etc/nova/nova.conf. Deterministic (sorted, fixed contents); regenerate with

    /usr/bin/python3 tests/data/make-doctor-trees.py

Scenarios (tests/check_doctor.c lists the findings each one must give):

  rt-good       Huawei RH2288H V3, 2 x Xeon E5-2620 v4, hyper-threading off in
                the BIOS (16 CPUs, node0 0-7, node1 8-15), set up as seed
                document 000 teaches: kernel-rt, tuned realtime-virtual-host
                with isolated_cores=4-11, isolcpus/nohz_full/rcu_nocbs=4-11,
                default_hugepagesz=1G hugepagesz=1G hugepages=16 (8 per node),
                hugetlbfs mounted, cpu_dedicated_set=4-11,
                cpu_shared_set=0-3,12-15, cpu_mode=host-passthrough.
  rt-mistakes   The same host with the usual mistakes: hyper-threading on (32
                CPUs, siblings N and N+16), no isolcpus/nohz_full/rcu_nocbs,
                1G pages allocated at run time (nothing on the command line),
                no hugetlbfs mount, the stock (non-rt) kernel, tuned
                virtual-host, kvm_intel preemption_timer=N, cpu_dedicated_set
                overlapping cpu_shared_set, vcpu_pin_set under [libvirt] (as
                the seed's nova.conf step writes it), reserved_huge_pages for
                a node that does not exist, no cpu_mode.
  e5-2620-legacy
                The 2-socket Xeon E5-2620 host of seed document 002 (6 cores x
                2 threads per socket, siblings 0,12 1,13 ...; node0 0-5,12-17,
                node1 6-11,18-23) in legacy [DEFAULT] vcpu_pin_set mode, no
                isolation, 2M pages 512 on node0 and 1024 on node1, an Ubuntu
                kernel, no tuned.
  badly-tuned   seed 000's Sugon I620-G30 isolated for real-time guests with
                the kernel tuning left wrong (see badly_tuned()).

rt-mistakes and e5-2620-legacy have none of the kernel tuning files (THP,
KSM, cpufreq, cpuidle, sys/block, sys/module beyond kvm_intel): the doctor
lists those checks as not checked.
"""
import os
import shutil

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "doctor")
GiB_KiB = 1024 * 1024


def fmt_list(cpus):
    """Kernel cpu list: '0-3,8,10-11'."""
    cpus = sorted(cpus)
    out, i = [], 0
    while i < len(cpus):
        j = i
        while j + 1 < len(cpus) and cpus[j + 1] == cpus[j] + 1:
            j += 1
        out.append(str(cpus[i]) if i == j else "%d-%d" % (cpus[i], cpus[j]))
        i = j + 1
    return ",".join(out)


def write(root, rel, text):
    path = os.path.join(root, rel)
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as f:
        f.write(text)


def node_meminfo(node, total_kib, huge_kib):
    free = total_kib - huge_kib - 2 * GiB_KiB
    return ("Node %d MemTotal:       %d kB\n"
            "Node %d MemFree:        %d kB\n"
            "Node %d MemUsed:        %d kB\n"
            "Node %d HugePages_Total:  %d\n"
            "Node %d HugePages_Free:   %d\n"
            "Node %d HugePages_Surp:   0\n" % (
                node, total_kib, node, free, node, total_kib - free,
                node, 0, node, 0, node))


def tree(name, *, nodes, siblings, cmdline, osrelease, rt, smt_control,
         mounts, pages, default_kib, tuned=None, preemption_timer="Y",
         nova_conf, free=None, tuning=None):
    """nodes: [(cpus, MemTotal kB)]; siblings: cpu -> list; pages:
    {size_kib: [count per node]}; free: the same for free_hugepages (default:
    all free); tuning: a dict of the kernel tuning files (see write_tuning)
    or None for a capture without them; tuned: (profile, variables file
    name, isolated_cores) or None."""
    root = os.path.join(OUT, name)
    shutil.rmtree(root, ignore_errors=True)
    cpus = sorted(c for n in nodes for c in n[0])
    write(root, "proc/cmdline", cmdline + "\n")
    write(root, "proc/sys/kernel/osrelease", osrelease + "\n")
    if rt:
        write(root, "sys/kernel/realtime", "1\n")
    mount_lines = [
        "sysfs /sys sysfs rw,nosuid,nodev,noexec,relatime 0 0",
        "proc /proc proc rw,nosuid,nodev,noexec,relatime 0 0",
        "devtmpfs /dev devtmpfs rw,nosuid,size=131869276k,nr_inodes=32967319,mode=755 0 0",
        "/dev/mapper/centos-root / xfs rw,relatime,attr2,inode64,noquota 0 0",
    ] + mounts
    write(root, "proc/mounts", "\n".join(mount_lines) + "\n")
    total_mem = sum(n[1] for n in nodes)
    total_default = sum(pages.get(default_kib, [0]))
    write(root, "proc/meminfo",
          "MemTotal:       %d kB\n"
          "MemFree:        %d kB\n"
          "HugePages_Total:   %d\n"
          "HugePages_Free:    %d\n"
          "HugePages_Rsvd:        0\n"
          "HugePages_Surp:        0\n"
          "Hugepagesize:    %d kB\n" % (total_mem, total_mem // 2, total_default,
                                       total_default, default_kib))
    sysc = "sys/devices/system/cpu/"
    write(root, sysc + "online", fmt_list(cpus) + "\n")
    write(root, sysc + "possible", fmt_list(cpus) + "\n")
    isolated = ""
    for tok in cmdline.split():
        if tok.startswith("isolcpus="):
            isolated = tok.split("=", 1)[1]
        if tok.startswith("nohz_full="):
            write(root, sysc + "nohz_full", tok.split("=", 1)[1] + "\n")
    write(root, sysc + "isolated", isolated + "\n")
    if not os.path.exists(os.path.join(root, sysc + "nohz_full")):
        write(root, sysc + "nohz_full", "(null)\n")
    write(root, sysc + "smt/control", smt_control + "\n")
    write(root, sysc + "smt/active", ("1" if smt_control == "on" else "0") + "\n")
    ncores = {}
    for ni, (ncpus, _) in enumerate(nodes):
        for c in ncpus:
            core = min(siblings[c])
            t = sysc + "cpu%d/topology/" % c
            write(root, t + "physical_package_id", "%d\n" % ni)
            ncores.setdefault(ni, sorted({min(siblings[x]) for x in ncpus}))
            write(root, t + "core_id", "%d\n" % ncores[ni].index(core))
            write(root, t + "thread_siblings_list", fmt_list(siblings[c]) + "\n")
            write(root, t + "core_siblings_list", fmt_list(ncpus) + "\n")
    sysn = "sys/devices/system/node/"
    write(root, sysn + "online", fmt_list(range(len(nodes))) + "\n")
    for ni, (ncpus, memkib) in enumerate(nodes):
        d = sysn + "node%d/" % ni
        write(root, d + "cpulist", fmt_list(ncpus) + "\n")
        huge = sum(size * counts[ni] for size, counts in pages.items())
        write(root, d + "meminfo", node_meminfo(ni, memkib, huge))
        write(root, d + "distance",
              " ".join("10" if j == ni else "21" for j in range(len(nodes))) + "\n")
        for size in (2048, GiB_KiB):
            p = d + "hugepages/hugepages-%dkB/" % size
            count = pages.get(size, [0] * len(nodes))[ni]
            write(root, p + "nr_hugepages", "%d\n" % count)
            nfree = (free or pages).get(size, [0] * len(nodes))[ni]
            write(root, p + "free_hugepages", "%d\n" % nfree)
            write(root, p + "surplus_hugepages", "0\n")
    for size in (2048, GiB_KiB):
        p = "sys/kernel/mm/hugepages/hugepages-%dkB/" % size
        count = sum(pages.get(size, [0]))
        write(root, p + "nr_hugepages", "%d\n" % count)
        write(root, p + "free_hugepages", "%d\n" % sum((free or pages).get(size, [0])))
    write(root, "sys/module/kvm_intel/parameters/preemption_timer",
          preemption_timer + "\n")
    if tuned:
        profile, varfile, cores = tuned
        write(root, "etc/tuned/active_profile", profile + "\n")
        write(root, "etc/tuned/profile_mode", "manual\n")
        if varfile:
            write(root, "etc/tuned/" + varfile,
                  "# Examples:\n# isolated_cores=2,4-7\n# isolated_cores=2-23\n"
                  "#\n# To disable the kvm-lapic timer advance, uncomment:\n"
                  "# lapic_timer_adv_ns=0\n"
                  "isolated_cores=%s\n" % cores)
    write(root, "etc/nova/nova.conf", nova_conf)
    if tuning:
        write_tuning(root, cpus, **tuning)


def write_tuning(root, cpus, *, thp, thp_defrag, ksm_run, ksmtuned, governor,
                 cpuidle, block, modules, sysctl=None, pstate=None, dev_kvm=False):
    """The files of the kernel tuning checks: transparent_hugepage/enabled
    and defrag (the kernel's "[choice]" lines), ksm/run, ksmtuned enabled in
    systemd (the unit file copied, as a capture with cp -L has it), each
    CPU's scaling_governor and cpuidle states [(name, latency us, disabled)],
    intel_pstate/status, sys/block/*/queue/scheduler, the loaded modules in
    sys/module and proc/modules, etc/sysctl.conf, dev/kvm."""
    write(root, "sys/kernel/mm/transparent_hugepage/enabled", thp + "\n")
    write(root, "sys/kernel/mm/transparent_hugepage/defrag", thp_defrag + "\n")
    write(root, "sys/kernel/mm/ksm/run", "%d\n" % ksm_run)
    write(root, "sys/kernel/mm/ksm/pages_shared", "%d\n" % (183712 if ksm_run else 0))
    if ksmtuned:
        write(root, "etc/systemd/system/multi-user.target.wants/ksmtuned.service",
              "[Unit]\nDescription=Kernel Samepage Merging (KSM) Tuning Daemon\n"
              "After=syslog.target\nRequires=ksm.service\n\n[Service]\n"
              "ExecStart=/usr/sbin/ksmtuned\nType=forking\n\n[Install]\n"
              "WantedBy=multi-user.target\n")
    sysc = "sys/devices/system/cpu/"
    if pstate:
        write(root, sysc + "intel_pstate/status", pstate + "\n")
    for c in cpus:
        d = sysc + "cpu%d/" % c
        write(root, d + "cpufreq/scaling_governor", governor + "\n")
        for i, (name, latency, disabled) in enumerate(cpuidle):
            st = d + "cpuidle/state%d/" % i
            write(root, st + "name", name + "\n")
            write(root, st + "latency", "%d\n" % latency)
            write(root, st + "disable", "%d\n" % disabled)
    for dev, sched in block.items():
        write(root, "sys/block/%s/queue/scheduler" % dev, sched + "\n")
    lines = []
    for m in modules:
        write(root, "sys/module/%s/refcnt" % m, "0\n")
        lines.append("%s 65536 0 - Live 0x0000000000000000" % m)
    write(root, "proc/modules", "\n".join(lines) + "\n")
    if sysctl:
        write(root, "etc/sysctl.conf", sysctl)
    if dev_kvm:
        write(root, "dev/kvm", "")


def main():
    # Huawei RH2288H V3: 2 x E5-2620 v4 (8 cores), 251 GiB
    mem = [131787568, 132120576]
    ht_off = {c: [c] for c in range(16)}
    rt_cmdline = ("BOOT_IMAGE=/vmlinuz-3.10.0-1062.rt56.1022.el7.x86_64 "
                  "root=/dev/mapper/centos-root ro crashkernel=auto "
                  "rd.lvm.lv=centos/root rd.lvm.lv=centos/swap rhgb quiet "
                  "default_hugepagesz=1G hugepagesz=1G hugepages=16 "
                  "intel_idle.max_cstate=0 processor.max_cstate=1 "
                  "skew_tick=1 isolcpus=4-11 intel_pstate=disable nosoftlockup "
                  "nohz=on nohz_full=4-11 rcu_nocbs=4-11")
    tree("rt-good",
         nodes=[(list(range(0, 8)), mem[0]), (list(range(8, 16)), mem[1])],
         siblings=ht_off, cmdline=rt_cmdline,
         osrelease="3.10.0-1062.rt56.1022.el7.x86_64", rt=True,
         smt_control="notsupported",
         mounts=["hugetlbfs /dev/hugepages hugetlbfs rw,seclabel,relatime,pagesize=1024M 0 0"],
         pages={GiB_KiB: [8, 8]}, default_kib=GiB_KiB,
         tuned=("realtime-virtual-host", "realtime-virtual-host-variables.conf", "4-11"),
         preemption_timer="Y",
         tuning=dict(thp="always madvise [never]", thp_defrag="always madvise [never]",
                     ksm_run=0, ksmtuned=False, governor="performance",
                     # BIOS power management off: acpi_idle with C1 only
                     cpuidle=[("POLL", 0, 0), ("C1", 1, 0)],
                     block={"sda": "noop [deadline] cfq", "sdb": "noop [deadline] cfq"},
                     modules=["kvm", "kvm_intel", "vhost", "vhost_net", "tun"],
                     dev_kvm=True),
         nova_conf="[DEFAULT]\n"
                   "# seed 000: 16 x 1G pages, 8 per node\n"
                   "reserved_huge_pages = node:0,size:1GB,count:0\n"
                   "\n"
                   "[compute]\n"
                   "cpu_dedicated_set = 4-11\n"
                   "cpu_shared_set = 0-3,12-15\n"
                   "\n"
                   "[libvirt]\n"
                   "virt_type = kvm\n"
                   "cpu_mode = host-passthrough\n"
                   "realtime_scheduler_priority = 1\n")
    ht_on = {c: [c % 16, c % 16 + 16] for c in range(32)}
    tree("rt-mistakes",
         nodes=[(list(range(0, 8)) + list(range(16, 24)), mem[0]),
                (list(range(8, 16)) + list(range(24, 32)), mem[1])],
         siblings=ht_on,
         cmdline=("BOOT_IMAGE=/vmlinuz-3.10.0-1062.el7.x86_64 "
                  "root=/dev/mapper/centos-root ro crashkernel=auto "
                  "rd.lvm.lv=centos/root rd.lvm.lv=centos/swap rhgb quiet"),
         osrelease="3.10.0-1062.el7.x86_64", rt=False, smt_control="on",
         mounts=["mqueue /dev/mqueue mqueue rw,seclabel,relatime 0 0"],
         pages={GiB_KiB: [8, 8]}, default_kib=2048,
         tuned=("virtual-host", None, None), preemption_timer="N",
         nova_conf="[DEFAULT]\n"
                   "reserved_huge_pages = node:2,size:1GB,count:1\n"
                   "\n"
                   "[compute]\n"
                   "cpu_dedicated_set = 4-11\n"
                   "cpu_shared_set = 0-5,12-15\n"
                   "\n"
                   "[libvirt]\n"
                   "virt_type = kvm\n"
                   "vcpu_pin_set = 4-11\n"
                   "realtime_scheduler_priority = 1\n")
    # seed 002: 2 x Xeon E5-2620 (6 cores, 2 threads), siblings N, N+12
    sib = {c: [c % 12, c % 12 + 12] for c in range(24)}
    tree("e5-2620-legacy",
         nodes=[(list(range(0, 6)) + list(range(12, 18)), 65842048),
                (list(range(6, 12)) + list(range(18, 24)), 66060288)],
         siblings=sib,
         cmdline=("BOOT_IMAGE=/boot/vmlinuz-4.4.0-21-generic "
                  "root=UUID=4d5e0bd4-6d0b-4f50-8a3e-0a5b1f6f2c11 ro quiet splash"),
         osrelease="4.4.0-21-generic", rt=False, smt_control="on",
         mounts=["hugetlbfs /dev/hugepages hugetlbfs rw,relatime,pagesize=2M 0 0"],
         pages={2048: [512, 1024]}, default_kib=2048, tuned=None,
         preemption_timer="Y",
         nova_conf="[DEFAULT]\n"
                   "vcpu_pin_set = 2-11,14-23\n"
                   "reserved_host_memory_mb = 4096\n"
                   "\n"
                   "[libvirt]\n"
                   "virt_type = kvm\n")


def badly_tuned():
    """The Sugon I620-G30 of seed 000 (2 x Xeon Gold 6148, 20 cores each,
    hyper-threading off, 1 TiB) isolated by hand for real-time guests, with
    the kernel left as installed: THP and its defrag always, KSM running
    and ksmtuned enabled, the ondemand governor of acpi-cpufreq, intel_idle
    C-states down to C6, the cfq scheduler, vhost_net not loaded, and 1G
    pages from sysctl's vm.nr_hugepages = 32 after boot, which gave 16, all
    on node 0 and all in use."""
    tree("badly-tuned",
         nodes=[(list(range(0, 20)), 528280640), (list(range(20, 40)), 528482304)],
         siblings={c: [c] for c in range(40)},
         cmdline=("BOOT_IMAGE=/vmlinuz-3.10.0-1062.rt56.1022.el7.x86_64 "
                  "root=/dev/mapper/centos-root ro crashkernel=auto rhgb quiet "
                  "default_hugepagesz=1G intel_pstate=disable "
                  "isolcpus=2-19,22-39 nohz_full=2-19,22-39 rcu_nocbs=2-19,22-39"),
         osrelease="3.10.0-1062.rt56.1022.el7.x86_64", rt=True,
         smt_control="notsupported",
         mounts=["hugetlbfs /dev/hugepages hugetlbfs rw,seclabel,relatime,pagesize=1G 0 0"],
         pages={GiB_KiB: [16, 0]}, free={GiB_KiB: [0, 0]}, default_kib=GiB_KiB,
         tuned=("virtual-host", None, None), preemption_timer="Y",
         tuning=dict(thp="[always] madvise never", thp_defrag="[always] madvise never",
                     ksm_run=1, ksmtuned=True, governor="ondemand",
                     cpuidle=[("POLL", 0, 0), ("C1", 2, 0), ("C1E", 10, 0), ("C6", 133, 0)],
                     block={"sda": "noop deadline [cfq]", "sdb": "noop deadline [cfq]",
                            "loop0": "none"},
                     modules=["kvm", "kvm_intel", "tun", "bridge"],
                     sysctl="# System default settings live in /usr/lib/sysctl.d/00-system.conf.\n"
                            "vm.nr_hugepages=32\n"),
         nova_conf="[compute]\n"
                   "cpu_dedicated_set = 2-19,22-39\n"
                   "cpu_shared_set = 0-1,20-21\n"
                   "\n"
                   "[libvirt]\n"
                   "virt_type = kvm\n"
                   "cpu_mode = host-passthrough\n"
                   "realtime_scheduler_priority = 1\n")


if __name__ == "__main__":
    main()
    badly_tuned()
