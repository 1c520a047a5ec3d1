"""The report side never imports TensorFlow or Keras, not even indirectly (it must run on any laptop)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

CODE = r"""
import sys, tempfile
from pathlib import Path
import importlib, pkgutil
import bench, bench.records, bench.reporting
names = [m.name for m in pkgutil.walk_packages(bench.reporting.__path__, "bench.reporting.")]  # subpackages too
assert "bench.reporting.render.console" in names and "bench.reporting.frames.points" in names, names
for name in names:
    importlib.import_module(name)
from bench.reporting import build, commands
out = Path(tempfile.mkdtemp())
build.build_report([Path(sys.argv[1])], out)
commands.compare_main([sys.argv[1], sys.argv[1]])
banned = ("tensorflow", "keras", "tf_keras", "jax", "torch")
heavy = sorted(m for m in sys.modules if m.split(".")[0] in banned)
print("HEAVY:", heavy)
"""


def test_report_side_imports_no_tensorflow():
    proc = subprocess.run([sys.executable, "-c", CODE, str(ROOT / "tests" / "data" / "records" / "hostA")],
                          cwd=ROOT, capture_output=True, text=True, timeout=120, check=False)
    assert proc.returncode == 0, proc.stderr
    assert "HEAVY: []" in proc.stdout, proc.stdout[-500:]
