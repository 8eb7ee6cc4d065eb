#!/bin/bash
# The panel and the HUD as they look in a real window (xdotool), read back from the program's
# readout (STARBURST_READOUT):
# - a slider's value is drawn clear of its handle, inside its frame, wherever the handle sits;
# - the HUD says each word once (the CPU backend's line once said "cpu  CPU, 2 threads");
# - in a window the screen's size, and in lecture mode (L, full screen), every section open: the
#   panel lies inside the window, every control in it can be scrolled into view, no two controls
#   overlap, and the panel leaves the HUD's box clear (the HUD wraps left of it).
# Every wait is for what the readout says (a click or a key taken, the mouse where it was sent),
# never for a time or a count of frames standing for one.
# PANEL_LAYOUT_PARTS names the parts run, of "sliders window lecture" (all three by default):
# tests/CMakeLists.txt gives each screen size the parts its size can change.
# usage: panel_layout.sh APP OUT_DIR   (under xvfb-run, at the screen size to check)
set -u
if [ $# -ne 2 ]; then
    echo "usage: panel_layout.sh APP OUT_DIR" >&2
    exit 2
fi
app=$(realpath "$1") out=$2
. "$(dirname "$(realpath "$0")")/checks.sh"
. "$(dirname "$(realpath "$0")")/window_checks.sh"
enter_out "$out"

# Every check of one step reads the same frame: a snapshot of the readout (snap).
# The box of control NAME in the last snapshot: X0 Y0 X1 Y1, and its centre CX CY.
widget() {
    local line
    line=$(awk -v n="$1" '$1 == "widget" && $2 == n { print $3, $4, $5, $6; exit }' snap.txt)
    [ -n "$line" ] || return 1
    read -r X0 Y0 X1 Y1 <<<"$line"
    CX=$(awk "BEGIN { print int(($X0 + $X1) / 2) }")
    CY=$(awk "BEGIN { print int(($Y0 + $Y1) / 2) }")
}

# Every slider in the snapshot: its value lies inside its frame and clear of its handle. Prints
# what is wrong; true when nothing is.
values_clear() {
    awk '$1 == "widget" { box[$2] = $3 " " $4 " " $5 " " $6 }
        END {
            n = 0
            for (name in box) {
                if (name !~ /_grab$/) continue
                s = substr(name, 1, length(name) - 5)
                if (!((s "_value") in box)) { print s ": a handle without a value"; bad = 1; continue }
                split(box[name], g, " "); split(box[s "_value"], v, " ")
                n++
                if (v[1] < g[3] && v[3] > g[1]) { print s ": value " box[s "_value"] " under its handle " box[name]; bad = 1 }
                if (s in box) {
                    split(box[s], f, " ")
                    if (v[1] < f[1] || v[3] > f[3]) { print s ": value " box[s "_value"] " outside its frame " box[s]; bad = 1 }
                }
            }
            if (n == 0) { print "no slider has a handle in the readout"; bad = 1 }
            exit bad
        }' snap.txt
}
check_values() {
    local why
    snap
    if why=$(values_clear); then ok "$1: every slider's value is clear of its handle"; else fail "$1: $why"; fi
}

# The words of the HUD (letters only, any case), each said once; units (Myr, Gyr, kpc, pc) may
# follow several figures.
hud_once() {
    local hud repeated
    hud=$(rv hud)
    [ -n "$hud" ] || { fail "$1: the readout has no HUD text"; return; }
    repeated=$(echo "$hud" | tr ' ' '\n' | sed 's/^[(,:]*//; s/[),:]*$//' | tr 'A-Z' 'a-z' | grep -E '^[a-z]+$' |
        grep -vxE 'myr|gyr|kpc|pc' | sort | uniq -d | tr '\n' ' ')
    if [ -z "$repeated" ]; then ok "$1: the HUD says each word once: $hud"; else fail "$1: the HUD repeats '$repeated': $hud"; fi
}

parts=${PANEL_LAYOUT_PARTS:-sliders window lecture}
for part in $parts; do
    case $part in sliders | window | lecture) ;; *) echo "PANEL_LAYOUT_PARTS: no part '$part' (sliders, window, lecture)" >&2; exit 2 ;; esac
