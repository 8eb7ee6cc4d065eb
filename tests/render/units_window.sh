#!/bin/bash
# Physical units in a real window: the HUD reads the time in Myr with the model time beside it,
# names the rotation period and counts down to the pericentre; a dt given as 0.5Myr is the model
# dt the simulation runs; the readout's Myr and model figures agree with one scale; the scale bar
# is drawn (its pixels in a screenshot, its length the view's height at that scale) while the UI
# shows, and gone when H hides the UI; past the first pericentre the countdown comes from the
# bodies and says the galaxies recede (a save taken headless past it, opened --paused). The run is
# paused at once and stepped with '.', so what is read does not hang on the frame rate or the
# steps a frame (the CUDA backend runs 4 to the CPU's 1); every figure of a check is read from one
# frame's readout. Every wait is for what the readout says, never a sleep.
# usage: units_window.sh APP OUT_DIR   (under xvfb-run)
set -u
. "$(dirname "$0")/checks.sh"
. "$(dirname "$0")/window_checks.sh"
if [ $# -ne 2 ]; then
    echo "usage: units_window.sh APP OUT_DIR" >&2
    exit 2
fi
app=$1 out=$2
enter_out "$out"
# The first number after WORD in text: "t 18.5 Myr (1.66)" t -> 18.5.
after() { awk -v w="$2" '{ for (i = 1; i < NF; i++) if ($i == w) { print $(i + 1); exit } }' <<<"$1"; }
# Half the last place of a figure as the HUD writes it: what its rounding may hide. 230 -> 0.5,
# 2.50 -> 0.005.
half_place() { awk -v f="$1" 'BEGIN { d = index(f, ".") ? length(f) - index(f, ".") : 0; print 0.5 / 10 ^ d }'; }
# A copy of the readout as one frame wrote it: the figures of one check come from one frame (the
# program rewrites the file every frame, and a clock read a frame after its countdown is ahead by
# that frame's steps).
sv() { readout_value snap.txt "$1"; }
# One step while paused ('.'), taken: the readout's step count moved on.
stepped() { [ "$(rv step)" -gt "$1" ]; }
step() {
    local before
    before=$(rv step)
    key period && wait_for "a step from step $before" stepped "$before"
}

height=700
STARBURST_READOUT=$readout "$app" --backend "${STARBURST_TEST_BACKEND:-cpu}" -n 1024 --size 1200x$height \
    --dt 0.5Myr --capture-ui >>app.log 2>&1 &
pid=$!
focus_window
key space
wait_for "the pause" value_is paused 1 || abort "space did not pause the run"
# The countdown before the first pericentre (the scene's orbit), then the live one ("next
# pericentre in ~..."): a fast machine may have run past the first before the pause, and the
# timeline's start (ctrl+Left) goes back before it.
scene_countdown() { [[ "$(rv orbit_text)" =~ (^|\ )pericentre\ in\ [0-9.]+\ Myr ]]; }
if ! scene_countdown; then
    echo "paused at $(rv time_text), past the first pericentre: back to the timeline's start"
    key ctrl+Left
    wait_for "the timeline's start" scene_countdown || abort "no countdown at the timeline's start: $(rv orbit_text)"
fi
step || abort "'.' did not step the paused run"
snap

# ---- The HUD: time in Myr with the model time, rotation and countdown ----
if [[ "$(sv time_text)" =~ ^t\ [0-9.]+\ Myr\ \([0-9.]+\)$ ]]; then ok "HUD time: $(sv time_text)"; else fail "time_text '$(sv time_text)'"; fi
hud=$(sv hud)
[[ "$hud" == *Myr* && "$hud" == *"rotation "*" Myr at R"* && "$hud" == *"pericentre in "*" Myr"* ]] &&
    ok "HUD: ${hud##*GFLOP/s}" || fail "the HUD lacks Myr, the rotation or the countdown: $hud"

# One scale for everything: Myr per model time from the clock, and from dt's note.
tt=$(sv time_text)
t_myr=$(after "$tt" t) t_model=$(tr -d '()' <<<"$(awk '{ print $4 }' <<<"$tt")")
dt=$(sv dt) dt_myr=$(awk '{ print $1 }' <<<"$(sv dt_note)")
scale=$(calc "$dt_myr / $dt")
is "$dt_myr > 0.499 && $dt_myr < 0.501" && ok "--dt 0.5Myr runs dt $dt (model), shown as $(sv dt_note)" ||
    fail "--dt 0.5Myr: dt $dt, note '$(sv dt_note)'"
if is "$t_model > 0"; then
    is "($t_myr / $t_model) / $scale > 0.97 && ($t_myr / $t_model) / $scale < 1.03" &&
        ok "the clock's Myr per model time $(calc "$t_myr / $t_model") agrees with dt's $scale" ||
        fail "the clock reads $t_myr Myr at $t_model, dt says $scale Myr a model time"
fi
# The countdown runs with the clock: pericentre time + t stays put, and what is left shrinks. Both
# figures from one frame (snap.txt); the sums agree to the rounding of the four figures read.
orbit_sum() {
    P=$(awk '{ for (i = 1; i < NF; i++) if ($i == "pericentre" && $(i + 1) == "in") { print $(i + 2); exit } }' <<<"$(sv orbit_text)")
    T=$(after "$(sv time_text)" t)
    [[ "$P" =~ ^[0-9.]+$ && "$T" =~ ^[0-9.]+$ ]]
}
orbit_sum || abort "no countdown in '$(sv orbit_text)' at $(sv time_text)"
p1=$P t1=$T
# 2.5 Myr on: five steps of 0.5 Myr, whatever the backend runs a frame.
for s in 1 2 3 4 5; do step || abort "'.' did not step the paused run"; done
snap
orbit_sum || abort "no countdown in '$(sv orbit_text)' at $(sv time_text)"
p2=$P t2=$T
is "$t2 > $t1 && $p2 < $p1" && ok "the countdown falls: $p1 Myr at t $t1 Myr, $p2 Myr at t $t2 Myr" ||
    fail "countdown $p1 Myr at t $t1 Myr, then $p2 Myr at t $t2 Myr"
slack=$(calc "$(half_place "$p1") + $(half_place "$t1") + $(half_place "$p2") + $(half_place "$t2")")
is "($p1 + $t1) - ($p2 + $t2) <= $slack + 1e-9 && ($p2 + $t2) - ($p1 + $t1) <= $slack + 1e-9" &&
    ok "pericentre at t $(calc "$p1 + $t1") and $(calc "$p2 + $t2") Myr (the figures' rounding: $slack Myr)" ||
    fail "pericentre moves: $(calc "$p1 + $t1") then $(calc "$p2 + $t2") Myr (more than the figures' rounding, $slack Myr)"
peri_model=$(calc "($p2 + $t2) / $scale")

# ---- The scale bar: a round number of kpc, its length the view's height at that scale ----
snap
px=$(sv scalebar_px) text=$(sv scalebar_text) view=$(sv view_height_kpc)
kpc=$(awk '{ print $1 }' <<<"$text")
if [[ "$text" =~ ^[0-9]+\ kpc$ ]] && is "$px > 20"; then ok "scale bar: $text, $px px"; else fail "scale bar '$text', $px px"; fi
want=$(calc "$kpc * $height / $view")
is "$px - $want < 1 && $want - $px < 1" && ok "$kpc kpc at $view kpc a window height is $want px" ||
    fail "the bar is $px px, $kpc kpc of a $view kpc view is $want px"

# Its pixels: bright grey in its box of a screenshot with the UI, none once H hides the UI.
read -r X0 Y0 X1 Y1 <<<"$(sv scalebar_box)"
[ -n "${Y1:-}" ] || abort "no scalebar_box in the readout"
shot_taken() { local s; s=$(rv screenshot); [ -n "$s" ] && [ "$s" != "$1" ] && [ -s "$s" ]; }
shot() {
    local before
    before=$(rv screenshot)
    key p
    wait_for "a screenshot" shot_taken "$before" && SHOT=$(rv screenshot)
}
# Lit pixels (all three channels above 150: the bar is light grey) in the bar's box, from the screenshot as a binary PPM.
lit() {
    convert "$1" ppm:- >shot.ppm || return 1
    local w hdr
    w=$(head -c 64 shot.ppm | tr -s ' \n' ' ' | awk '{ print $2 }')
    hdr=$(head -c 64 shot.ppm | awk 'NR <= 3 { n += length($0) + 1 } END { print n }')
    tail -c +$((hdr + 1)) shot.ppm | od -An -v -tu1 -w3 |
        awk -v w="$w" -v x0="$X0" -v y0="$Y0" -v x1="$X1" -v y1="$Y1" '
            { x = (NR - 1) % w; y = int((NR - 1) / w) }
            x >= x0 && x <= x1 && y >= y0 && y <= y1 && $1 > 150 && $2 > 150 && $3 > 150 { n++ }
            END { print n + 0 }'
}
shot
with=$SHOT
key h
wait_for "the UI hidden" value_is visible 0
frames 3
if is "$(rv scalebar_px) == 0"; then ok "H hides the scale bar"; else fail "hidden UI, scale bar $(rv scalebar_px) px"; fi
shot
without=$SHOT
if command -v convert >/dev/null 2>&1 && on=$(lit "$with") && off=$(lit "$without"); then
    is "$on >= $px && $off < 5" && ok "the bar's box holds $on lit pixels with the UI, $off without" ||
        fail "the bar's box: $on lit pixels with the UI (want >= $px), $off without"
else
    echo "note: no convert to read the screenshots: the bar's pixels are not counted"
fi
key h
wait_for "the UI back" value_is visible 1
frames 3
is "$(rv scalebar_px) > 0" && ok "H again: the bar is back" || fail "the bar did not come back"

# ---- Past the first pericentre the bodies give the orbit: the galaxies recede ----
# The run to a quarter rotation past the first pericentre is a count of steps, taken headless and
# saved; the save opens paused in the window, so that what is read is that moment's, however fast
# the frames come (the receding lasts a few hundred frames of a GPU's).
kill "$pid" 2>/dev/null && wait "$pid" 2>/dev/null
past_steps=$(awk -v p="$peri_model" 'BEGIN { printf "%d", (p + 3.5) / 0.1 + 0.5 }')
"$app" --headless --backend "${STARBURST_TEST_BACKEND:-cpu}" -n 512 --dt 0.1 --steps-per-frame "$past_steps" \
    --frames 1 --save past.tipsy >>app.log 2>&1 || abort "the headless run to $past_steps steps did not save"
rm -f "$readout"
STARBURST_READOUT=$readout "$app" --backend "${STARBURST_TEST_BACKEND:-cpu}" --load past.tipsy --paused \
    --size 800x600 >>app.log 2>&1 &
pid=$!
wait_for "the first frame" test -s "$readout" || abort "no readout from the program"
focus_window
value_is paused 1 || fail "--paused: the run opened going (paused '$(rv paused)')"
step || abort "'.' did not step the paused run"
receding() { [[ "$(rv orbit_text)" =~ [0-9.]+\ kpc\ apart,\ receding ]]; }
if await "the orbit line from the bodies" receding; then
    ok "after the pericentre, at $(rv time_text) (step $(rv step)): $(rv orbit_text)"
else
    fail "no receding pair at $(rv time_text) (step $(rv step)): '$(rv orbit_text)'"
fi
finish
