#!/bin/bash
# The disk heating diagnostic in a real window (xdotool), read back from the program's readout
# (STARBURST_READOUT): an isolated disk of a few thousand bodies on the CPU in a live halo, whose
# bodies' two-body relaxation heats it within a few rotations while its energy stays clean (the
# noise the diagnostic is there to show; with halos as fields the disk heats far more slowly).
# - the HUD's energy arrives (summed beside the loop on the CPU) and is small;
# - the start and each sample are in the readout, finite and positive, and the start is what
#   starburst-measure finds in the same scene at t = 0, in the same annulus;
# - the Diagnostics section opens and draws with the rows in it;
# - the disk, once thickened past the hot level, is flagged in the readout and beside dE/E0 in the HUD;
# - R starts the series again from the new start;
# - the default collision is flagged while the other galaxy's tide is small, and not past its
#   pericentre, where the encounter heats the disks.
# Every wait is for a condition, never a sleep.
# usage: heating_window.sh APP MEASURE OUT_DIR   (under xvfb-run)
# STARBURST_TEST_BACKEND=cuda runs the same on a GPU machine (NVIDIA's GLX on Xvfb).
backend=${STARBURST_TEST_BACKEND:-cpu}
set -u
if [ $# -ne 3 ]; then
    echo "usage: heating_window.sh APP MEASURE OUT_DIR" >&2
    exit 2
fi
app=$(realpath "$1") measure=$(realpath "$2") out=$3
. "$(dirname "$(realpath "$0")")/checks.sh"
. "$(dirname "$(realpath "$0")")/window_checks.sh"
enter_out "$out"
n=2048 seed=7

# The value of KEY in the snapshot snap.txt is a finite number above 0.
positive() { awk -v v="$(readout_value snap.txt "$1")" 'BEGIN { exit !(v ~ /^[0-9.eE+-]+$/ && v + 0 > 0 && v + 0 < 1e30) }'; }
samples_at_least() { local s; s=$(rv heating_samples_0); [ -n "$s" ] && [ "$s" -ge "$1" ]; }
# |a - b| <= tol
close() { awk -v a="$1" -v b="$2" -v t="$3" 'BEGIN { d = a - b; if (d < 0) d = -d; exit !(a != "" && b != "" && d <= t) }'; }

STARBURST_READOUT=$readout "$app" --backend "$backend" --scene disk --halo live -n $n --seed $seed --steps-per-frame 8 --size 1000x700 \
    >app.log 2>&1 &
pid=$!
focus_window

if value_is heating_disks 1; then ok "one disk watched"; else abort "heating_disks is '$(rv heating_disks)', not 1"; fi
# The HUD's energy, summed in a thread beside the loop on the CPU backend: it arrives, and is small.
if wait_for "the energy measured" value_is energy_valid 1; then
    e=$(rv energy_error)
    if awk -v e="$e" 'BEGIN { exit !(e ~ /^[0-9.eE+-]+$/ && (e < 0 ? -e : e) < 1e-3) }'; then
        ok "the energy arrives: dE/E0 $e"
    else
        fail "dE/E0 '$e'"
    fi
fi
wait_for "two samples after the start" samples_at_least 3 || abort "heating samples: $(rv heating_samples_0)"
snap
bad=""
for k in heating_rmsz0_0 heating_rmsz_0 heating_sigmar0_0 heating_sigmar_0 heating_q0_0 heating_q_0 heating_time heating_cost; do
    positive "$k" || bad="$bad $k=$(readout_value snap.txt "$k")"
done
if [ -z "$bad" ]; then ok "the readout's heating values are finite and positive"; else fail "not finite and positive:$bad"; fi
since=$(readout_value snap.txt heating_since)
if [ "$since" = 0 ]; then ok "the series starts at t 0"; else fail "heating_since $since"; fi

# The start against the measuring tool on the same scene, in the annulus the series fixed.
read -r r0 r1 <<<"$(readout_value snap.txt heating_ring_0)"
line=$("$measure" --scene disk --n $n --seed $seed --ring "$r0" "$r1")
echo "starburst-measure: $line"
m_rmsz=$(sed -n 's/.*rms_z \([0-9.]*\),.*/\1/p' <<<"$line")
m_sigma=$(sed -n 's/.*sigma_R \([0-9.]*\) .*/\1/p' <<<"$line")
m_q=$(sed -n 's/.* Q \([0-9.]*\) .*/\1/p' <<<"$line")
z0=$(readout_value snap.txt heating_rmsz0_0) s0=$(readout_value snap.txt heating_sigmar0_0)
q0=$(readout_value snap.txt heating_q0_0)
if close "$z0" "$m_rmsz" 6e-5 && close "$s0" "$m_sigma" 6e-5 && close "$q0" "$m_q" 6e-4; then
    ok "the start is starburst-measure's at t 0: rms z $z0 ($m_rmsz), sigma_R $s0 ($m_sigma), Q $q0 ($m_q)"
else
    fail "the start: rms z $z0, sigma_R $s0, Q $q0; starburst-measure: $m_rmsz, $m_sigma, $m_q"
fi

# Diagnostics opened: its rows are drawn (the program goes on drawing frames).
widget_box() { awk -v n="$1" '$1 == "widget" && $2 == n { print int(($3 + $5) / 2), int(($4 + $6) / 2); exit }' "$readout"; }
read -r cx cy <<<"$(widget_box Diagnostics)"
if [ -n "${cx:-}" ]; then
    move "$cx" "$cy"
    # Down and up in frames of their own: ImGui takes a press and release within one frame as none.
    xdotool mousedown 1
    frames 2
    xdotool mouseup 1
    # Open, the section draws its controls: the force check's button is in the readout.
    opened() { awk '$1 == "widget" && $2 == "check_forces" { found = 1 } END { exit !found }' "$readout"; }
    if wait_for "Diagnostics to open" opened; then
        frames 3
        ok "Diagnostics opened and drawn"
    fi
else
    fail "no Diagnostics section in the readout"
fi

# A few thousand bodies heat the disk past the hot level within a few rotations.
wait_for "the disk flagged hot" value_is heating_flag 2
drift=$(rv heating_drift_0)
case "$(rv hud)" in
*"disk heated +"*) ok "hot (drift $drift), and the HUD says: $(grep -o 'disk heated +[0-9]* %' "$readout")" ;;
*) fail "hot (drift $drift), but the HUD says: $(rv hud)" ;;
esac
energy=$(rv energy_error)
echo "dE/E0 $energy at t $(rv time), state $(rv heating_state)"

