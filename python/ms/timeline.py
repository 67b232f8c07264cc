"""`python3 -m ms.timeline TRACE.json [more.json ...] [--json]`: how much of
the communication in a timeline was hidden under compute.

Reads Chrome trace-event JSON as `ms-run --trace` (and the runtime's
`ms_context_write_trace`) writes it on the cpu: complete ("X") events with
`cat` "compute" (kernels, copies, host steps) or "comm" (collectives), `ts`
and `dur` in microseconds, one `pid` per rank. Several files (the per-rank
files of an `mpirun` launch, say) are read as one timeline; spans of the same
pid in several files are combined. Per rank it reports:

- wall: from the first span's start to the last span's end;
- compute: the time at least one compute span runs (their union);
- comm: the time at least one comm span runs (their union);
- hidden: the time a comm span and a compute span of the same rank run at
  once (the intersection of the two unions);
- hidden fraction: hidden / comm ("n/a", or null with --json, when the rank
  did not communicate).

and the same summed over the ranks (the total's fraction is the total hidden
over the total comm). The tool needs only the standard library.
"""

import argparse
import json
import sys

CATEGORIES = ("compute", "comm")


class TimelineError(Exception):
    """A trace that cannot be read or has nothing to analyze."""


def union(intervals):
    """Returns the union of (start, end) intervals as sorted, disjoint
    intervals (empty ones dropped)."""
    merged = []
    for start, end in sorted(i for i in intervals if i[1] > i[0]):
        if merged and start <= merged[-1][1]:
            merged[-1][1] = max(merged[-1][1], end)
        else:
            merged.append([start, end])
    return [(start, end) for start, end in merged]


def length(intervals):
    """Returns the total length of sorted, disjoint intervals."""
    return sum(end - start for start, end in intervals)


def overlap(a, b):
    """Returns the length of the intersection of two lists of sorted,
    disjoint intervals."""
    total, i, j = 0.0, 0, 0
    while i < len(a) and j < len(b):
        start = max(a[i][0], b[j][0])
        end = min(a[i][1], b[j][1])
        if end > start:
            total += end - start
        if a[i][1] < b[j][1]:
            i += 1
        else:
            j += 1
    return total


def read_events(path):
    """Returns the trace events of the file at `path` (the object format with
    "traceEvents", or a bare array of events)."""
    try:
        with open(path, encoding="utf-8") as file:
            data = json.load(file)
    except OSError as error:
        raise TimelineError(f"{path}: cannot read: {error.strerror}")
    except (ValueError, UnicodeDecodeError) as error:
        raise TimelineError(f"{path}: not JSON: {error}")
    events = data.get("traceEvents") if isinstance(data, dict) else data
    if not isinstance(events, list):
        raise TimelineError(f"{path}: expected trace-event JSON (an object "
                            f"with \"traceEvents\", or an array of events)")
    return events


def collect(paths, min_run=None):
    """Returns {pid: {"compute": [...], "comm": [...]}} of the complete events
    of the categories compute and comm in the files `paths`, as (start, end)
    microseconds; with `min_run`, only the spans of runs numbered at least
    that (args.run)."""
    spans = {}
    for path in paths:
        for event in read_events(path):
            if not isinstance(event, dict) or event.get("ph") != "X":
                continue
            category = event.get("cat")
            if category not in CATEGORIES:
                continue
            if min_run is not None:
                run = (event.get("args") or {}).get("run")
                if not isinstance(run, int) or run < min_run:
                    continue
            try:
                start = float(event["ts"])
                end = start + float(event.get("dur", 0))
            except (KeyError, TypeError, ValueError):
                raise TimelineError(f"{path}: expected numeric \"ts\" and "
                                    f"\"dur\" in event {json.dumps(event)}")
            pid = event.get("pid", 0)
            lanes = spans.setdefault(pid, {c: [] for c in CATEGORIES})
            lanes[category].append((start, end))
    return spans


