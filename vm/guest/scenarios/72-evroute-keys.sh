#!/bin/sh
# 72-evroute-keys — keys by UIKit's rule on a real kernel, read back by libinput on
# "evroute keyboard" (config/keys-forward.yaml):
#   1. a grabbed keyboard with text: on and a fallback forwarding `key`: a, b and Ctrl+C
#      reach the virtual keyboard (before, letters were lost: nobody took their text);
#   2. the kept chord Ctrl+W: W never reaches it, Ctrl is released there when W is kept
#      and its real up is not written again (pressed and released once each);
#   3. F1 sends an action that `press: "ctrl+KEY_F5"` types: Ctrl down, F5 down, F5 up,
#      Ctrl up, each whole (an `action` handler on a key sends on each phase: several);
#   4. a scanner (text: line, keymap de) types a 27-character line: it is typed on the
#      virtual keyboard with de's keys (KEY_Y for z, KEY_Z for y, AltGr+Q for @), then Enter,
#      a few keys per write (one write would overflow a reader's 64-event kernel buffer);
#   5. a key held when the daemon stops is released on the virtual keyboard.
# SKIP when the image has no evroute or libinput.
# timeout: 120
#
# rec: keyboards/Razer Razer BlackWidow 2013.keyboard.desc
# rec: keyboards/Logitech K400 Plus.events
. /vm/lib.sh

need evroute libinput
# keys_seen FILE   libinput's key lines as "KEY_X+" / "KEY_X-", in order
keys_seen() {
	awk '$2 == "KEYBOARD_KEY" { k = $4; s = ($0 ~ /pressed/) ? "+" : "-"; printf "%s%s ", k, s } END { print "" }' "$1" | sed 's/ $//'
}
press() { emit "$1" EV_KEY "$2" 1 sync; emit "$1" EV_KEY "$2" 0 sync; }

create_device "$KB/Razer Razer BlackWidow 2013.keyboard.desc"; KBD=$DEVNODE
create_device "$KB/Logitech K400 Plus.events"; SCANNER=$DEVNODE
no_key_repeat "$SCANNER"
evroute check --config /vm/config/keys-forward.yaml >check.out 2>&1
check "check: the layout passes without a warning" "$(grep -c warning check.out)" -eq 0
start_daemon "$KBD" /vm/config/keys-forward.yaml --show-keycodes
wait_until 10 test -n "\$(virtual_node 'evroute keyboard')"
knode=$(virtual_node "evroute keyboard")
check "the virtual keyboard exists" "${knode:-none}" != none
udevadm settle --timeout=10
start_reader keys "$knode" libinput debug-events --show-keycodes --device "$knode"

# 1. letters and a chord
press "$KBD" KEY_A; press "$KBD" KEY_B
emit "$KBD" EV_KEY KEY_LEFTCTRL 1 sync; press "$KBD" KEY_C; emit "$KBD" EV_KEY KEY_LEFTCTRL 0 sync
wait_until 5 _has_lines keys.out 'KEY_LEFTCTRL .*released' 1
got=$(keys_seen keys.out)
check "keys: a, b, Ctrl+C reach the virtual keyboard" "$got" = "KEY_A+ KEY_A- KEY_B+ KEY_B- KEY_LEFTCTRL+ KEY_C+ KEY_C- KEY_LEFTCTRL-"

# 2. the kept chord
: >keys.mark; n0=$(wc -l <keys.out)
emit "$KBD" EV_KEY KEY_LEFTCTRL 1 sync; press "$KBD" KEY_W; emit "$KBD" EV_KEY KEY_LEFTCTRL 0 sync
press "$KBD" KEY_X
wait_until 5 _has_lines keys.out 'KEY_X .*released' 1
got=$(tail -n +"$((n0 + 1))" keys.out >chord.out; keys_seen chord.out)
check "chord: Ctrl+W — W never reaches it, Ctrl pressed and released once" "$got" = "KEY_LEFTCTRL+ KEY_LEFTCTRL- KEY_X+ KEY_X-"
# The log line and the virtual keyboard's frames leave at the end of the same wake-up, in
# either order: the reader seeing X is no sign the log is written yet.
wait_until 5 _has_lines daemon.log 'KEY_W down' 1
check "chord: W is in the daemon's log" "$(count_lines daemon.log 'KEY_W down')" -ge 1

# 3. an action typed as a chord
n0=$(wc -l <keys.out)
press "$KBD" KEY_F1
wait_until 5 _has_lines keys.out 'KEY_F5 .*released' 1
got=$(tail -n +"$((n0 + 1))" keys.out >press.out; keys_seen press.out)
# (an `action` handler on a key sends on each of its phases: down, kernel repeats, up)
group="KEY_LEFTCTRL+ KEY_F5+ KEY_F5- KEY_LEFTCTRL-"
check "press: F1's actions each typed whole as Ctrl+F5 (at least two)" "$(echo "$got" | grep -o "$group" | wc -l)/$(echo "$got" | sed "s/$group//g" | tr -d ' ')" = "$(echo "$got" | grep -o "$group" | wc -l)/"
check "press: down and up sent an action each" "$(echo "$got" | grep -o "$group" | wc -l)" -ge 2

# 4. the scanner's line, typed with de's keys: z, y, 24 digits, @ (AltGr+Q), Enter, at scanner
# speed (a file played by evemu-play: the shell's key by key would let the kernel repeat keys)
digits="1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4"
# KEY_Y 21, KEY_Z 44, the digits, KEY_RIGHTALT 100 held around KEY_Q 16, KEY_ENTER 28
key_events 0.002 21 44 $(digit_codes "$(echo $digits | tr -d ' ')") +100 16 -100 28 >line.events
want="KEY_Y+ KEY_Y- KEY_Z+ KEY_Z-"
for k in $digits; do want="$want KEY_$k+ KEY_$k-"; done
want="$want KEY_RIGHTALT+ KEY_Q+ KEY_Q- KEY_RIGHTALT- KEY_ENTER+ KEY_ENTER-"
n0=$(wc -l <keys.out)
replay "$SCANNER" line.events
wait_until 10 _has_lines keys.out 'KEY_ENTER .*released' 1
got=$(tail -n +"$((n0 + 1))" keys.out >line.out; keys_seen line.out)
check "type-text: the 27-character line typed with de's keys, then Enter, nothing dropped" "$got" = "$want"
check "type-text: no SYN_DROPPED on the virtual keyboard" "$(count_lines keys.out 'SYN_DROPPED|dropped')" -eq 0

# 5. a key held at stop
n0=$(wc -l <keys.out)
emit "$KBD" EV_KEY KEY_LEFTSHIFT 1 sync
wait_until 5 _has_lines keys.out 'KEY_LEFTSHIFT .*pressed' 1
stop_daemon
sleep 0.5
got=$(tail -n +"$((n0 + 1))" keys.out >stop.out; keys_seen stop.out)
check "stop: the held Shift is released on the virtual keyboard" "$got" = "KEY_LEFTSHIFT+ KEY_LEFTSHIFT-"
stop_reader keys
finish "letters and chords forwarded, a kept chord's Ctrl released, press: and type-text: on the virtual keyboard"
