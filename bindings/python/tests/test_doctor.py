"""numafit.doctor(): the host doctor through the binding, with running
domains (tests/data/doctor-domains on the captured hosts of
tests/data/doctor), the same report as the CLI's, and a domain the library
refuses raised with the element named."""
import os
import unittest

import numafit

HERE = os.path.dirname(os.path.abspath(__file__))
DATA = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(HERE))), "tests", "data")
HOSTS = os.path.join(DATA, "doctor")
DOMAINS = os.path.join(DATA, "doctor-domains")


def _read(*parts):
    with open(os.path.join(*parts), encoding="utf-8") as f:
        return f.read()


class DoctorTest(unittest.TestCase):
    def setUp(self):
        if not hasattr(numafit._ffi, "doctor_domains"):
            self.skipTest("libnumafit without numafit_doctor_domains")
        self.root = os.path.join(HOSTS, "rt-good")
        self.conf = _read(self.root, "etc", "nova", "nova.conf")

    def test_host_only(self):
        r = numafit.doctor(self.root, self.conf)
        self.assertEqual(r["errors"], 0)
        self.assertNotIn("domains", r)
        self.assertEqual(r["host"]["cpu_dedicated_set"], "4-11")

    def test_domains(self):
        good = _read(DOMAINS, "rt-good-rt.xml")
        split = _read(DOMAINS, "cell-split.xml").encode()
        r = numafit.doctor(self.root, self.conf, [good, split])
        self.assertEqual(r["errors"], 1)
        self.assertEqual([d["name"] for d in r["domains"]],
                         ["instance-00000007", "instance-00000008"])
        self.assertTrue(r["domains"][0]["nova"]["fits"])
        errors = [(f["domain"], f["id"]) for f in r["findings"] if f["severity"] == "error"]
        self.assertEqual(errors, [("instance-00000008", "domain-cell-split")])

    def test_refused(self):
        with self.assertRaises(numafit.NumafitError) as cm:
            numafit.doctor(self.root, None, ["<domain><name>x</name></domain>",
                                              "<domain><name>y</name><vcpu>0</vcpu></domain>"])
        self.assertIsInstance(cm.exception, ValueError)
        self.assertIn("no <memory>", str(cm.exception))
        with self.assertRaises(TypeError):
            numafit.doctor(self.root, None, "<domain/>")
        with self.assertRaises(FileNotFoundError):
            numafit.doctor(os.path.join(HOSTS, "nonexistent"))


if __name__ == "__main__":
    unittest.main()
