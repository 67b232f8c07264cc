"""Prints an npu-program section (JSON) in brief: the version and a few
configuration fields, then per kernel its buffers and, per step, how many
instructions of each op it has (loop bodies counted)."""
import collections
import json
import sys


def count(instructions, counts):
    for inst in instructions:
        counts[inst["op"]] += 1
        if inst["op"] == "loop":
            count(inst["body"], counts)


program = json.load(open(sys.argv[1]))
config = program["config"]
print("version", program["version"], "cores", config["cores"], "ubBytes",
      config["ubBytes"])
for name, kernel in sorted(program["kernels"].items()):
    print(name, "args", kernel["args"], "scratch", kernel["scratch"], "steps",
          len(kernel["steps"]))
    for i, step in enumerate(kernel["steps"]):
        counts = collections.Counter()
        count(step, counts)
        print("step %d:" % i, " ".join("%s %d" % (op, n)
                                       for op, n in sorted(counts.items())))
