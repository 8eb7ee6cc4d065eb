# Sourced by the tests that run the system Python (/usr/bin/python3, which sees Debian's packages).
# python_needs "MODULES" VARIABLE "PACKAGES": returns where the system Python imports every module of
# MODULES ("numpy, pytest"); otherwise the test fails where VARIABLE is 1 (CI sets it, so that a
# missing package cannot pass as a skip) and skips (77) elsewhere, naming the Debian packages.
py=/usr/bin/python3
python_needs() {
    "$py" -c "import $1" 2>/dev/null && return 0
    if [ "$(printenv "$2")" = 1 ]; then
        echo "FAIL: $2=1, but $py cannot import $1 (apt-get install $3)"
        exit 1
    fi
    echo "skipped: $py cannot import $1 (apt-get install $3)"
    exit 77
}