def fraction(hidden, comm):
    """Returns hidden / comm, or None when there was no communication."""
    return hidden / comm if comm > 0 else None


def analyze(spans):
    """Returns {"ranks": {pid: stats}, "total": stats} for the spans of
    collect(); stats are wall_us, compute_us, comm_us, hidden_us,
    exposed_comm_us (comm not hidden) and hidden_fraction (None without
    comm)."""
    ranks = {}
    for pid in sorted(spans, key=lambda p: (not isinstance(p, int), str(p))):
        compute = union(spans[pid]["compute"])
        comm = union(spans[pid]["comm"])
        every = compute + comm
        wall = (max(e for _, e in every) - min(s for s, _ in every)
                if every else 0.0)
        hidden = overlap(compute, comm)
        ranks[pid] = {
            "wall_us": wall,
            "compute_us": length(compute),
            "comm_us": length(comm),
            "hidden_us": hidden,
            "exposed_comm_us": length(comm) - hidden,
            "hidden_fraction": fraction(hidden, length(comm)),
        }
    total = {key: sum(stats[key] for stats in ranks.values())
             for key in ("wall_us", "compute_us", "comm_us", "hidden_us",
                         "exposed_comm_us")}
    total["hidden_fraction"] = fraction(total["hidden_us"], total["comm_us"])
    return {"ranks": ranks, "total": total}


def format_table(result):
    """Returns the result of analyze() as a table, times in milliseconds."""
    columns = ("wall_ms", "compute_ms", "comm_ms", "hidden_ms", "hidden")
    lines = ["%-8s" % "rank" + "".join("%12s" % c for c in columns)]

    def row(name, stats):
        share = stats["hidden_fraction"]
        cells = ["%.3f" % (stats[key] / 1000.0) for key in
                 ("wall_us", "compute_us", "comm_us", "hidden_us")]
        cells.append("n/a" if share is None else "%.1f%%" % (100.0 * share))
        return "%-8s" % name + "".join("%12s" % cell for cell in cells)

    for pid, stats in result["ranks"].items():
        lines.append(row(str(pid), stats))
    lines.append(row("total", result["total"]))
    return "\n".join(lines)


def main(argv=None):
    parser = argparse.ArgumentParser(
        prog="python3 -m ms.timeline",
        description="Reports, per rank and in total, how much of the "
                    "communication (comm spans) in a trace ran while the "
                    "same rank computed (compute spans).")
    parser.add_argument("traces", nargs="+", metavar="TRACE.json",
                        help="Chrome trace-event JSON (ms-run --trace); "
                             "several files are read as one timeline")
    parser.add_argument("--json", action="store_true",
                        help="print a JSON object instead of a table "
                             "(times in microseconds)")
    parser.add_argument("--min-run", type=int, metavar="N",
                        help="only the runs numbered N and later (args.run; "
                             "ms-run --bench numbers the warm-up runs 1-3)")
    options = parser.parse_args(argv)
    try:
        spans = collect(options.traces, options.min_run)
        if not spans:
            raise TimelineError(
                "no compute or comm spans in " + ", ".join(options.traces) +
                " (expected complete events with cat \"compute\" or \"comm\", "
                "as ms-run --trace writes on the cpu)")
    except TimelineError as error:
        print(f"ms.timeline: error: {error}", file=sys.stderr)
        return 1
    result = analyze(spans)
    if options.json:
        def rounded(stats):
            # Nanoseconds: the precision of the runtime's timestamps.
            return {key: value if value is None else round(value, 3)
                    for key, value in stats.items()}

        printable = {"ranks": {str(pid): rounded(stats) for pid, stats in
                               result["ranks"].items()},
                     "total": rounded(result["total"])}
        print(json.dumps(printable, indent=2, sort_keys=True))
    else:
        print(format_table(result))
    return 0


if __name__ == "__main__":
    sys.exit(main())