done
part() { case " $parts " in *" $1 "*) return 0 ;; esac; return 1; }
screen=$(xdotool getdisplaygeometry)
echo "screen ${screen/ /x}: the parts $parts (PANEL_LAYOUT_PARTS)"

# STARBURST_TEST_BACKEND=cuda runs the same on a GPU machine (NVIDIA's GLX on Xvfb). The layout
# does not depend on the body count: 256 keep the frames quick (64 steps a frame on the slider).
STARBURST_READOUT=$readout "$app" --backend "${STARBURST_TEST_BACKEND:-cpu}" -n 256 --size "${screen/ /x}" >app.log 2>&1 &
pid=$!
focus_window
frames 3

if part sliders; then
    hud_once "the HUD"
    check_values "the start"
    # Each slider clicked along its frame: its value stays clear of the handle at every stop.
    for name in point_size exposure tree_levels dt steps/frame; do
        bad=0
        for f in 0.98 0.75 0.5 0.25 0.02; do # the low end last: 64 steps a frame is the slower
            snap
            widget "$name" || abort "no slider '$name' on screen"
            move "$(awk "BEGIN { print int($X0 + 1 + ($X1 - $X0 - 2) * $f) }")" "$CY" || abort "the mouse did not reach $name"
            click 1 || abort "the click on $name did not reach the program"
            snap
            values_clear >/dev/null || { bad=1; fail "$name at $f: $(values_clear)"; }
        done
        [ $bad -eq 0 ] && ok "$name: its value is clear of its handle at 5 places along it"
    done
fi

