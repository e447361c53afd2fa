"""numafit.read_flavor() and numafit.read_image(): the forms operators have
(tests/data/forms), and openstackclient's text form of a dict checked
against osc_lib's own format_dict (the function openstackclient prints
properties with), when osc_lib is importable."""
import json
import os
import random
import re
import unittest

import numafit

HERE = os.path.dirname(os.path.abspath(__file__))
FORMS = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(HERE))),
                     "tests", "data", "forms")

try:
    from osc_lib import utils as osc_utils
except ImportError:  # pragma: no cover
    osc_utils = None


def _load(name):
    with open(os.path.join(FORMS, name), encoding="utf-8") as f:
        return f.read()


class FixtureTest(unittest.TestCase):
    def test_flavors(self):
        native = json.loads(_load("rt-native.json"))
        for name, form in (("rt-osc.json", "openstack flavor show JSON"),
                           ("rt-osc-text.json",
                            "openstack flavor show JSON (properties as text)"),
                           ("rt-nova.json", 'nova API flavor JSON ({"flavor": ...})'),
                           ("rt-nova-bare.json", "nova API flavor JSON (the inner object)")):
            for doc in (_load(name), json.loads(_load(name))):
                got, got_form = numafit.read_flavor(doc)
                self.assertEqual(got_form, form, name)
                self.assertEqual(got, native, name)
        self.assertEqual(numafit.read_flavor(native), (native, "numafit JSON"))

    def test_requests_equal(self):
        image, _ = numafit.read_image(_load("image-osc-text.json"))
        flavor, _ = numafit.read_flavor(_load("rt-osc-text.json"))
        a = numafit.Request.from_json(flavor, image)
        b = numafit.Request.from_json(_load("rt-native.json"), _load("image-native.json"))
        self.assertEqual(a.to_dict(), b.to_dict())
        self.assertEqual((a.cpu_policy, a.thread_policy, a.vcpus), ("dedicated", "isolate", 8))

    def test_images(self):
        props = json.loads(_load("image-native.json"))["properties"]
        for name, form in (("image-osc.json", "openstack image show JSON"),
                           ("image-osc-text.json",
                            "openstack image show JSON (properties as text)"),
                           ("image-glance.json",
                            "glance image JSON (properties at the top level)")):
            got, got_form = numafit.read_image(_load(name))
            self.assertEqual(got_form, form)
            for key, value in props.items():
                self.assertEqual(got["properties"][key], value, name)
            self.assertNotIn("id", got["properties"])
            self.assertNotIn("checksum", got["properties"])

    def test_misplaced(self):
        with self.assertRaises(ValueError) as cm:
            numafit.read_flavor({"vcpus": 4, "memory_mb": 8192,
                                 "properties": {"hw:cpu_policy": "dedicated"}})
        self.assertEqual(cm.exception.where, "properties")
        with self.assertRaises(numafit.errors.InvalidArgument) as cm:
            numafit.read_image({"hw_cpu_policy": "dedicated"})
        self.assertEqual(cm.exception.where, "hw_cpu_policy")
        with self.assertRaises(ValueError) as cm:
            numafit.read_flavor({"ram": 1, "vcpus": 1, "properties": "a='b"})
        self.assertIn("unterminated", str(cm.exception))


# a quote followed by ", key='" ends a value in the text form: values
# holding that (also "', key=" at their end, before the closing quote), a
# backslash before a quote or a backslash, or ending with a backslash (the
# reader takes \' and \\ as escapes) cannot be told apart from two keys
_AMBIGUOUS = re.compile(r"'\s*,\s*[^=',\"\\\x00-\x1f\x7f]+=\s*('|$)|\\['\\]|\\$")


@unittest.skipIf(osc_utils is None, "osc_lib is not importable")
class FormatDictTest(unittest.TestCase):
    """What osc_lib's format_dict prints, read back: the same dict."""

    def test_random_dicts(self):
        rng = random.Random(15)
        keys = ["hw:cpu_policy", "hw:mem_page_size", "pci_passthrough:alias", "trait:CUSTOM_A",
                "resources1:VCPU", "hw:numa_cpus.0", "aggregate_instance_extra_specs:ssd",
                "my key", "x"]
        alphabet = "ab01 ,'=:^-\\\"\u00e9\u4e2d"
        checked = 0
        for _ in range(3000):
            d = {}
            for k in rng.sample(keys, rng.randint(0, len(keys))):
                d[k] = "".join(rng.choice(alphabet) for _ in range(rng.randint(0, 12)))
            if any(_AMBIGUOUS.search(v) for v in d.values()):
                continue
            text = osc_utils.format_dict(d)
            got, form = numafit.read_flavor({"ram": 512, "vcpus": 1, "properties": text})
            self.assertEqual(form, "openstack flavor show JSON (properties as text)")
            self.assertEqual(got["extra_specs"], d, text)
            checked += 1
        self.assertGreater(checked, 1000)

    def test_real_time_flavor(self):
        specs = {"hw:cpu_policy": "dedicated", "hw:cpu_realtime": "yes",
                 "hw:cpu_realtime_mask": "^0-1", "hw:mem_page_size": "1GB"}
        self.assertEqual(json.loads(_load("rt-osc-text.json"))["properties"],
                         osc_utils.format_dict(specs))


if __name__ == "__main__":
    unittest.main()
