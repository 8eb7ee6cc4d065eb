#!/bin/bash
# The Python package's tests (python/tests, pytest) against the library and program of this build.
# Skipped where the system Python lacks numpy or pytest (Debian's python3-numpy, python3-pytest),
# unless STARBURST_REQUIRE_PYTHON=1 (CI), where that fails.
# usage: python_tests.sh SOURCE_DIR LIBRARY PROGRAM MEASURE
src=$1 lib=$2 app=$3 measure=$4
. "$(dirname "$0")/python_needs.sh"
python_needs "numpy, pytest" STARBURST_REQUIRE_PYTHON "python3-numpy python3-pytest"
export STARBURST_LIB="$lib" STARBURST_PROGRAM="$app" STARBURST_MEASURE="$measure" PYTHONPATH="$src/python${PYTHONPATH:+:$PYTHONPATH}"
exec "$py" -m pytest -q -p no:cacheprovider "$src/python/tests"
