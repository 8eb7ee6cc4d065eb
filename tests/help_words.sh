#!/bin/bash
# --help says what the program and README say: the GPU its kernel crossover was measured on, the
# timeline's cap as the code sets it, what Backspace restores, the CPU's bodies; no line of it
# closes one parenthesis and opens another ("asks) (of").
# usage: help_words.sh APP SOURCE_DIR
app=$1 src=$2
passed=0 fails=0
ok() { echo "ok: $*"; passed=$((passed + 1)); }
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
help=$("$app" --help) || { echo "FAIL: --help exits $?"; exit 1; }
readme=$src/README.md

# The kernel crossover's GPU, in --help and in README.
gpu_help=$(grep -o 'about 5,000 on an H[0-9]*' <<<"$help" | grep -o 'H[0-9]*$')
gpu_readme=$(grep -o '5,000 on an H[0-9]*' "$readme" | head -1 | grep -o 'H[0-9]*$')
if [ -n "$gpu_help" ] && [ "$gpu_help" = "$gpu_readme" ]; then ok "the crossover's GPU: $gpu_help in both"; else fail "--help says '$gpu_help', README '$gpu_readme'"; fi

# The timeline's cap: the code's (run_files.c), in bytes, as --help puts it in MB.
cap=$(sed -n 's/^#define TIMELINE_DEFAULT_MAX_BYTES ((double)(1 << \([0-9]*\)))/\1/p' "$src/src/run/run_files.c")
said=$(sed -n 's/.*at most [^=]*= \([0-9.]*\) MB).*/\1/p' <<<"$help")
if [ -n "$cap" ] && [ -n "$said" ] && awk "BEGIN { exit !(($said * 1e6 - 2^$cap) ^ 2 < (0.06e6) ^ 2) }"; then
    ok "the timeline's cap: 2^$cap bytes, --help $said MB"
else
    fail "the timeline's cap: 2^$cap bytes in the code, --help says '$said' MB: $(grep -A1 'timeline-mb' <<<"$help" | tr '\n' ' ')"
fi

# Backspace restores dt, softening, damping, theta and alpha (app_restore_defaults).
keys=$(sed -n '/^Keys:/,/^$/p' <<<"$help" | tr '\n' ' ' | tr -s ' ')
backspace=$(sed -n 's/.*Backspace defaults (\([^)]*\)).*/\1/p' <<<"$keys")
if grep -q theta <<<"$backspace" && grep -q alpha <<<"$backspace"; then ok "Backspace: $backspace"; else fail "Backspace restores '$backspace'"; fi

# The CPU's bodies where -n names none: viewer.h's, in --help and README.
cpu=$(sed -n 's/^#define CPU_DEFAULT_BODIES \([0-9]*\)/\1/p' "$src/src/app/viewer.h")
grouped=$(printf "%'d" "$cpu" 2>/dev/null | tr -d ' ')
[ "$grouped" = "$cpu" ] && grouped=$(sed ':a;s/\B[0-9]\{3\}\>/,&/;ta' <<<"$cpu")
if grep -q "the CPU with $cpu bodies" <<<"$(tr '\n' ' ' <<<"$help" | tr -s ' ')" &&
    grep -q "with $grouped bodies unless \`-n\`" "$readme"; then
    ok "the CPU runs $cpu bodies, in --help and README"
else
    fail "the CPU's $cpu bodies: README says '$(grep -o 'with [0-9,]* bodies unless `-n`' "$readme")'"
fi

# No parenthesis closed and another opened on one line.
stray=$(grep -n ') (' <<<"$help")
if [ -z "$stray" ]; then ok "no ') (' in --help"; else fail "--help: $stray"; fi

echo "$passed passed, $fails failed"
[ $fails -eq 0 ]
