#!/usr/bin/env python3
"""The layers of transitd's sources, checked from their #include lines.

Each folder is a layer; a file includes only its own layer and those below:

    messages  <  util, net  <  offline  <  store, providers  <  actors
              <  transport

Besides: the offline engine (offline/) and the vocabulary (messages/, but
for the actor interfaces and their CAF glue) are plain C++ with no CAF and
no HTTP; nothing includes a file through a path outside "transitd/"; and
the headers include each other without a cycle.

Usage: tests/layers.py [SOURCE_ROOT]   (exit 1 naming each breach)
"""

import os
import re
import sys

RANK = {
    "messages": 0,
    "util": 1,
    "net": 1,
    "offline": 2,
    "store": 3,
    "providers": 3,
    "actors": 4,
    "transport": 5,
}
# Layers of one rank stay apart: neither includes the other.
PLAIN = ("offline",)
ACTOR_INTERFACES = {"messages/interfaces.hpp", "messages/caf_glue.hpp",
                    "messages/caf_glue.cpp"}
FOREIGN = re.compile(r'#\s*include\s*<(caf/|httplib\.h)')
OURS = re.compile(r'#\s*include\s*"transitd/([a-z_]+)/([^"]+)"')
BARE = re.compile(r'#\s*include\s*"(%s)/' % "|".join(RANK))


def sources(root):
    for layer in RANK:
        for folder, _, names in os.walk(os.path.join(root, layer)):
            for name in sorted(names):
                if name.endswith((".hpp", ".cpp")):
                    path = os.path.join(folder, name)
                    yield layer, os.path.relpath(path, root)


def main():
    root = sys.argv[1] if len(sys.argv) > 1 else os.path.dirname(
        os.path.dirname(os.path.abspath(__file__)))
    problems = []
    graph = {}
    count = 0
    for layer, rel in sources(root):
        count += 1
        with open(os.path.join(root, rel), encoding="utf-8") as f:
            text = f.read()
        edges = graph.setdefault(rel, [])
        for line_no, line in enumerate(text.splitlines(), 1):
            where = "%s:%d" % (rel, line_no)
            if BARE.search(line):
                problems.append(where + ": include through \"transitd/\"")
            if FOREIGN.search(line) and (
                    layer in PLAIN
                    or (layer == "messages" and rel not in ACTOR_INTERFACES)):
                problems.append(where + ": %s/ is plain C++ (no CAF, no "
                                "HTTP): %s" % (layer, line.strip()))
            m = OURS.search(line)
            if not m:
                continue
            target, path = m.group(1), m.group(2)
            if target not in RANK:
                problems.append(where + ": unknown layer " + target)
                continue
            edges.append(target + "/" + path)
            higher = RANK[target] > RANK[layer]
            sideways = RANK[target] == RANK[layer] and target != layer
            if higher or sideways:
                problems.append(where + ": %s/ includes %s/%s (a layer "
                                "%s)" % (layer, target, path,
                                         "above" if higher else "beside"))
            if layer in PLAIN and target + "/" + path in ACTOR_INTERFACES:
                problems.append(where + ": %s/ is plain C++: no actor "
                                "interfaces" % layer)
    # Cycles among the files (depth-first, colouring).
    state = {}

    def visit(node, stack):
        state[node] = 1
        stack.append(node)
        for nxt in graph.get(node, []):
            if state.get(nxt) == 1:
                cycle = stack[stack.index(nxt):] + [nxt]
                problems.append("include cycle: " + " -> ".join(cycle))
            elif nxt in graph and state.get(nxt) is None:
                visit(nxt, stack)
        stack.pop()
        state[node] = 2

    for node in sorted(graph):
        if state.get(node) is None:
            visit(node, [])
    if count == 0:
        problems.append("no sources found under " + root)
    for p in problems:
        print(p)
    print("layers: %d files, %d problems" % (count, len(problems)))
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
