"""ms.timeline: wall, compute, comm and hidden communication per rank and in
total, on synthetic traces whose answers are computed by hand below."""

import json
import os
import subprocess
import sys

import pytest

from ms import timeline


def span(pid, category, start, end, tid=0, run=0, name="s"):
    """A complete event of `category` from `start` to `end` (microseconds)."""
    return {"name": name, "cat": category, "ph": "X", "ts": start,
            "dur": end - start, "pid": pid, "tid": tid,
            "args": {"run": run}}


def write_trace(path, events, bare=False):
    """Writes `events` as trace-event JSON (metadata events added) to
    `path`."""
    pids = sorted({event["pid"] for event in events})
    meta = [{"ph": "M", "name": "process_name", "pid": pid,
             "args": {"name": f"rank {pid}"}} for pid in pids]
    data = meta + events if bare else {"traceEvents": meta + events,
                                       "displayTimeUnit": "ms"}
    path.write_text(json.dumps(data))
    return str(path)


# Rank 0: compute [0,10] [5,15] [20,30] (a union of [0,15] [20,30]: 25 us),
# comm [8,22] on a second queue and [40,50] (24 us). They overlap in [8,15]
# and [20,22]: 9 us hidden, 9/24 = 0.375. Wall: 0 to 50.
RANK0 = [span(0, "compute", 0, 10), span(0, "compute", 5, 15),
         span(0, "compute", 20, 30), span(0, "comm", 8, 22, tid=1),
         span(0, "comm", 40, 50, tid=1, run=1)]
# Rank 1: compute [100,110], comm [105,120]: 5 us of 15 hidden (1/3); wall
# 100 to 120. Comm spans that overlap each other count once: [106,108] adds
# nothing.
RANK1 = [span(1, "compute", 100, 110), span(1, "comm", 105, 120),
         span(1, "comm", 106, 108, tid=1)]


def test_overlapping_spans_of_one_rank(tmp_path):
    result = timeline.analyze(timeline.collect(
        [write_trace(tmp_path / "t.json", RANK0)]))
    assert list(result["ranks"]) == [0]
    stats = result["ranks"][0]
    assert stats["wall_us"] == pytest.approx(50)
    assert stats["compute_us"] == pytest.approx(25)
    assert stats["comm_us"] == pytest.approx(24)
    assert stats["hidden_us"] == pytest.approx(9)
    assert stats["exposed_comm_us"] == pytest.approx(15)
    assert stats["hidden_fraction"] == pytest.approx(0.375)
    assert result["total"] == pytest.approx(stats)


def test_several_ranks_sum_in_the_total(tmp_path):
    result = timeline.analyze(timeline.collect(
        [write_trace(tmp_path / "t.json", RANK0 + RANK1)]))
    assert list(result["ranks"]) == [0, 1]
    one = result["ranks"][1]
    assert one["wall_us"] == pytest.approx(20)
    assert one["compute_us"] == pytest.approx(10)
    assert one["comm_us"] == pytest.approx(15)
    assert one["hidden_us"] == pytest.approx(5)
    assert one["hidden_fraction"] == pytest.approx(1 / 3)
    total = result["total"]
    assert total["wall_us"] == pytest.approx(70)
    assert total["compute_us"] == pytest.approx(35)
    assert total["comm_us"] == pytest.approx(39)
    assert total["hidden_us"] == pytest.approx(14)
    assert total["hidden_fraction"] == pytest.approx(14 / 39)


def test_one_file_per_rank_reads_as_one_timeline(tmp_path):
    paths = [write_trace(tmp_path / "t.rank0.json", RANK0),
             write_trace(tmp_path / "t.rank1.json", RANK1, bare=True)]
    merged = write_trace(tmp_path / "t.json", RANK0 + RANK1)
    assert timeline.analyze(timeline.collect(paths)) == \
        timeline.analyze(timeline.collect([merged]))


