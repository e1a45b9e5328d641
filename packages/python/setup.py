"""Generates pincer/_proto from the repo's proto/ (build_stubs.py) when it is missing, then builds."""
import os
import sys

from setuptools import setup

HERE = os.path.dirname(os.path.abspath(__file__))

if not os.path.exists(os.path.join(HERE, "pincer", "_proto", "episodes_pb2.py")):
    sys.path.insert(0, HERE)
    import build_stubs

    build_stubs.build()

setup()
