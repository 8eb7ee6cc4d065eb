#!/bin/bash
# The collision's encounter in the panel's Scene section, by hand in a real window (xdotool), read
# back from the program's readout (STARBURST_READOUT), the presets file and the bodies built:
# - the five controls start at the scene's encounter (mass ratio 1, pericentre 3 = 7.80 kpc,
#   eccentricity 1, disks tilted 0 and 60 degrees);
# - each slider dragged end to end rises across its range, and the run is not rebuilt meanwhile
#   (applied on reset);
# - values typed (ctrl+click) are read as the command line reads them, "20kpc" on the collision's
#   scale; one out of range is brought in and said; R builds what they say, and again;
# - a pericentre beyond the pair's starting separation is refused by R with the scene's line, the
#   run going on as it was and the panel keeping the value to mend;
# - a preset chosen (]) fills the controls with its encounter;
# - Save current as preset writes the encounter built, and the preset builds it again;
# - a screenshot (P) of the retrograde minor pass shows its two galaxies.
# Every wait is for a condition, never a sleep.
# usage: encounter_window.sh APP SOURCE_DIR CHECKER OUT_DIR   (under xvfb-run)
# STARBURST_TEST_BACKEND=cuda runs the same on a GPU machine (NVIDIA's GLX on Xvfb).
backend=${STARBURST_TEST_BACKEND:-cpu}
set -u
if [ $# -ne 4 ]; then
    echo "usage: encounter_window.sh APP SOURCE_DIR CHECKER OUT_DIR" >&2
    exit 2
fi
app=$(realpath "$1") src=$(realpath "$2") checker=$(realpath "$3") out=$4
. "$(dirname "$(realpath "$0")")/checks.sh"
. "$(dirname "$(realpath "$0")")/window_checks.sh"
enter_out "$out"
cp "$src/assets/presets.ini" presets.ini || exit 1
n=1024

# The readout's encounter under PREFIX ("built_": as built; "": the controls) is mass ratio,
# pericentre, eccentricity, inclinations A and B.
encounter_is() {
    local prefix=$1 k
    shift
    for k in mass_ratio pericentre eccentricity inclination_a inclination_b; do
        is_close "$prefix$k" "$1" || return 1
        shift
    done
}
built_is() { encounter_is built_ "$@"; }
controls_are() { encounter_is "" "$@"; }
shot_taken() { local s; s=$(rv screenshot); [ -n "$s" ] && [ "$s" != "$1" ] && [ -s "$s" ]; }
section_open() { has_widget "$1"; }
# ] until the preset NAME runs (at most once round the list).
to_preset() {
    local tries=0 was
    while [ "$(rv preset_name)" != "$1" ] && [ $tries -lt 40 ]; do
        was=$(rv preset)
        key bracketright
        wait_for "the next preset" eval '[ "$(rv preset)" != "$was" ]' || break
        tries=$((tries + 1))
    done
    value_is preset_name "$1" || fail "] never reached the preset '$1' (at '$(rv preset_name)')"
}
open_section() { # HEADER, a control inside it
    has_widget "$2" && return 0
    press_control "$1"
    wait_for "the $1 section to open" section_open "$2" || abort "no $2 after opening $1"
}

STARBURST_READOUT=$readout "$app" --backend "$backend" -n $n --size 1100x720 --presets presets.ini \
    >app.log 2>&1 &
pid=$!
focus_window
frames 3

# The Simulation section folded, the Scene section opened: the encounter's controls in view.
press_control Simulation
wait_for "the Simulation section to fold" eval '! has_widget dt' || fail "the Simulation section stays open"
open_section Scene mass_ratio
if wait_for "the scene's encounter" controls_are 1 3 1 0 60 && built_is 1 3 1 0 60; then
    ok "the controls start at the scene's encounter: 1, 3, 1, 0, 60"
else
    fail "the controls start at $(rv mass_ratio) $(rv pericentre) $(rv eccentricity) $(rv inclination_a) $(rv inclination_b)"
fi
expect pericentre_note "7.80 kpc" "the pericentre in kpc"

# Each slider end to end: its values rise; nothing is built until R.
steps0=$(rv steps_run)
sweep mass_ratio mass_ratio
check_sweep "mass ratio" 0.05 20 0.8 1.25
sweep pericentre pericentre
check_sweep pericentre 0.1 20 1.2 1.7
sweep eccentricity eccentricity
check_sweep eccentricity 0.2 5 0.85 1.2
sweep inclination_A inclination_a
check_sweep "inclination A" -180 180 -10 10
sweep inclination_B inclination_b
check_sweep "inclination B" -180 180 -10 10
if built_is 1 3 1 0 60 && is "$(rv steps_run) > $steps0"; then
    ok "the drags wait for R: the run goes on with its encounter ($(rv steps_run) steps since the start)"
else
    fail "the drags rebuilt the run or stopped it: built $(rv built_mass_ratio) $(rv built_inclination_b), steps $(rv steps_run)"
fi

# Typed, as the command line reads them: a length with its unit, a value out of range brought in.
typed_to mass_ratio mass_ratio 50 20 "mass ratio 50 is above the range 0.05 to 20: set to 20"
typed_to mass_ratio mass_ratio 0.3 0.3 ""
typed_to pericentre pericentre 20kpc "$(calc 20/2.6)" "pericentre 20kpc = 7.69231"
typed_to eccentricity eccentricity 1 1 ""
typed_to inclination_A inclination_a 0 0 ""
typed_to inclination_B inclination_b -120 -120 ""
wait_for "the pericentre in kpc" value_is pericentre_note "20.0 kpc" || fail "pericentre_note $(rv pericentre_note)"
if wait_for "the spin's word" has_widget inclination_B; then :; fi

# R builds them, and R again builds the same; each reset says the encounter.
for again in 1 2; do
    key r
    if wait_for "R to build the encounter" built_is 0.3 "$(calc 20/2.6)" 1 0 -120; then
        ok "R ($again): built mass ratio 0.3, pericentre 20 kpc, parabola, tilts 0 and -120"
    else
        fail "R ($again): built $(rv built_mass_ratio) $(rv built_pericentre) $(rv built_eccentricity) $(rv built_inclination_a) $(rv built_inclination_b)"
    fi
    [ $again = 1 ] && { wait_for "the notice" notice_has "the encounter: mass ratio 0.3, pericentre 7.69 (20.0 kpc)" &&
        ok "R says: $(rv notice)" || fail "R says '$(rv notice)'"; }
done
if value_is bodies $n && value_is field_halos 2; then ok "$n stars and 2 fields"; else fail "bodies $(rv bodies), fields $(rv field_halos)"; fi
before=$(rv screenshot)
key p
if wait_for "a screenshot" shot_taken "$before" && cp "$(rv screenshot)" retrograde.png && "$checker" retrograde.png; then
    ok "the retrograde minor pass on screen: two galaxies"
else
    fail "retrograde.png: not two galaxies"
fi

# A pericentre beyond the separation the pair starts at: R refuses with the scene's line.
typed_to pericentre pericentre 100kpc "$(calc 100/2.6)" ""
key r
if wait_for "the refusal" notice_has "lies beyond the separation"; then ok "R refuses: $(rv notice)"; else fail "R says '$(rv notice)'"; fi
if built_is 0.3 "$(calc 20/2.6)" 1 0 -120 && is_close pericentre "$(calc 100/2.6)"; then
    ok "the run goes on as built; the panel keeps 100 kpc to mend"
else
    fail "after the refusal: built pericentre $(rv built_pericentre), the control $(rv pericentre)"
fi
typed_to pericentre pericentre 20kpc "$(calc 20/2.6)" ""

# Save current as preset: the encounter built, written; it loads back from the file.
open_section Presets name
count=$(rv presets)
name_preset "retrograde by hand"
press_control save_preset
expect presets $((count + 1)) "Save current as preset"
section() { awk -v s="[$1]" '$0 == s { on = 1; next } /^\[/ { on = 0 } on' presets.ini; }
section "retrograde by hand" >saved.txt
# inclination_a 0 is the default, left out.
if grep -q '^mass_ratio = 0.3' saved.txt && grep -q '^inclination_b = -120' saved.txt && ! grep -q '^inclination_a = [^0]' saved.txt &&
    grep -q '^pericentre = 7.69' saved.txt; then
    ok "the preset holds the encounter: $(grep -E '^(mass_ratio|pericentre|inclination_a|inclination_b|eccentricity) ' saved.txt | tr '\n' ' ')"
else
    fail "the preset's section: $(tr '\n' ' ' <saved.txt)"
fi

# A preset chosen fills the controls: ] steps through them to the Mice (equal masses, a parabola,
# pericentre 5.2 kpc, tilts 20 and 40).
to_preset "The Mice (NGC 4676)"
if wait_for "the Mice's encounter in the controls" controls_are 1 2 1 20 40 && built_is 1 2 1 20 40; then
    ok "the Mice preset fills the controls: 1, 2 (5.2 kpc), 1, 20, 40"
else
    fail "after the Mice (preset $(rv preset)): $(rv mass_ratio) $(rv pericentre) $(rv eccentricity) $(rv inclination_a) $(rv inclination_b)"
fi

# Back to the preset saved by hand: it builds the encounter again.
to_preset "retrograde by hand"
if wait_for "the saved preset's encounter" built_is 0.3 "$(calc 20/2.6)" 1 0 -120 && controls_are 0.3 "$(calc 20/2.6)" 1 0 -120; then
    ok "the preset saved by hand builds its encounter again"
else
    fail "the saved preset built $(rv built_mass_ratio) $(rv built_pericentre) $(rv built_inclination_b)"
fi
finish
