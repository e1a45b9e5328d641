"""`pip install` of the package offline, with the Python's own setuptools (--no-build-isolation), into a venv."""
import os
import shutil
import subprocess
import sys

import pytest
from conftest import PACKAGE


def _why_not() -> str:
    if subprocess.run([sys.executable, "-c", "import venv"], capture_output=True).returncode != 0:
        return "python3-venv is missing"
    r = subprocess.run([sys.executable, "-m", "pip", "--help"], capture_output=True, text=True)
    if r.returncode != 0:
        return "pip is missing (python3-pip)"
    if "--python" not in r.stdout:
        return "this pip has no --python (pip 22.3 or newer installs into another environment)"
    return ""


@pytest.mark.skipif(bool(_why_not()), reason=_why_not() or "-")
def test_pip_installs_the_package_offline_into_a_venv(tmp_path):
    src = tmp_path / "src"
    # A copy, so the build's egg-info and build/ stay out of the checkout.
    shutil.copytree(PACKAGE, src, ignore=shutil.ignore_patterns("tests", "build", "*.egg-info", "__pycache__", ".pytest_cache"))
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--system-site-packages", "--without-pip", str(venv)], check=True)
    py = str(venv / "bin" / "python")
    env = {**os.environ, "PIP_NO_INDEX": "1", "PIP_DISABLE_PIP_VERSION_CHECK": "1"}
    cmd = [sys.executable, "-m", "pip", "--python", py, "install", "--no-build-isolation", "--no-deps", str(src)]
    r = subprocess.run(cmd, capture_output=True, text=True, env=env)
    assert r.returncode == 0, r.stdout + r.stderr
    probe = "import pincer, pincer.osworld; from pincer._proto import episodes_pb2_grpc; print(pincer.__file__, pincer.__version__)"
    out = subprocess.run([py, "-c", probe], capture_output=True, text=True, cwd=str(tmp_path))
    assert out.returncode == 0, out.stderr
    where, version = out.stdout.split()
    assert where.startswith(str(venv)) and version == __import__("pincer").__version__
