"""Checks ge-run's --trace JSON and --timeline SVG against each other (timeline.test)."""
import json, sys, xml.etree.ElementTree as ET

trace = json.load(open(sys.argv[1]))["traceEvents"]
slices = [e for e in trace if e.get("ph") == "X" and e.get("cat") != "model_execute"]
kernels = [e for e in slices if e.get("cat") == "kernel"]
named = all(e["name"] == f'{e["args"]["name"]} {e["args"]["node"]}' for e in kernels if "node" in e["args"])
print("trace: slices named by node:", "yes" if kernels and named and any("node" in e["args"] for e in kernels) else "no")
# A collective and a device copy carry their node like a kernel (geSimSetTaskName).
others = [e for e in slices if e.get("cat") in ("hccl", "memcpy")]
print("trace: hccl and copy slices named by node:",
      "yes" if any(e.get("cat") == "hccl" for e in others)
      and all("node" in e["args"] and e["name"] == f'{e["args"]["name"]} {e["args"]["node"]}' for e in others)
      else "no: " + ", ".join(e["name"] for e in others))
counters = [e for e in trace if e.get("ph") == "C"]
print(f"trace: counter events: {len(counters)}, peak {max((e['args']['bytes'] for e in counters), default=0)}")
flows = [e for e in trace if e.get("ph") == "s"]
svg = ET.parse(sys.argv[2]).getroot()  # raises on malformed XML
ns = "{http://www.w3.org/2000/svg}"
rects = [r for r in svg.iter(ns + "rect") if r.get("class") == "task"]
lines = [l for l in svg.iter(ns + "line") if l.get("class") == "event"]
print("svg: well-formed; task boxes equal trace slices:", "yes" if len(rects) == len(slices) else f"no ({len(rects)} vs {len(slices)})",
      end="; ")
print("event arrows equal flow arrows:", "yes" if len(lines) == len(flows) else f"no ({len(lines)} vs {len(flows)})")
