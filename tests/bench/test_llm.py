"""The language model's bench (bench.llm) without the model: a passkey command's union of grids, recorded in the
file's command and read back the same; and --merge, which writes a results file from pieces (what one run of a part
of the command returned) as one run of the whole command writes it, the cells no piece holds named as not run."""

from __future__ import annotations

import json
from dataclasses import replace

from bench import llm as bench
from core.llm import registry

UNION = ["--seeds", "1", "--grid", "none:2:1024,2048:0,1", "--grid", "linear,yarn-no-temperature:2,4:8192:0.5"]


def test_a_union_of_grids_is_every_cell_once_and_its_command_reads_back_the_same():
    args = bench.parse(["passkey", *UNION, "--grid", "none:2:1024:0"])  # a cell of the first grid again: run once
    cells = registry.passkey_configs(args)
    assert [c.key for c in cells] == [
        "none|1024|0|0", "none|1024|1|0", "none|2048|0|0", "none|2048|1|0",
        "linear ×2|8192|0.5|0", "linear ×4|8192|0.5|0", "yarn ×2, no temperature|8192|0.5|0", "yarn ×4, no temperature|8192|0.5|0",
    ]  # fmt: skip
    command = registry.PASSKEY.command + registry.PASSKEY.bench.options(args)
    assert registry.passkey_configs(registry.arguments(command)) == cells
    said = registry.PASSKEY.bench.left_out(args)
    assert "linear (position interpolation) ×2/4, YaRN without its temperature ×2/4 at lengths 8,192 and depths 50%" in said and "yarn" not in said


def test_merge_writes_the_pieces_as_one_run_of_the_command_and_names_the_cells_not_run(tmp_path, monkeypatch):
    pieces = tmp_path / "pieces"
    pieces.mkdir()
    args = bench.parse(["passkey", *UNION])
    cells = registry.passkey_configs(args)
    for i, cell in enumerate(reversed(cells[1:])):  # every cell but the first, written in another order
        row = {"scaling": cell.key.split("|")[0], "length": cell.length, "tokens": cell.length - 3, "depth": cell.depth, "seed": 0,
               "key": "12345", "correct": i % 2 == 0, "probability": 0.5, "answer": "12345" if i % 2 == 0 else "12344"}  # fmt: skip
        (pieces / f"pk_{i}.json").write_text(json.dumps({"config": {}, "values": {cell.key: row}, "cpu": {cell.key: 1.0 + i}, "wall": 2.0}))
    out = tmp_path / "llm_passkey_results.json"
    monkeypatch.setitem(bench.RECORDS, "passkey", replace(registry.PASSKEY, file=out))
    assert bench.main(["passkey", "--merge", str(pieces), *UNION]) == 0
    written = json.loads(out.read_text())
    assert bench.main(["passkey", "--merge", str(pieces), *UNION]) == 0  # again, over the file it wrote: its rows kept, the same file
    again = json.loads(out.read_text())
    assert again["results"] == written["results"] and again["meta"]["cpu_seconds"] == written["meta"]["cpu_seconds"]
    assert again["meta"]["total_seconds"] == written["meta"]["total_seconds"] == 7 * 2.0  # each piece's wall counted once, both times
    assert list(written["results"]) == [c.key for c in cells[1:]]  # the command's order, not the pieces'
    assert written["meta"]["not_run"] == [cells[0].key] and "Not run yet: 1 of the command's 8 runs." in written["left_out"]
    assert written["command"] == "python -m bench.llm passkey " + " ".join(UNION)
    assert written["meta"]["total_cpu_seconds"] == sum(1.0 + i for i in range(7)) and written["meta"]["total_seconds"] == 14.0
    assert written["config"]["lengths"] == [1024, 2048, 8192] and written["config"]["depths"] == [0.0, 0.5, 1.0]
    data = replace(registry.PASSKEY, file=out).load().data  # the typed read the page makes
    assert set(data.rows) == set(written["results"])