# R: a new start, measured again.
xdotool key --clearmodifiers r
restarted() { value_is heating_samples_0 1 && value_is heating_flag 0; }
if wait_for "R to start the series again" restarted; then ok "R starts the series again: $(rv heating_state)"; fi

xdotool key Escape
if wait "$pid"; then ok "Esc exits with status 0"; else fail "Esc: exit status $?"; fi
pid=

# ---- The default collision: flagged while the other galaxy's tide is small, the encounter's not ----
# At 2,048 bodies the disks heat numerically long before they meet; from the encounter on (the
# tide past its limit, at the latest the pericentre the orbit predicts) the growth is the
# encounter's: shown in Diagnostics in plain words, never flagged.
readout=$PWD/collision.readout
rm -f "$readout"
STARBURST_READOUT=$readout "$app" --backend "$backend" --scene collision --halo live -n $n --steps-per-frame 24 --size 1000x700 \
    >app.log 2>&1 &
pid=$!
focus_window
flagged_early() { [ "$(rv heating_flag)" -ge 1 ] 2>/dev/null && value_is heating_encounter_0 -1; }
if wait_for "the disks flagged before the encounter" flagged_early; then
    ok "before the encounter: flag $(rv heating_flag) at t $(rv heating_time), tide $(rv heating_tidal_0) $(rv heating_tidal_1), HUD: $(grep -o 'disk heated +[0-9]* %' "$readout")"
fi
# Diagnostics open, to see the line that says what the drift is.
read -r cx cy <<<"$(widget_box Diagnostics)"
move "$cx" "$cy"
xdotool mousedown 1
frames 2
xdotool mouseup 1
past_pericentre() { case "$(rv orbit_text)" in "" | *"pericentre in"*) return 1 ;; esac; }
sampled_after() { awk -v a="$(rv heating_time)" -v b="$1" 'BEGIN { exit !(a + 0 > b + 0) }'; }
wait_for "the pericentre the orbit predicts" past_pericentre || abort "no pericentre by t $(rv time): $(rv orbit_text)"
after=$(rv time)
wait_for "a sample past the pericentre" sampled_after "$after" || abort "no heating sample after t $after"
frames 2
state=$(rv heating_state) flag=$(rv heating_flag)
echo "past the pericentre (t $after): sample at t $(rv heating_time), drift $(rv heating_drift_0) / $(rv heating_drift_1), tide $(rv heating_tidal_0) $(rv heating_tidal_1), encounter from t $(rv heating_encounter_0) $(rv heating_encounter_1)"
if [ "$state" = tidal ] && [ "$flag" = 0 ]; then ok "past the pericentre the heating is the encounter's: state $state, flag $flag"
else fail "past the pericentre: state $state, flag $flag"; fi
case "$(rv hud)" in
*"disk heated"*) fail "past the pericentre the HUD flags: $(grep -o 'disk heated +[0-9]* %' "$readout")" ;;
*) ok "past the pericentre the HUD flags nothing" ;;
esac
shot_taken() { local s; s=$(rv screenshot); [ -n "$s" ] && [ -s "$s" ]; }
xdotool key --clearmodifiers p
wait_for "a screenshot" shot_taken && echo "screenshot: $(rv screenshot)"
xdotool key Escape
if wait "$pid"; then ok "Esc exits with status 0"; else fail "Esc: exit status $?"; fi
pid=
finish