def test_compute_of_another_rank_hides_nothing(tmp_path):
    # Rank 0 computes while rank 1 communicates: nothing is hidden.
    events = [span(0, "compute", 0, 10), span(1, "comm", 0, 10)]
    result = timeline.analyze(timeline.collect(
        [write_trace(tmp_path / "t.json", events)]))
    assert result["ranks"][0]["hidden_fraction"] is None
    assert result["ranks"][1]["hidden_us"] == 0
    assert result["ranks"][1]["hidden_fraction"] == 0
    assert result["total"]["hidden_fraction"] == 0


def test_no_comm_is_not_applicable(tmp_path, capsys):
    # Compute [0,5] and [3,4] (inside it): 5 us; no comm.
    path = write_trace(tmp_path / "t.json",
                       [span(0, "compute", 0, 5), span(0, "compute", 3, 4)])
    result = timeline.analyze(timeline.collect([path]))
    assert result["ranks"][0]["compute_us"] == pytest.approx(5)
    assert result["ranks"][0]["comm_us"] == 0
    assert result["ranks"][0]["hidden_fraction"] is None
    assert result["total"]["hidden_fraction"] is None
    assert timeline.main([path]) == 0
    table = capsys.readouterr().out.splitlines()
    assert table[0].split() == ["rank", "wall_ms", "compute_ms", "comm_ms",
                                "hidden_ms", "hidden"]
    assert table[1].split() == ["0", "0.005", "0.005", "0.000", "0.000",
                                "n/a"]
    assert table[2].split()[0] == "total"
    assert table[2].split()[-1] == "n/a"
    assert timeline.main([path, "--json"]) == 0
    printed = json.loads(capsys.readouterr().out)
    assert printed["ranks"]["0"]["hidden_fraction"] is None
    assert printed["total"]["compute_us"] == 5


def test_table_and_json(tmp_path, capsys):
    path = write_trace(tmp_path / "t.json", RANK0 + RANK1)
    assert timeline.main([path]) == 0
    rows = [line.split() for line in capsys.readouterr().out.splitlines()]
    assert rows[1] == ["0", "0.050", "0.025", "0.024", "0.009", "37.5%"]
    assert rows[2] == ["1", "0.020", "0.010", "0.015", "0.005", "33.3%"]
    assert rows[3] == ["total", "0.070", "0.035", "0.039", "0.014", "35.9%"]
    assert timeline.main([path, "--json"]) == 0
    printed = json.loads(capsys.readouterr().out)
    assert set(printed["ranks"]) == {"0", "1"}
    assert printed["ranks"]["0"]["hidden_us"] == 9
    assert printed["total"]["hidden_fraction"] == pytest.approx(
        14 / 39, abs=1e-3)


def test_min_run_skips_earlier_runs(tmp_path):
    # Without run 0, rank 0 has only the comm span [40,50] of run 1.
    path = write_trace(tmp_path / "t.json", RANK0)
    stats = timeline.analyze(timeline.collect([path], min_run=1))["ranks"][0]
    assert stats["comm_us"] == pytest.approx(10)
    assert stats["compute_us"] == 0
    assert stats["hidden_fraction"] == 0


def test_errors(tmp_path, capsys):
    assert timeline.main([str(tmp_path / "absent.json")]) == 1
    assert "absent.json: cannot read" in capsys.readouterr().err
    junk = tmp_path / "junk.json"
    junk.write_text("{")
    assert timeline.main([str(junk)]) == 1
    assert "junk.json: not JSON" in capsys.readouterr().err
    other = tmp_path / "other.json"
    other.write_text(json.dumps({"traceEvents": 3}))
    assert timeline.main([str(other)]) == 1
    assert "expected trace-event JSON" in capsys.readouterr().err
    # An npu simulator trace has no compute or comm spans.
    npu = write_trace(tmp_path / "npu.json", [
        {"name": "dma", "ph": "X", "ts": 0, "dur": 4, "pid": 0, "tid": 1}])
    assert timeline.main([npu]) == 1
    assert "no compute or comm spans" in capsys.readouterr().err


def test_runs_as_a_module(tmp_path):
    path = write_trace(tmp_path / "t.json", RANK1)
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(sys.path))
    done = subprocess.run([sys.executable, "-m", "ms.timeline", path,
                           "--json"], env=env, capture_output=True,
                          text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["ranks"]["1"]["hidden_us"] == 5
