#!/bin/bash
# docs/python_example.py run as a reader runs it, at a small N: it writes its plot (and a frame);
# then docs/python-example.ipynb executed cell by cell (Debian's python3-nbclient; skipped without
# it) at the same N, to the first passage. Skipped where the system Python lacks numpy or
# matplotlib, unless STARBURST_REQUIRE_PYTHON=1 (CI).
# usage: python_example.sh SOURCE_DIR LIBRARY PROGRAM OUT_DIR
src=$1 lib=$2 app=$3 out=$4
. "$(dirname "$0")/python_needs.sh"
python_needs "numpy, matplotlib" STARBURST_REQUIRE_PYTHON "python3-numpy python3-matplotlib"
export STARBURST_LIB="$lib" STARBURST_PROGRAM="$app" PYTHONPATH="$src/python${PYTHONPATH:+:$PYTHONPATH}"
rm -rf "$out" && mkdir -p "$out/script" "$out/notebook" || exit 1
"$py" "$src/docs/python_example.py" "$out/script" 2048 700 || { echo "FAIL: the example script stopped"; exit 1; }
[ -s "$out/script/separation.png" ] || { echo "FAIL: no $out/script/separation.png"; exit 1; }
echo "the script's plot: $out/script/separation.png"
if ! "$py" -c "import nbclient, nbformat, ipykernel" 2>/dev/null; then
    [ "${STARBURST_REQUIRE_PYTHON:-0}" = 1 ] && { echo "FAIL: $py has no nbclient, nbformat or ipykernel"; exit 1; }
    echo "(the notebook not run: no nbclient, nbformat or ipykernel: apt-get install python3-nbclient python3-ipykernel)"
    exit 0
fi
"$py" - "$src/docs/python-example.ipynb" "$out/notebook" <<'PY' || { echo "FAIL: the notebook stopped"; exit 1; }
import sys, nbclient, nbformat
nb = nbformat.read(sys.argv[1], as_version=4)
# The parameters cell at the test's size, the rest as it is.
cell = nb.cells[1]
assert 'n = 4096' in cell.source and 'span = "1500 Myr"' in cell.source and 'out_dir = "."' in cell.source
cell.source = cell.source.replace('n = 4096', 'n = 2048').replace('"1500 Myr"', '"300 Myr"').replace(
    'out_dir = "."', 'out_dir = %r' % sys.argv[2])
nbclient.NotebookClient(nb, timeout=120, kernel_name="python3").execute()
PY
[ -s "$out/notebook/separation.png" ] || { echo "FAIL: the notebook wrote no separation.png"; exit 1; }
echo "the notebook ran; its plot: $out/notebook/separation.png"
