#!/usr/bin/env python3
"""An example evroute `process` plugin helper (Python 3, standard library only).

evroute writes one JSON object per line on our stdin: the dry-run trace's event object
(`{"type":"touch","phase":"began","region":"home/root/content",...}`) plus an `"id"`.
We answer each one with `{"id": N, "handled": true}` or `{"id": N, "handled": false}` on
stdout, one line each, flushed. An event answered `false` (or not answered within the
plugin's `deadline-ms`) walks on to the next responder, as in UIKit.

This helper takes the touches (every phase) of the regions named on its command line and
declines everything else; it reports each tap it takes on stderr, which evroute logs.

Attach it in evroute.yaml:

    plugins:
      - name: kiosk
        type: process
        command: [/usr/bin/python3, /usr/share/evroute/examples/kiosk-helper.py,
                  --regions, home/root/content, home/root/header/back]
        deadline-ms: 100
    screens:
      - name: home
        root:
          ...
          handlers:
            - { plugin: kiosk, on: [touch] }

Run it by hand to see the protocol:

    echo '{"type":"touch","phase":"ended","tap":true,"region":"home/root/content","id":7}' \
        | python3 kiosk-helper.py --regions home/root/content
"""

import argparse
import json
import sys


def log(message):
    print(f"kiosk-helper: {message}", file=sys.stderr, flush=True)


def decide(event, regions):
    """True when we take the event: a touch bound to one of our regions."""
    return event.get("type") == "touch" and event.get("region") in regions


def main():
    parser = argparse.ArgumentParser(description="evroute process-plugin example")
    parser.add_argument("--regions", nargs="*", default=["home/root/content"],
                        help="region paths whose touches this helper handles")
    args = parser.parse_args()
    regions = set(args.regions)
    log(f"started; handling touches in {', '.join(sorted(regions)) or 'no region'}")

    for line in sys.stdin:
        line = line.strip()
        if not line:
            continue
        try:
            event = json.loads(line)
            event_id = event["id"]
        except (ValueError, KeyError, TypeError) as error:
            log(f"ignoring a line that is not an event: {error}")
            continue
        handled = decide(event, regions)
        if handled and event.get("tap"):
            log(f"tap x{event.get('tap_count', 1)} on {event['region']} at ({event.get('x')}, {event.get('y')})")
        sys.stdout.write(json.dumps({"id": event_id, "handled": handled}) + "\n")
        sys.stdout.flush()
    log("stdin closed; exiting")


if __name__ == "__main__":
    try:
        main()
    except KeyboardInterrupt:
        pass
