"""Delta debugging of a failing soak case (Zeller and Hildebrandt's ddmin): the graph's
root nodes and the compile options are cut down to a minimal set that still fails the
same way, and the result is written out as a `.ge` reproducer with the exact `ge-run`
command that shows it.

A root node that is cut is replaced by graph inputs of its result types (`Data`), so every
use stays valid; `^n` control edges to it go; inputs, constants and variables nobody uses
any more go, and so do subgraphs nothing references; root inputs are renumbered."""
import re

NODE = re.compile(r'^(\s*)(\S+) = (.*) : (.*)$')
CALL = re.compile(r'^("[^"]+"|[\w.]+)\((.*?)\)(.*)$')
SOURCES = {"Data", "Const", "Variable"}


def split_top(s):
    """Splits `a, b[1, 2], (c, d)` at top-level commas."""
    out, depth, cur = [], 0, ""
    for ch in s:
        if ch in "([<{":
            depth += 1
        elif ch in ")]>}":
            depth -= 1
        if ch == "," and depth == 0:
            out.append(cur.strip())
            cur = ""
        else:
            cur += ch
    if cur.strip():
        out.append(cur.strip())
    return out


class Node:
    def __init__(self, indent, name, body, types):
        self.indent, self.name, self.body, self.types = indent, name, body, types
        m = CALL.match(body)
        self.op = m.group(1).strip('"') if m else None
        self.args = split_top(m.group(2)) if m else []
        self.rest = m.group(3) if m else ""

    def text(self):
        return f"{self.indent}{self.name} = {self.op}({', '.join(self.args)}){self.rest} : {self.types}"

    def results(self):
        t = self.types.strip()
        return split_top(t[1:-1]) if t.startswith("(") else [t]


class Graph:
    """A `.ge` text: its graphs as lists of lines, the root graph's node lines parsed."""

    def __init__(self, text):
        self.graphs = []  # (name, header, lines, footer)
        cur = None
        for line in text.splitlines():
            m = re.match(r'^\s*graph\s+(\S+)\s*\{', line)
            if m and cur is None:
                cur = [m.group(1), line, []]
            elif cur is not None and line.strip() == "}":
                self.graphs.append((cur[0], cur[1], cur[2], line))
                cur = None
            elif cur is not None:
                cur[2].append(line)
        if not self.graphs:
            raise ValueError("no `graph NAME {` in the text")
        self.root = []  # Node or str (returns, comments)
        for line in self.graphs[0][2]:
            m = NODE.match(line)
            self.root.append(Node(*m.groups()) if m and CALL.match(m.group(3)) else line)

    def removable(self):
        """What delta debugging may cut: root nodes (everything but inputs), named, and
        the root graph's outputs, as `@return:<i>`."""
        nodes = [n.name for n in self.root if isinstance(n, Node) and n.op != "Data"]
        rets = next((split_top(n.partition("return")[2]) for n in self.root
                     if isinstance(n, str) and n.strip().startswith("return")), [])
        return nodes + [f"@return:{i}" for i in range(len(rets))]

    def node_count(self):
        return sum(isinstance(n, Node) for n in self.root) + sum(
            1 for _, _, lines, _ in self.graphs[1:] for l in lines if NODE.match(l))

    def without(self, cut):
        """The `.ge` text with the root nodes in `cut` replaced by inputs, then pruned."""
        cut = set(cut)
        rename = {}  # "n:k" -> stub name for multi-result nodes
        nodes = []
        for n in self.root:
            if isinstance(n, Node) and n.name in cut:
                res = n.results()
                if len(res) == 1:
                    nodes.append(Node(n.indent, n.name, "Data() {index = 0}", res[0]))
                else:
                    for k, t in enumerate(res):
                        stub = f"{n.name}__r{k}"
                        rename[f"{n.name}:{k}"] = stub
                        if k == 0:
                            rename[n.name] = stub
                        nodes.append(Node(n.indent, stub, "Data() {index = 0}", t))
            else:
                nodes.append(n)
        stubs = {s.name for s in nodes if isinstance(s, Node) and s.op == "Data"} | cut

        def fix(arg):
            if arg.startswith("^"):
                return None if arg[1:] in stubs or arg[1:] in rename else arg
            return rename.get(arg, arg)

        out = []
        for n in nodes:
            if isinstance(n, Node):
                c = Node(n.indent, n.name, n.body, n.types)
                c.args = [a for a in (fix(a) for a in n.args) if a is not None]
                out.append(c)
            elif n.strip().startswith("return"):
                head, _, rets = n.partition("return")
                kept = [fix(a) or a for i, a in enumerate(split_top(rets)) if f"@return:{i}" not in cut]
                out.append(head + "return " + ", ".join(kept))
            else:
                out.append(n)
        # Unused inputs, constants and variables go (repeat: a cut can free others).
        while True:
            used = set()
            for n in out:
                args = n.args if isinstance(n, Node) else (
                    split_top(n.partition("return")[2]) if n.strip().startswith("return") else [])
                for a in args:
                    used.add(a.lstrip("^").split(":")[0])
            keep = [n for n in out if not (isinstance(n, Node) and n.op in SOURCES and n.name not in used)]
            if len(keep) == len(out):
                break
            out = keep
        index = 0
        for n in out:
            if isinstance(n, Node) and n.op == "Data":
                n.rest = re.sub(r"index = \d+", f"index = {index}", n.rest)
                index += 1
        _, header, _, footer = self.graphs[0]
        text = "\n".join([header] + [n.text() if isinstance(n, Node) else n for n in out] + [footer])
        # Subgraphs the root, or a subgraph it reaches, references by `@name`.
        refs = lambda t: set(re.findall(r"@([\w./-]+)", t))
        by_name = {g[0]: g for g in self.graphs[1:]}
        live, todo = set(), refs(text)
        while todo:
            name = todo.pop()
            if name in by_name and name not in live:
                live.add(name)
                todo |= refs("\n".join(by_name[name][2]))
        subgraphs = [g for g in self.graphs[1:] if g[0] in live]
        for name, header, glines, footer in subgraphs:
            text += "\n\n" + "\n".join([header] + glines + [footer])
        return text + "\n"


def ddmin(items, fails, budget=400):
    """The smallest subset of `items` (1-minimal within `budget` tests) for which `fails`
    holds, given that it holds for all of them. `fails` gets a list (kept items)."""
    cache = {}

    def test(subset):
        key = frozenset(subset)
        if key not in cache:
            if len(cache) >= budget:
                return False
            cache[key] = fails(list(subset))
        return cache[key]

    c, n = list(items), 2
    while len(c) >= 2:
        size = len(c) // n
        chunks = [c[i * size:(i + 1) * size] if i < n - 1 else c[i * size:] for i in range(n)]
        for chunk in chunks:
            if test(chunk):
                c, n = chunk, 2
                break
        else:
            for chunk in chunks:
                rest = [x for x in c if x not in chunk]
                if test(rest):
                    c, n = rest, max(n - 1, 2)
                    break
            else:
                if n >= len(c):
                    break
                n = min(len(c), 2 * n)
    if len(c) == 1 and test([]):
        c = []
    return c, len(cache)
