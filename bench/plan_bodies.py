#!/usr/bin/env python3
"""plan_trip bodies between random stops of a GTFS feed, for the load
harness (bench/gtfs.sh): one JSON-RPC tools/call per line, each from one
stop to another at a random time between 06:00 and 21:00 local on DATE.

    plan_bodies.py SOURCES DATE COUNT [SEED]

SOURCES: comma-separated GTFS zips or folders (the stops of all are used).
Our own script; the standard library only."""
import csv
import io
import json
import os
import random
import sys
import zipfile


def stops_of(source):
    if os.path.isdir(source):
        with open(os.path.join(source, "stops.txt"), encoding="utf-8-sig") as f:
            text = f.read()
    else:
        with zipfile.ZipFile(source) as z:
            name = next(n for n in z.namelist() if n.endswith("stops.txt"))
            text = z.read(name).decode("utf-8-sig")
    for row in csv.DictReader(io.StringIO(text)):
        if row.get("location_type", "0") in ("", "0"):
            try:
                yield float(row["stop_lat"]), float(row["stop_lon"])
            except (KeyError, ValueError):
                continue


def main():
    sources, date, count = sys.argv[1], sys.argv[2], int(sys.argv[3])
    rng = random.Random(int(sys.argv[4]) if len(sys.argv) > 4 else 42)
    stops = [s for source in sources.split(",") for s in stops_of(source)]
    for i in range(count):
        a, b = rng.choice(stops), rng.choice(stops)
        seconds = rng.randrange(6 * 3600, 21 * 3600)
        when = "%sT%02d:%02d:%02d" % (date, seconds // 3600,
                                      seconds // 60 % 60, seconds % 60)
        body = {"jsonrpc": "2.0", "id": i + 1, "method": "tools/call",
                "params": {"name": "plan_trip", "arguments": {
                    "origin": {"type": "coords",
                               "value": {"lat": a[0], "lon": a[1]}},
                    "destination": {"type": "coords",
                                    "value": {"lat": b[0], "lon": b[1]}},
                    "when": {"type": "depart", "time": when}}}}
        print(json.dumps(body, separators=(",", ":")))


if __name__ == "__main__":
    main()