# Control NAME's box the same in two frames in a row (snap.txt the later): a click aimed at it
# lands on it.
steady() {
    local was f
    snap
    widget "$1" || return 1
    was="$X0 $Y0 $X1 $Y1" f=$(awk '$1 == "frame" { print $2 }' snap.txt)
    await "the frame after $f" frame_at_least $((f + 1)) || return 1
    snap
    widget "$1" && [ "$X0 $Y0 $X1 $Y1" = "$was" ]
}
# Clicks the widget NAME's left part (a header's or the title bar's arrow), where it stays.
click_arrow() {
    await "$1 to stay in place" steady "$1" || return 1
    move "$(awk "BEGIN { print int($X0 + ($Y1 - $Y0) / 2) }")" "$CY" || return 1
    click 1
}
# Fully inside the panel's visible part in the same frame (the panel widens as the Diagnostics
# section's lines grow).
shown() {
    widget panel_view || return 1
    local v0=$X0 w0=$Y0 v1=$X1 w1=$Y1
    widget "$1" && awk "BEGIN { exit !($X0 >= $v0 && $Y0 >= $w0 && $X1 <= $v1 + 0.5 && $Y1 <= $w1 + 0.5) }"
}
# Every control of snap.txt fully inside the panel's visible part (one awk for the frame; a name
# noted twice is judged by its first box, as widget reads it).
all_shown() {
    awk '$1 != "widget" { next }
        $2 == "panel_view" { v0 = $3; w0 = $4; v1 = $5; w1 = $6 }
        !($2 in box) { box[$2] = 1; name[++n] = $2; x0[n] = $3; y0[n] = $4; x1[n] = $5; y1[n] = $6 }
        END { for (i = 1; i <= n; i++) if (x0[i] >= v0 && y0[i] >= w0 && x1[i] <= v1 + 0.5 && y1[i] <= w1 + 0.5) print name[i] }' snap.txt
}
# Controls of snap.txt whose boxes overlap (more than half a pixel each way), one pair a line: a
# slider's handle and value lie inside its frame (values_clear judges them), the panel's boxes
# and the kernel ladder's window hold controls, the timeline lies outside the panel.
overlapping() {
    awk '$1 != "widget" || $2 ~ /^(panel|panel_title|panel_view|hud|ladder_window)$/ || $2 ~ /^timeline/ { next }
        { name[++n] = $2; x0[n] = $3; y0[n] = $4; x1[n] = $5; y1[n] = $6; base[n] = $2; sub(/_(grab|value)$/, "", base[n]) }
        END {
            for (i = 1; i <= n; i++)
                for (j = i + 1; j <= n; j++) {
                    if (base[i] == base[j]) continue
                    w = (x1[i] < x1[j] ? x1[i] : x1[j]) - (x0[i] > x0[j] ? x0[i] : x0[j])
                    h = (y1[i] < y1[j] ? y1[i] : y1[j]) - (y0[i] > y0[j] ? y0[i] : y0[j])
                    if (w > 0.5 && h > 0.5) print name[i] " (" x0[i] " " y0[i] " " x1[i] " " y1[i] ") and " name[j] " (" x0[j] " " y0[j] " " x1[j] " " y1[j] ")"
                }
        }' snap.txt
}
# The panel's box (its title bar's, folded) overlapping the HUD's in snap.txt: both printed.
hud_covered() {
    awk '$1 == "widget" && $2 == "hud" { h = $3 " " $4 " " $5 " " $6 }
        $1 == "widget" && $2 == "panel" { p = $3 " " $4 " " $5 " " $6 }
        $1 == "widget" && $2 == "panel_title" { t = $3 " " $4 " " $5 " " $6 }
        END {
            if (h == "") { print "no HUD box in the readout"; exit }
            if (p == "") p = t
            split(h, a, " "); split(p, b, " ")
            w = (a[3] < b[3] ? a[3] : b[3]) - (a[1] > b[1] ? a[1] : b[1])
            v = (a[4] < b[4] ? a[4] : b[4]) - (a[2] > b[2] ? a[2] : b[2])
            if (w > 0.5 && v > 0.5) print "the panel (" p ") covers the HUD (" h ")"
        }' snap.txt
}
# One turn of the wheel (4 up, 5 down) over the panel, taken; snap.txt is the frame after it.
wheel() {
    move "$(awk "BEGIN { print int(($PX0 + $PX1) / 2) }")" "$(awk "BEGIN { print int(($PY0 + $PY1) / 2) }")" ||
        abort "the mouse did not reach the panel"
    click "$1" || abort "the wheel did not reach the program"
    snap
}
# Turns are counted only to end a scroll that never stops: the panel is a few screens tall.
turns=0
# The panel's scroll in snap.txt: at its top, at its end (the readout's "panel_scroll Y MAX"; ImGui
# keeps Y to whole pixels, and the end of a panel laid out at a lecture scale of 1.25 is at 978.2).
scroll_at() { awk -v w="$1" '$1 == "panel_scroll" { exit !(w == "top" ? $2 <= 0 : $2 > $3 - 1) }' snap.txt; }
turned() {
    turns=$((turns + 1))
    [ $turns -le 100 ] || abort "the panel still scrolls after 100 turns of the wheel"
}
to_top() {
    snap
    until scroll_at top; do
        turned
        wheel 4
    done
}
# Scrolls down until header NAME shows, then opens it; true when control INSIDE then appears. Each
# turn and click is one the program took (the readout counts it), so a click is made again only
# after one that the program took and that missed (the panel moved under it).
open_section() {
    local i
    snap
    until shown "$1"; do
        scroll_at end && break
        turned
        wheel 5
    done
    shown "$1" || { fail "the $1 header cannot be scrolled into view"; return 1; }
    has_widget "$2" && return 0
    for i in 1 2 3; do
        click_arrow "$1" || { fail "the $1 header did not stay in place to be clicked"; return 1; }
        has_widget "$2" && return 0
        echo "the click on the $1 header was taken at frame $TAKEN and did not open it: clicked again"
        snap
        shown "$1" || wheel 5
    done
    fail "the $1 section did not open in 3 clicks taken"
    return 1
}

