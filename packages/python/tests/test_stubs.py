"""The stub build: protoc output for every .proto of proto/, with package-relative imports, importable as pincer._proto."""
import importlib
import os
import re
import subprocess
import sys

from conftest import PACKAGE, ROOT

import build_stubs

PROTO_DIR = os.path.join(ROOT, "proto", "pincer", "v1")


def stems():
    return sorted(f[: -len(".proto")] for f in os.listdir(PROTO_DIR) if f.endswith(".proto"))


def test_build_writes_messages_type_stubs_and_grpc_stubs_for_every_proto(tmp_path):
    out = tmp_path / "_proto"
    names = build_stubs.build(out=str(out))
    expected = {f"{s}{suffix}" for s in stems() for suffix in ("_pb2.py", "_pb2.pyi", "_pb2_grpc.py")}
    assert expected <= set(names)
    assert (out / "__init__.py").exists()
    for name in names:
        text = (out / name).read_text()
        # protoc's absolute `pincer.v1` imports would shadow this package (also named pincer).
        assert not re.search(r"^\s*(from pincer\.v1 |import pincer\.v1)", text, re.M), name


def test_fix_imports_makes_the_generated_imports_package_relative():
    text = "from pincer.v1 import common_pb2 as pincer_dot_v1_dot_common__pb2\nimport pincer.v1.screen_pb2 as s\nfrom google.protobuf import x\n"
    assert build_stubs.fix_imports(text) == (
        "from . import common_pb2 as pincer_dot_v1_dot_common__pb2\nfrom . import screen_pb2 as s\nfrom google.protobuf import x\n"
    )


def test_every_generated_module_imports_from_the_package():
    for stem in stems():
        importlib.import_module(f"pincer._proto.{stem}_pb2")
        importlib.import_module(f"pincer._proto.{stem}_pb2_grpc")


def test_the_episodes_stub_and_servicer_have_every_rpc_of_episodes_proto():
    from pincer._proto import episodes_pb2_grpc

    with open(os.path.join(PROTO_DIR, "episodes.proto")) as f:
        rpcs = re.findall(r"^\s*rpc\s+(\w+)", f.read(), re.M)
    assert set(rpcs) >= {"ListTasks", "StartEpisode", "Step", "Observe", "Evaluate", "CloseEpisode", "RenewLease", "StartGroup"}
    for rpc in rpcs:
        assert hasattr(episodes_pb2_grpc.EpisodesServicer, rpc), rpc

    class _Channel:
        def unary_unary(self, path, **_):
            return path

        unary_stream = unary_unary  # StartGroup streams its episodes

    stub = episodes_pb2_grpc.EpisodesStub(_Channel())
    assert {rpc: getattr(stub, rpc) for rpc in rpcs} == {rpc: f"/pincer.v1.Episodes/{rpc}" for rpc in rpcs}


def test_the_command_line_builds_into_a_given_directory(tmp_path):
    r = subprocess.run([sys.executable, os.path.join(PACKAGE, "build_stubs.py"), "--out", str(tmp_path / "stubs")], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    assert "build_stubs:" in r.stdout
    assert (tmp_path / "stubs" / "episodes_pb2_grpc.py").exists()


def test_the_package_exports_make_client_and_a_version():
    import pincer

    assert callable(pincer.make)
    assert isinstance(pincer.Client, type)
    assert re.match(r"^\d+\.\d+\.\d+", pincer.__version__)
