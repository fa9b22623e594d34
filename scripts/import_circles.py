#!/usr/bin/env python3
"""Lists the file-level import circles of a crate: `scripts/import_circles.py crates/xrpc-server/src [-v]`.

Builds the graph from `crate::`, `super::`, `self::` and `child::` paths (a child declared with
`mod child;` in the same file), ignoring comments and everything from the first `#[cfg(test)]` /
`#[cfg(all(test, …))]` on (test modules sit at the bottom of each file). `-v` prints every edge.
Prints one `CYCLE:` line per strongly connected component, with its edges; nothing when there
are none. Heuristic: it reads text, not the compiler's name resolution."""
import os, re, sys
root = sys.argv[1]
files = {}
for d, _, fs in os.walk(root):
    for f in fs:
        if f.endswith('.rs'):
            p = os.path.join(d, f)
            rel = os.path.relpath(p, root)[:-3].split(os.sep)
            if rel[-1] == 'mod': rel = rel[:-1]
            if rel in (['lib'], ['main']): rel = []
            if os.path.relpath(p, root) == 'main.rs': continue
            files[tuple(rel)] = os.path.relpath(p, root)
def resolve(parts):
    parts = tuple(parts)
    for n in range(len(parts), -1, -1):
        if parts[:n] in files: return parts[:n]
graph = {}
for mod, path in files.items():
    text = open(os.path.join(root, path)).read()
    # drop test modules (from '#[cfg(test)]' / '#[cfg(all(test' to end: they are at the bottom)
    m = re.search(r'^#\[cfg\((all\()?test', text, re.M)
    if m: text = text[:m.start()]
    text = re.sub(r'//[^\n]*', '', text)
    deps = set()
    children = set(re.findall(r'^\s*(?:pub(?:\([^)]*\))?\s+)?mod\s+([a-z_][a-z0-9_]*)\s*;', text, re.M))
    for m in re.finditer(r'(?<![A-Za-z0-9_:])(crate|super|self|[a-z_][a-z0-9_]*)((?:::[A-Za-z_][A-Za-z0-9_]*)*)(::\{)?', text):
        head = m.group(1)
        parts = [p for p in m.group(2).split('::') if p]
        if not parts and not m.group(3):
            continue
        if head == 'crate':
            base = []
        elif head == 'super':
            base = list(mod)[:-1]
        elif head == 'self':
            base = list(mod)
        elif head in children and (parts or m.group(3)):
            base = list(mod) + [head]
        else:
            continue
        cands = [parts]
        if m.group(3):
            end = text.find('}', m.end())
            items = text[m.end():end]
            cands = [parts + [x.strip().split('::')[0]] for x in items.split(',') if x.strip()]
        for c in cands:
            r = resolve(base + c)
            if r is not None and r != mod and r != ():
                deps.add(r)
    graph[mod] = deps
name = lambda m: files[m]
# cycles via Tarjan SCC
idx, low, st, on, sccs, i = {}, {}, [], set(), [], [0]
def sc(v):
    idx[v] = low[v] = i[0]; i[0] += 1; st.append(v); on.add(v)
    for w in graph[v]:
        if w not in idx: sc(w); low[v] = min(low[v], low[w])
        elif w in on: low[v] = min(low[v], idx[w])
    if low[v] == idx[v]:
        comp = []
        while True:
            w = st.pop(); on.discard(w); comp.append(w)
            if w == v: break
        sccs.append(comp)
sys.setrecursionlimit(10000)
for v in graph:
    if v not in idx: sc(v)
if '-v' in sys.argv:
    for m in sorted(graph): print(name(m), '->', ', '.join(sorted(name(d) for d in graph[m])))
for comp in sccs:
    if len(comp) > 1:
        print('CYCLE:', ' , '.join(sorted(name(m) for m in comp)))
        for m in comp:
            for d in graph[m]:
                if d in comp: print('   ', name(m), '->', name(d))
