"""The installed package's library lookup (numafit/_paths.py), and what an
operator sees to know numafit is active: patch() and the scheduler filter
log once per process at INFO, python3 -m numafit.nova check, the counters
at exit.  Each case runs in a child /usr/bin/python3."""
import os
import shutil
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
PKG = os.path.join(os.path.dirname(HERE), "numafit")
LIBRARY = os.environ.get("NUMAFIT_LIBRARY")


def _nova():
    import importlib.util
    try:
        return importlib.util.find_spec("nova.virt.hardware") is not None
    except ImportError:
        return False


def run(code_or_args, env=None, cwd=None):
    e = dict(os.environ)
    e["PYTHONDONTWRITEBYTECODE"] = "1"
    e.update(env or {})
    for k, v in list(e.items()):
        if v is None:
            del e[k]
    args = code_or_args if isinstance(code_or_args, list) else ["-c", code_or_args]
    return subprocess.run([sys.executable] + args, env=e, cwd=cwd, capture_output=True,
                          text=True, timeout=600)


@unittest.skipUnless(LIBRARY and os.path.isfile(LIBRARY), "needs NUMAFIT_LIBRARY (make check)")
class InstalledLookup(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.mkdtemp()
        self.addCleanup(shutil.rmtree, self.tmp)
        shutil.copytree(PKG, os.path.join(self.tmp, "numafit"),
                        ignore=shutil.ignore_patterns("__pycache__", "_paths.py"))

    def probe(self, env):
        r = run("import numafit._ffi as f; print(f.loaded_library_file()); print(f.LIBRARY_FROM)",
                env=dict({"PYTHONPATH": self.tmp, "LD_LIBRARY_PATH": None}, **env), cwd=self.tmp)
        return r

    def test_paths_py_wins_over_the_loader_path(self):
        # make install's _paths.py: the library of that libdir, found where
        # the loader would not look
        libdir = os.path.dirname(os.path.realpath(LIBRARY))
        with open(os.path.join(self.tmp, "numafit", "_paths.py"), "w") as f:
            f.write('LIBDIR = "%s"\n' % libdir)
        if not os.path.isfile(os.path.join(libdir, "libnumafit.so.0")):
            self.skipTest("no libnumafit.so.0 beside %s" % LIBRARY)
        r = self.probe({"NUMAFIT_LIBRARY": None})
        self.assertEqual(r.returncode, 0, r.stderr)
        lines = r.stdout.splitlines()
        self.assertEqual(os.path.dirname(lines[0]), libdir)
        self.assertIn("_paths.py", lines[1])

    def test_environment_wins_over_paths_py(self):
        with open(os.path.join(self.tmp, "numafit", "_paths.py"), "w") as f:
            f.write('LIBDIR = "/nonexistent/lib"\n')
        r = self.probe({"NUMAFIT_LIBRARY": LIBRARY})
        self.assertEqual(r.returncode, 0, r.stderr)
        lines = r.stdout.splitlines()
        self.assertEqual(lines[0], os.path.realpath(LIBRARY))
        self.assertEqual(lines[1], "NUMAFIT_LIBRARY")

    def test_missing_installed_file_falls_back_to_soname(self):
        # a _paths.py whose library is not there: the SONAME, which the
        # loader does not find here (nothing installed): a clear ImportError
        with open(os.path.join(self.tmp, "numafit", "_paths.py"), "w") as f:
            f.write('LIBDIR = "/nonexistent/lib"\n')
        r = self.probe({"NUMAFIT_LIBRARY": None})
        if r.returncode == 0:
            self.assertEqual(r.stdout.splitlines()[1], "the loader path")
        else:
            self.assertIn("cannot load libnumafit.so.0", r.stderr)


@unittest.skipUnless(_nova(), "nova is not importable")
@unittest.skipUnless(LIBRARY, "needs NUMAFIT_LIBRARY (make check)")
class Active(unittest.TestCase):
    def test_check_command(self):
        r = run(["-m", "numafit.nova", "check"])
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        out = r.stdout
        self.assertIn("library: %s" % os.path.realpath(LIBRARY), out)
        self.assertRegex(out, r"(?m)^replaced: nova\.virt\.hardware\.numa_fit_instance_to_host")
        self.assertRegex(out, r"(?m)^counters: [1-9][0-9]* calls computed by libnumafit, 0 sent")
        self.assertIn("check: ok", out)
        # what a service logs: patch() once, the counters at exit
        self.assertEqual(r.stderr.count("INFO numafit.nova: replaced "), 1, r.stderr)
        self.assertRegex(r.stderr, r"INFO numafit.nova: [1-9][0-9]* calls computed by libnumafit")

    def test_check_usage(self):
        r = run(["-m", "numafit.nova", "bogus"])
        self.assertEqual(r.returncode, 2)
        self.assertIn("usage", r.stderr)

    def test_patch_logs_once_per_process(self):
        r = run("""
import logging
logging.basicConfig(level=logging.INFO, format="%(name)s %(levelname)s %(message)s")
import numafit.nova as nn
nn.patch(); nn.patch(); nn.unpatch(); nn.patch()
print(nn.status()["replaced"])
""")
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(r.stderr.count("numafit.nova INFO numafit.nova: replaced "), 1, r.stderr)
        self.assertIn("numa_fit_instance_to_host", r.stdout)

    def test_filter_logs_once_per_process(self):
        r = run("""
import logging
logging.basicConfig(level=logging.INFO, format="%(name)s %(levelname)s %(message)s")
from numafit import scheduler
scheduler.NumafitNUMATopologyFilter(); scheduler.NumafitNUMATopologyFilter()
""")
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(r.stderr.count("numafit.scheduler INFO numafit.scheduler: "
                                        "numafit.scheduler.NumafitNUMATopologyFilter in use"),
                         1, r.stderr)
        self.assertIn(os.path.realpath(LIBRARY), r.stderr)

    def test_counters_logged_every_interval(self):
        # NUMAFIT_NOVA_STATS_INTERVAL=0: none but the one at exit
        code = """
import logging
logging.basicConfig(level=logging.INFO, format="%(name)s %(levelname)s %(message)s")
import numafit.nova as nn
nn.patch()
from numafit.nova import runtime
for _ in range(3):
    runtime._count("library")
print(nn.stats_line())
"""
        r = run(code, env={"NUMAFIT_NOVA_STATS_INTERVAL": "0"})
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn("3 calls computed by libnumafit, 0 sent to nova's own", r.stdout)
        self.assertEqual(r.stderr.count("calls computed by libnumafit"), 1, r.stderr)


if __name__ == "__main__":
    unittest.main()
