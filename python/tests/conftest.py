"""What the tests share: the program of the same build (STARBURST_PROGRAM) and its starburst-measure
(STARBURST_MEASURE), run as a person runs them, and a folder of files for each test."""
import os
import subprocess

import pytest


@pytest.fixture
def program():
    path = os.environ.get("STARBURST_PROGRAM")
    if not path:
        pytest.fail("STARBURST_PROGRAM names no program (tests/python_tests.sh sets it)")
    return path


@pytest.fixture
def starburst_cli(program):
    """Runs the program with args: (exit status, stdout + stderr)."""

    def run(*args, cwd=None):
        p = subprocess.run([program, *map(str, args)], capture_output=True, text=True, cwd=cwd, timeout=120)
        return p.returncode, p.stdout + p.stderr

    return run


@pytest.fixture
def measure_cli():
    """Runs starburst-measure with args: (exit status, stdout + stderr)."""
    path = os.environ.get("STARBURST_MEASURE")
    if not path:
        pytest.fail("STARBURST_MEASURE names no program (tests/python_tests.sh sets it)")

    def run(*args):
        p = subprocess.run([path, *map(str, args)], capture_output=True, text=True, timeout=120)
        return p.returncode, p.stdout + p.stderr

    return run


def refusal(out):
    """The program's line for a value it refused: its last line, "starburst: " taken off."""
    line = out.strip().splitlines()[-1]
    assert line.startswith("starburst: "), out
    return line[len("starburst: "):]
