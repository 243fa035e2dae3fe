"""Unit checks of tools/soak_shrink.py (soak-shrink.test), and `--inject FILE`: puts an
unordered writer/reader pair of a variable (two stream labels) into a generated graph."""
import os, re, subprocess, sys

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "tools"))
import soak_shrink  # noqa: E402

FRAGMENT = """  injected/v = Variable() : f32[64, 64]
  injected/p = MatMul(input0, input1) {_stream_label = "INJ_A"} : f32[64, 64]
  injected/a = Assign(injected/v, injected/p) {_stream_label = "INJ_A"} : f32[64, 64]
  injected/r = MatMul(injected/v, input2) {_stream_label = "INJ_B"} : f32[64, 64]
"""

if len(sys.argv) == 3 and sys.argv[1] == "--inject":
    text = open(sys.argv[2]).read()
    text = re.sub(r"(?m)^(  return )(.*)$", FRAGMENT.replace("\\", "\\\\") + r"\1\2, injected/a, injected/r", text, count=1)
    open(sys.argv[2], "w").write(text)
    sys.exit(0)

GE = subprocess.run([os.environ.get("GE_GEN", "ge-gen"), "--format", "ge", "--family", "wide-dag",
                     "--ops", "30", "--seed", "3"], capture_output=True, text=True, check=True).stdout
g = soak_shrink.Graph(GE)
removable = g.removable()
assert "dag/block0/relu_3" in removable


def fails(keep):
    """Fails while `relu_3` is still a Relu fed by `mul_1`, still a Mul."""
    text = g.without(set(removable) - set(keep))
    return bool(re.search(r"dag/block0/relu_3 = Relu\(dag/block0/mul_1\)", text)) and \
        "dag/block0/mul_1 = Mul(" in text


kept, tests = soak_shrink.ddmin(removable, fails)
print(f"ddmin: kept {sorted(kept)} of {len(removable)} in {tests} tests")

ok, renumbered = True, True
for cut in [removable[:5], removable[5:], removable]:
    t = g.without(set(cut))
    again = soak_shrink.Graph(t)  # parses
    idx = [int(m) for m in re.findall(r"= Data\(\) \{index = (\d+)\}", t.split("\n}\n")[0])]
    renumbered &= idx == list(range(len(idx)))
    ok &= again.node_count() <= g.node_count()
print(f"without: every kept graph parses; inputs renumbered: {'yes' if ok and renumbered else 'no'}")

kept, _ = soak_shrink.ddmin(["a=1", "b=2", "c=3"], lambda o: "b=2" in o)
print(f"options: kept {kept} of 3")
