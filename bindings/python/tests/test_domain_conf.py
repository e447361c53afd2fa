"""numafit.DomainConf: the nova.conf settings that shape the domain XML
([libvirt] virt_type, cpu_mode, cpu_models, cpu_model_extra_flags,
mem_stats_period_seconds, disk_cachemodes, the architecture) and the
flavor's and image's <features>/<clock> keys (hw:pmu, hw_pmu, os_type,
hw_time_hpet).  Each test renders the XML, parses it with xml.etree and
asserts the elements nova's libvirt driver writes
(nova/virt/libvirt/driver.py _get_guest_cpu_model_config, _set_features,
_set_clock, _set_kvm_timers, _guest_add_memory_balloon,
disk_cachemodes)."""
import unittest
import xml.etree.ElementTree as ET

import numafit
from numafit import errors

SYN = "cells:2 cores:4 threads:2 mem:16G pages:2M=1024"
DEDICATED = {"hw:cpu_policy": "dedicated"}
DISK_QOS = {"quota:disk_read_bytes_sec": "1048576"}


class DomainConfTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.host = numafit.Host.synthetic(SYN)

    def render(self, conf=None, specs=None, image=None, full=False, numa=None, nova_exact=False):
        """The XML as an Element: the whole domain with full, else the
        fragments wrapped in <x>.  The guest is pinned (a NUMA placement),
        but with lxc and parallels (no <cpu>, so no guest NUMA cells for
        the placement's memnodes: libvirt refuses it) unless numa says."""
        if numa is None:
            numa = not (isinstance(conf, dict) and conf.get("virt_type") in ("lxc", "parallels"))
        specs = dict(DEDICATED if numa else {}, **(specs or {}))
        flavor = {"vcpus": 2, "memory_mb": 1024, "extra_specs": specs}
        r = numafit.Request.from_flavor(2, 1024, specs, image)
        p = numafit.fit(self.host, r) if numa else None
        if numa:
            self.assertIsNotNone(p)
        text = numafit.domain_xml(self.host, r, p, flavor=flavor, image=image, conf=conf,
                                  full=full, nova_exact=nova_exact)
        root = ET.fromstring(text if full else "<x>%s</x>" % text)
        if full:
            self.assertEqual(root.tag, "domain")
        return root

    def cpu(self, root):
        return root.find("cpu")

    def timers(self, root):
        clock = root.find("clock")
        self.assertIsNotNone(clock)
        return [(t.get("name"), t.get("tickpolicy"), t.get("present"))
                for t in clock.findall("timer")]

    def balloon(self, root, full=False):
        return root.find("devices/memballoon")

    # ---------------------------------------------------------- <cpu>
    def test_cpu_mode_defaults(self):
        # nova: host-model with kvm and qemu (x86), host-passthrough on
        # aarch64, no <cpu> at all with lxc and parallels
        for kw, mode in (({}, "host-model"),
                         ({"virt_type": "kvm"}, "host-model"),
                         ({"virt_type": "qemu"}, "host-model"),
                         ({"arch": "aarch64"}, "host-passthrough"),
                         ({"virt_type": "qemu", "arch": "aarch64"}, "host-passthrough"),
                         ({"arch": "ppc64le"}, "host-model")):
            with self.subTest(conf=kw):
                cpu = self.cpu(self.render(kw))
                self.assertIsNotNone(cpu)
                self.assertEqual(cpu.get("mode"), mode)
                self.assertIsNone(cpu.get("match"))
                self.assertIsNone(cpu.find("model"))
                self.assertIsNotNone(cpu.find("topology"))
                self.assertEqual(len(cpu.findall("numa/cell")), 1)
                self.assertEqual(len(self.render(kw).findall("numatune/memnode")), 1)
        for vt in ("lxc", "parallels"):
            with self.subTest(virt_type=vt, numa=True):
                # a NUMA placement without guest cells: libvirt refuses the
                # memnodes nova writes (unless nova_exact)
                with self.assertRaises(errors.NumafitError) as cm:
                    self.render({"virt_type": vt}, numa=True)
                self.assertEqual(cm.exception.exception, "libvirtError")
                self.assertEqual(cm.exception.where, "[libvirt] virt_type")
                root = self.render({"virt_type": vt}, numa=True, nova_exact=True)
                self.assertIsNone(self.cpu(root))
                self.assertEqual(len(root.findall("numatune/memnode")), 1)
            with self.subTest(virt_type=vt):
                self.assertIsNone(self.cpu(self.render({"virt_type": vt})))
                self.assertIsNone(self.cpu(self.render({"virt_type": vt, "cpu_mode": "none"})))
                # an explicit mode: nova's start refuses it (_check_cpu_compatibility)
                with self.assertRaises(errors.NumafitError) as cm:
                    self.render({"virt_type": vt, "cpu_mode": "host-passthrough"})
                self.assertEqual(cm.exception.exception, "Invalid")
                self.assertEqual(cm.exception.where, "[libvirt] cpu_mode")
                self.assertIn(vt, str(cm.exception))

    def test_cpu_mode_explicit(self):
        for mode in ("host-model", "host-passthrough", "maximum"):
            with self.subTest(mode=mode):
                self.assertEqual(self.cpu(self.render({"cpu_mode": mode})).get("mode"), mode)
        # none: a <cpu> without mode (QEMU's default model), topology kept
        for vt in ("kvm", "qemu"):
            cpu = self.cpu(self.render({"cpu_mode": "none", "virt_type": vt}))
            self.assertIsNotNone(cpu)
            self.assertNotIn("mode", cpu.attrib)
            self.assertIsNotNone(cpu.find("topology"))

    def test_cpu_custom_models(self):
        conf = {"cpu_mode": "custom", "cpu_models": " Haswell-noTSX , Skylake-Client,"}
        cpu = self.cpu(self.render(conf))
        self.assertEqual(cpu.get("mode"), "custom")
        self.assertEqual(cpu.get("match"), "exact")
        models = cpu.findall("model")
        self.assertEqual([m.text for m in models], ["Haswell-noTSX"])
        # custom needs cpu_models: refused at rendering, as nova's start
        with self.assertRaises(errors.NumafitError) as cm:
            self.render({"cpu_mode": "custom"})
        self.assertEqual(cm.exception.exception, "Invalid")
        self.assertIsInstance(cm.exception, ValueError)
        # models without custom: refused too
        with self.assertRaises(errors.NumafitError) as cm:
            self.render({"cpu_models": "Haswell"})
        self.assertEqual(cm.exception.exception, "Invalid")
        self.assertIn("cpu_models", str(cm.exception))

    def test_cpu_extra_flags(self):
        conf = {"cpu_model_extra_flags": "ssbd, -HLE, +pcid, pdpe1gb, ssbd"}
        for mode in ("host-model", "host-passthrough", "maximum"):
            with self.subTest(mode=mode):
                cpu = self.cpu(self.render(dict(conf, cpu_mode=mode)))
                feats = [(f.get("name"), f.get("policy")) for f in cpu.findall("feature")]
                self.assertEqual(feats, [("hle", "disable"), ("pcid", "require"),
                                         ("pdpe1gb", "require"), ("ssbd", "require")])
        cpu = self.cpu(self.render(dict(conf, cpu_mode="custom", cpu_models="Haswell")))
        self.assertEqual(len(cpu.findall("feature")), 4)
        # mode none writes no features
        cpu = self.cpu(self.render(dict(conf, cpu_mode="none")))
        self.assertEqual(cpu.findall("feature"), [])

    def test_cpu_settings_refused(self):
        for kw, where in ((dict(cpu_model_extra_flags="+pcid, -pcid"),
                           "[libvirt] cpu_model_extra_flags"),
                          (dict(cpu_model_extra_flags="pc id"), "[libvirt] cpu_model_extra_flags"),
                          (dict(cpu_model_extra_flags="a,,b"), "[libvirt] cpu_model_extra_flags"),
                          (dict(cpu_models="Has<well"), "[libvirt] cpu_models"),
                          (dict(cpu_models="x" * 64), "[libvirt] cpu_models"),
                          (dict(cpu_models=",".join(["m%d" % i for i in range(65)])),
                           "[libvirt] cpu_models"),
                          (dict(disk_cachemodes="file=bogus"), "[libvirt] disk_cachemodes"),
                          (dict(disk_cachemodes="file"), "[libvirt] disk_cachemodes")):
            with self.subTest(conf=kw):
                with self.assertRaises(errors.ConfigFileValueError) as cm:
                    numafit.DomainConf(**kw)
                self.assertIsInstance(cm.exception, ValueError)
                self.assertEqual(cm.exception.where, where)
                self.assertTrue(str(cm.exception).startswith(where + ": "))
        # the settings without an error struct: the binding names the keyword
        for kw in (dict(cpu_mode="host"), dict(cpu_mode="Host-Model"), dict(virt_type="xen"),
                   dict(arch="x86"), dict(mem_stats_period=2**31)):
            with self.subTest(conf=kw):
                with self.assertRaises(ValueError) as cm:
                    numafit.DomainConf(**kw)
                self.assertIsInstance(cm.exception, errors.NumafitError)
                self.assertEqual(cm.exception.where, next(iter(kw)))
                self.assertIn(next(iter(kw)), str(cm.exception))
        with self.assertRaises(TypeError):
            numafit.DomainConf(mem_stats_period=1.5)
        with self.assertRaises(TypeError):
            numafit.DomainConf(cpu_mod="custom")

    # ---------------------------------------------------------- <features><pmu>
    def test_pmu(self):
        root = self.render()
        self.assertIsNone(root.find("features"))  # nova writes none unless asked
        for specs, image, state in (({"hw:pmu": "true"}, None, "on"),
                                    ({"hw:pmu": "False"}, None, "off"),
                                    ({}, {"properties": {"hw_pmu": "yes"}}, "on"),
                                    ({}, {"properties": {"hw_pmu": False}}, "off"),
                                    ({"hw:pmu": "1"}, {"properties": {"hw_pmu": True}}, "on")):
            for vt in ("kvm", "qemu"):
                with self.subTest(specs=specs, image=image, virt_type=vt):
                    root = self.render({"virt_type": vt}, specs, image)
                    pmu = root.findall("features/pmu")
                    self.assertEqual(len(pmu), 1)
                    self.assertEqual(pmu[0].get("state"), state)
                    self.assertEqual(len(root.find("features")), 1)
            # nova asks for the PMU with kvm and qemu only
            with self.subTest(specs=specs, image=image, virt_type="lxc"):
                self.assertIsNone(self.render({"virt_type": "lxc"}, specs, image).find("features"))
        with self.assertRaises(errors.NumafitError) as cm:
            self.render(None, {"hw:pmu": "true"}, {"properties": {"hw_pmu": False}})
        self.assertEqual(cm.exception.exception, "FlavorImageConflict")
        self.assertEqual(cm.exception.where, "hw:pmu")
        # the driver reads the flavor's value as oslo's bool_from_string
        # (not strict): a word it does not know is False (nova's API
        # validators refuse it, numafit.validate_extra_specs() too)
        self.assertEqual(self.render(None, {"hw:pmu": "maybe"}).find("features/pmu").get("state"),
                         "off")
        with self.assertRaises(errors.NumafitError) as cm:
            numafit.validate_extra_specs({"hw:pmu": "maybe"})
        self.assertEqual(cm.exception.exception, "ValidationError")
        self.assertIn("hw:pmu", cm.exception.where)

    # ---------------------------------------------------------- <clock>
    def test_clock(self):
        kvm_x86 = [("pit", "delay", None), ("rtc", "catchup", None), ("hpet", None, "no")]
        root = self.render()
        self.assertEqual(root.find("clock").get("offset"), "utc")
        self.assertEqual(self.timers(root), kvm_x86)
        # hw_time_hpet
        root = self.render(image={"properties": {"hw_time_hpet": True}})
        self.assertEqual(self.timers(root)[2], ("hpet", None, "yes"))
        # Windows: localtime and the hypervclock timer
        root = self.render(image={"properties": {"os_type": "windows"}})
        self.assertEqual(root.find("clock").get("offset"), "localtime")
        self.assertEqual(self.timers(root), kvm_x86 + [("hypervclock", None, "yes")])
        root = self.render(image={"properties": {"os_type": "linux"}})
        self.assertEqual(root.find("clock").get("offset"), "utc")
        # only x86 guests have an hpet
        root = self.render({"arch": "aarch64"})
        self.assertEqual(self.timers(root), kvm_x86[:2])
        self.assertEqual(self.timers(self.render({"arch": "i686"})), kvm_x86)
        # the timers are kvm's: qemu, lxc and parallels get the offset only
        for vt in ("qemu", "lxc", "parallels"):
            with self.subTest(virt_type=vt):
                root = self.render({"virt_type": vt},
                                   image={"properties": {"os_type": "windows"}})
                self.assertEqual(root.find("clock").get("offset"), "localtime")
                self.assertEqual(self.timers(root), [])
        with self.assertRaises(errors.NumafitError) as cm:
            self.render(image={"properties": {"os_type": "solaris"}})
        self.assertEqual(cm.exception.where, "os_type")
        self.assertIsInstance(cm.exception, ValueError)

    # ---------------------------------------------------------- <memballoon>
    def test_memballoon(self):
        for full in (False, True):
            with self.subTest(full=full):
                for kw, period in (({}, "10"), ({"mem_stats_period": 30}, "30"),
                                   ({"virt_type": "qemu", "mem_stats_period": 1}, "1")):
                    b = self.balloon(self.render(kw, full=full))
                    self.assertIsNotNone(b, kw)
                    self.assertEqual(b.get("model"), "virtio")
                    self.assertEqual([s.get("period") for s in b.findall("stats")], [period])
                for kw in ({"mem_stats_period": 0}, {"mem_stats_period": -5},
                           {"virt_type": "lxc"}, {"virt_type": "parallels"}):
                    root = self.render(kw, full=full)
                    self.assertIsNone(self.balloon(root), kw)
                    if not full:
                        self.assertIsNone(root.find("devices"))
        # in the whole domain, the balloon is inside /domain/devices, once
        root = self.render({"mem_stats_period": 7}, specs=DISK_QOS, full=True)
        self.assertEqual(len(root.findall("devices")), 1)
        self.assertEqual(len(root.findall("devices/memballoon")), 1)

    # ---------------------------------------------------------- disk cache
    def test_disk_cachemodes(self):
        def cache(conf):
            root = self.render(conf, specs=DISK_QOS, full=True)
            drivers = root.findall("devices/disk/driver")
            self.assertEqual(len(drivers), 1)
            self.assertEqual(root.find("devices/disk/iotune/read_bytes_sec").text, "1048576")
            return drivers[0].get("cache")

        self.assertEqual(cache(None), "none")  # nova's choice with O_DIRECT
        for mode in ("none", "writethrough", "writeback", "directsync", "unsafe"):
            with self.subTest(mode=mode):
                self.assertEqual(cache({"disk_cachemodes": "file=" + mode}), mode)
        # the other disk types are checked but not written
        self.assertEqual(cache({"disk_cachemodes": "block=unsafe, network=writeback"}), "none")
        self.assertEqual(cache({"disk_cachemodes": "block=none,file=writeback"}), "writeback")
        # no disk without a disk quota
        root = self.render({"disk_cachemodes": "file=unsafe"}, full=True)
        self.assertIsNone(root.find("devices/disk"))

    # ---------------------------------------------------------- nova.conf
    def test_from_nova_conf_domain_settings(self):
        text = ("[libvirt]\nvirt_type = kvm\ncpu_mode = custom\n"
                "cpu_models = Cascadelake-Server, Skylake-Server\n"
                "cpu_model_extra_flags = -mpx, +VMX\nmem_stats_period_seconds = 60\n"
                "disk_cachemodes = file=writethrough\n")
        conf = numafit.DomainConf.from_nova_conf(text)
        root = self.render(conf, specs=dict(DISK_QOS, **{"hw:pmu": "false"}), full=True)
        cpu = root.find("cpu")
        self.assertEqual((cpu.get("mode"), cpu.get("match")), ("custom", "exact"))
        self.assertEqual(cpu.find("model").text, "Cascadelake-Server")
        self.assertEqual([(f.get("name"), f.get("policy")) for f in cpu.findall("feature")],
                         [("mpx", "disable"), ("vmx", "require")])
        self.assertEqual(root.find("features/pmu").get("state"), "off")
        self.assertEqual(root.find("devices/memballoon/stats").get("period"), "60")
        self.assertEqual(root.find("devices/disk/driver").get("cache"), "writethrough")
        # the deprecated name cpu_model
        conf = numafit.DomainConf.from_nova_conf(
            "[libvirt]\ncpu_mode = custom\ncpu_model = Haswell\n")
        self.assertEqual(self.render(conf).find("cpu/model").text, "Haswell")
        # keywords win
        conf = numafit.DomainConf.from_nova_conf(text, cpu_mode="host-passthrough",
                                                 cpu_models="")
        self.assertEqual(self.render(conf).find("cpu").get("mode"), "host-passthrough")
        # custom without models: nova's _check_cpu_compatibility at start
        with self.assertRaises(errors.NumafitError) as cm:
            numafit.DomainConf.from_nova_conf("[libvirt]\ncpu_mode = custom\n")
        self.assertEqual(cm.exception.exception, "Invalid")
        for bad, where in (("cpu_mode = maximum", "cpu_mode"),
                           ("mem_stats_period_seconds = ten", "mem_stats_period_seconds"),
                           ("disk_cachemodes = file=fast", "disk_cachemodes")):
            with self.subTest(line=bad):
                with self.assertRaises(errors.ConfigFileValueError) as cm:
                    numafit.DomainConf.from_nova_conf("[libvirt]\n%s\n" % bad)
                self.assertIn(where, cm.exception.where)


if __name__ == "__main__":
    unittest.main()
