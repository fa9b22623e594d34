#!/usr/bin/env python3
"""Import circles between the top-level modules of each crate: `scripts/module_circles.py [CRATE_DIR ...]`.

A crate's top-level modules are the files and directories directly under `src/` (`lib.rs` and
`main.rs` are the crate itself, not modules). A file's imports are its `crate::`, `super::` and
`self::` paths and the paths through a child it declares with `mod child;`, resolved against the
crate's files as `scripts/import_circles.py` resolves them; an arrow goes from the top-level
module holding the file to the top-level module holding the target. Comments and test modules
(everything from the first `#[cfg(test)]` / `#[cfg(all(test, ...))]` on) are left out: tests
may reach anywhere. Circles inside one top-level module (a parent and its children) are not
counted here; `scripts/import_circles.py` lists those.

Every crate under `crates/` is checked when no directory is given. Prints each crate's count and
its circles with their arrows; exits 1 if a circle is found that `ALLOWED` does not list.
Heuristic: it reads text, not the compiler's name resolution.
"""
import os
import re
import sys

# Circles a crate keeps on purpose, by crate: none.
ALLOWED: dict = {}


def file_graph(src):
    files = {}
    for d, _, names in os.walk(src):
        for name in names:
            if not name.endswith(".rs"):
                continue
            path = os.path.join(d, name)
            rel = os.path.relpath(path, src)[:-3].split(os.sep)
            if rel[-1] == "mod":
                rel = rel[:-1]
            if rel in (["lib"], ["main"]):
                rel = []
            if os.path.relpath(path, src) == "main.rs":
                continue
            files[tuple(rel)] = path

    def resolve(parts):
        parts = tuple(parts)
        for n in range(len(parts), -1, -1):
            if parts[:n] in files:
                return parts[:n]
        return None

    graph = {}
    for mod, path in files.items():
        text = open(path, encoding="utf-8").read()
        cut = re.search(r"^#\[cfg\((all\()?test", text, re.M)
        if cut:
            text = text[: cut.start()]
        text = re.sub(r"//[^\n]*", "", text)
        children = set(re.findall(r"^\s*(?:pub(?:\([^)]*\))?\s+)?mod\s+([a-z_][a-z0-9_]*)\s*;", text, re.M))
        deps = set()
        for m in re.finditer(
            r"(?<![A-Za-z0-9_:])(crate|super|self|[a-z_][a-z0-9_]*)((?:::[A-Za-z_][A-Za-z0-9_]*)*)(::\{)?", text
        ):
            head, parts = m.group(1), [p for p in m.group(2).split("::") if p]
            if not parts and not m.group(3):
                continue
            if head == "crate":
                base = []
            elif head == "super":
                base = list(mod)[:-1]
                while parts and parts[0] == "super":
                    base, parts = base[:-1], parts[1:]
            elif head == "self":
                base = list(mod)
            elif head in children:
                base = list(mod) + [head]
            else:
                continue
            candidates = [parts]
            if m.group(3):
                end = text.find("}", m.end())
                items = text[m.end() : end]
                candidates = [parts + [x.strip().split("::")[0]] for x in items.split(",") if x.strip()]
            for c in candidates:
                target = resolve(base + c)
                if target is not None and target != mod and target != ():
                    deps.add(target)
        graph[mod] = deps
    return graph


def circles(edges):
    index, low, stack, on, out, n = {}, {}, [], set(), [], [0]

    def visit(v):
        index[v] = low[v] = n[0]
        n[0] += 1
        stack.append(v)
        on.add(v)
        for w in sorted(edges[v]):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(sorted(comp))

    sys.setrecursionlimit(10000)
    for v in sorted(edges):
        if v not in index:
            visit(v)
    return out


def check(crate_dir):
    name = os.path.basename(os.path.normpath(crate_dir))
    graph = file_graph(os.path.join(crate_dir, "src"))
    edges = {}
    for mod, deps in graph.items():
        if not mod:
            continue
        top = mod[0]
        edges.setdefault(top, set())
        for dep in deps:
            if dep and dep[0] != top:
                edges[top].add(dep[0])
    found = circles(edges)
    bad = [c for c in found if set(c) not in ALLOWED.get(name, [])]
    arrows = sum(len(e) for e in edges.values())
    print(f"{name}: {len(edges)} modules, {arrows} arrows, {len(found)} circles ({len(found) - len(bad)} allowed)")
    for comp in found:
        arrows = " ".join(f"{a}->{b}" for a in comp for b in sorted(edges[a]) if b in comp)
        tag = "allowed" if comp not in bad else "circle"
        print(f"  {tag}: {', '.join(comp)}  ({arrows})")
    return not bad


def main(args):
    root = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
    crates = args or sorted(
        os.path.join(root, "crates", d)
        for d in os.listdir(os.path.join(root, "crates"))
        if os.path.isdir(os.path.join(root, "crates", d, "src"))
    )
    ok = all([check(c) for c in crates])
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