def test_merge_keeps_the_shipped_rows_of_configs_the_new_command_runs_too_and_no_other(tmp_path, monkeypatch):
    out = tmp_path / "llm_passkey_results.json"
    monkeypatch.setitem(bench.RECORDS, "passkey", replace(registry.PASSKEY, file=out))
    pieces, empty = tmp_path / "pieces", tmp_path / "empty"
    pieces.mkdir(), empty.mkdir()
    for i, cell in enumerate(registry.passkey_configs(bench.parse(["passkey", "--seeds", "1", "--grid", "none:2:1024:0,1"]))):
        row = {"scaling": "none", "length": 1024, "tokens": 1020, "depth": cell.depth, "seed": 0, "key": "1", "correct": True,
               "probability": 0.9, "answer": "1"}  # fmt: skip
        (pieces / f"pk_{i}.json").write_text(json.dumps({"config": {}, "values": {cell.key: row}, "cpu": {cell.key: 2.0}, "wall": 3.0}))
    assert bench.main(["passkey", "--merge", str(pieces), "--seeds", "1", "--grid", "none:2:1024:0,1"]) == 0
    shipped = json.loads(out.read_text())
    assert bench.main(["passkey", "--merge", str(empty), "--seeds", "1", "--grid", "none:2:1024:0,1", "--grid", "none:2:8192:0.5"]) == 0
    written = json.loads(out.read_text())
    assert written["results"] == shipped["results"] and written["meta"]["not_run"] == ["none|8192|0.5|0"]  # kept, the new cell not run yet
    assert written["meta"]["total_cpu_seconds"] == 4.0 and written["meta"]["total_seconds"] == 6.0  # the kept rows' seconds
    assert shipped["meta"]["merged_from"].startswith("2 pieces, ") and ", and 0 rows of the file before" in shipped["meta"]["merged_from"]
    assert written["meta"]["merged_from"].startswith("0 pieces, ") and ", and 2 rows of the file before" in written["meta"]["merged_from"]
    assert bench.main(["passkey", "--merge", str(empty), "--seeds", "2", "--grid", "none:2:1024:0"]) == 0  # seed 0 of it kept, no other row
    assert list(json.loads(out.read_text())["results"]) == ["none|1024|0|0"]


def test_merging_again_counts_each_rows_wall_once_over_a_file_one_whole_run_wrote(tmp_path, monkeypatch):
    out = tmp_path / "llm_passkey_results.json"
    monkeypatch.setitem(bench.RECORDS, "passkey", replace(registry.PASSKEY, file=out))
    first, second = tmp_path / "first", tmp_path / "second"
    first.mkdir(), second.mkdir()
    grid = ["--seeds", "1", "--grid", "none:2:1024:0,1"]
    cells = registry.passkey_configs(bench.parse(["passkey", *grid, "--grid", "none:2:2048:0"]))
    for i, cell in enumerate(cells):
        row = {"scaling": "none", "length": cell.length, "tokens": cell.length - 4, "depth": cell.depth, "seed": 0, "key": "1",
               "correct": True, "probability": 0.9, "answer": "1"}  # fmt: skip
        piece = {"config": {}, "values": {cell.key: row}, "cpu": {cell.key: 5.0}, "wall": 7.0}
        ((first if i < 2 else second) / f"pk_{i}.json").write_text(json.dumps(piece))
    assert bench.main(["passkey", "--merge", str(first), *grid]) == 0
    whole = json.loads(out.read_text())  # as one run of the two cells writes it: one wall for the run, none per row
    del whole["meta"]["wall_seconds"]
    whole["meta"]["total_seconds"] = 30.0
    out.write_text(json.dumps(whole))
    totals = []
    for _ in range(3):  # the third cell's piece merged in, then the same merge twice more
        assert bench.main(["passkey", "--merge", str(second), *grid, "--grid", "none:2:2048:0"]) == 0
        totals.append(json.loads(out.read_text())["meta"]["total_seconds"])
    assert totals == [30.0 + 7.0] * 3  # the run's 30 s for its two rows and the new piece's 7 s, never again
    assert json.loads(out.read_text())["meta"]["merged_from"].startswith("1 piece, ")  # a row a piece replaces is not counted as kept