# The panel as it lies now (MODE says which: in a window, in lecture mode), every section open,
# scrolled top to bottom: inside the window, each control seen inside it at some place of the
# scroll, no two overlapping and the HUD clear at every place.
layout() {
    local mode=$1 W H
    turns=0
    read -r W H <<<"$(rv size)"
    wait_for "the panel to stay in place" steady panel || abort "$mode: no panel"
    widget panel
    if awk "BEGIN { exit !($X0 >= 0 && $Y0 >= 0 && $X1 <= $W && $Y1 <= $H) }"; then
        ok "$mode: the panel ($X0 $Y0 $X1 $Y1) lies inside the ${W}x$H window"
    else
        fail "$mode: the panel ($X0 $Y0 $X1 $Y1) runs off the ${W}x$H window"
    fi
    widget panel_view
    PX0=$X0 PY0=$Y0 PX1=$X1 PY1=$Y1
    # From the top (a part before may have left it scrolled), the sections opened on the way down.
    to_top
    open_section Scene seed && open_section Presets preset && open_section Diagnostics check_forces &&
        ok "$mode: every section open"
    to_top
    # Down to the end: each control seen inside the panel at some place of the scroll (the
    # timeline's slider lies under the view, outside it; on a GPU the kernel ladder's window,
    # bottom left, holds controls of its own).
    snap
    local all seen="" missing="" name places=0 overlaps="" covered=""
    all=$(awk '$1 == "widget" && $2 == "ladder_window" { lx0 = $3; ly0 = $4; lx1 = $5; ly1 = $6; ladder = 1 }
            $1 == "widget" { name[++n] = $2; x0[n] = $3; y0[n] = $4; x1[n] = $5; y1[n] = $6 }
            END {
                for (i = 1; i <= n; i++)
                    if (!(ladder && x0[i] >= lx0 && y0[i] >= ly0 && x1[i] <= lx1 && y1[i] <= ly1)) print name[i]
            }' snap.txt | grep -v -x -e panel -e panel_title -e panel_view -e hud -e ladder_window -e 'timeline.*' | sort -u)
    while :; do
        places=$((places + 1))
        seen="$seen $(all_shown | tr '\n' ' ')"
        [ -z "$overlaps" ] && overlaps=$(overlapping | head -n 3)
        [ -z "$covered" ] && covered=$(hud_covered)
        scroll_at end && break
        turned
        wheel 5
    done
    for name in $all; do
        case " $seen " in *" $name "*) ;; *) missing="$missing $name" ;; esac
    done
    if [ -z "$missing" ]; then
        ok "$mode: every control ($(echo "$all" | wc -w)) scrolls into view inside the panel ($places places of the scroll)"
    else
        fail "$mode: controls never inside the panel's visible part:$missing"
    fi
    if [ -z "$overlaps" ]; then ok "$mode: no two controls overlap at any of the $places places"; else fail "$mode: controls overlap: $overlaps"; fi
    if [ -z "$covered" ]; then ok "$mode: the panel leaves the HUD clear at every place"; else fail "$mode: $covered"; fi
    check_values "$mode"
}

if part window; then
    read -r W H <<<"$(rv size)"
    [ "$W $H" = "$screen" ] || abort "the window is $W x $H, not the screen's $screen"
    snap
    if why=$(hud_covered) && [ -z "$why" ]; then ok "the window: the panel leaves the HUD clear at the start"; else fail "the window, at the start: $why"; fi
    layout "the window at ${screen/ /x}"
fi

if part lecture; then
    # The mouse off the panel, over the scene, before the key.
    move 20 "$(($(rv size | cut -d' ' -f2) / 2))" || abort "the mouse did not reach the scene"
    key l || abort "L did not reach the program"
    wait_for "lecture mode" value_is lecture 1 || abort "L did not start lecture mode"
    full() { [ "$(rv size)" = "$screen" ]; }
    wait_for "full screen at $screen" full || abort "lecture mode is $(rv size), not the screen's $screen"
    frames 3
    hud_once "the lecture HUD"
    # Folded to its title bar, the panel leaves the HUD clear too.
    wait_for "the folded panel to stay in place" steady panel_title
    if why=$(hud_covered) && [ -z "$why" ]; then ok "lecture mode: the folded panel leaves the HUD clear"; else fail "lecture mode, folded: $why"; fi
    click_arrow panel_title || abort "no title bar for the panel"
    wait_for "the panel to unfold" has_widget panel || abort "the title bar's arrow did not unfold the panel"
    layout "lecture mode at ${screen/ /x}"
fi

xdotool key Escape
if wait "$pid"; then ok "Esc exits with status 0"; else fail "Esc: exit status $?"; fi
pid=
finish
