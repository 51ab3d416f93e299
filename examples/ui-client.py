#!/usr/bin/env python3
"""A UI that drives evroute's responder chain: the client of examples/ui-two-pages.yaml.

It connects to the layout's `ui` socket plugin, reads one JSON event per line, and follows
the buttons' handler options ("options":{"button":…}) by sending commands on the same
connection:

    button settings  →  {"command":"present","screen":"settings"}
    button delete    →  {"command":"present","screen":"confirm"}
    button back, yes, no  →  {"command":"dismiss"}

Each command carries a "tag"; the client waits for the answer with that tag (a line with
"ok") before it reads on. Lines without "ok" are events. Standard library only.

usage: ui-client.py SOCKET [--once N]     (N: exit after N commands; default: until EOF)

See docs/ui-control.md.
"""

import argparse
import json
import socket
import sys

# What a tap on each button asks evroute to do.
COMMANDS = {
    "settings": {"command": "present", "screen": "settings"},
    "delete": {"command": "present", "screen": "confirm"},
    "back": {"command": "dismiss"},
    "yes": {"command": "dismiss"},
    "no": {"command": "dismiss"},
}


def main():
    parser = argparse.ArgumentParser(description="Follow the buttons of examples/ui-two-pages.yaml.")
    parser.add_argument("socket", help="the ui socket plugin's path")
    parser.add_argument("--once", type=int, metavar="N", help="exit after N commands")
    args = parser.parse_args()

    conn = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    conn.connect(args.socket)
    lines = conn.makefile("r", encoding="utf-8")
    print(f"connected to {args.socket}", flush=True)

    backlog = []  # events that arrived while a command waited for its answer

    def messages():
        """The JSON lines from evroute, until EOF."""
        for line in lines:
            if line.strip():
                yield json.loads(line)

    def events():
        """The events, in order: the backlog first, then what comes in."""
        incoming = messages()
        while True:
            if backlog:
                yield backlog.pop(0)
                continue
            message = next(incoming, None)
            if message is None:
                return  # EOF: the daemon went away
            if "ok" not in message:  # a line with "ok" is an answer, anything else an event
                yield message

    def send(request, tag):
        """Sends one command and returns its answer."""
        conn.sendall((json.dumps(dict(request, tag=tag)) + "\n").encode())
        for message in messages():
            if "ok" not in message:
                backlog.append(message)
            elif message.get("tag") == tag:
                return message
        sys.exit(0)  # EOF before the answer

    done = 0
    for event in events():
        button = event.get("options", {}).get("button")
        if event.get("type") != "touch" or not event.get("tap") or button not in COMMANDS:
            continue
        request = COMMANDS[button]
        done += 1
        answer = send(request, tag=done)
        what = " ".join(str(v) for v in request.values())
        result = "ok" if answer["ok"] else "refused: " + answer.get("error", "?")
        print(f"tap {button} ({event['region']}) → {what}: {result}", flush=True)
        if args.once is not None and done >= args.once:
            break
    conn.close()

if __name__ == "__main__":
    main()
