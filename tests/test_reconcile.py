"""Reports read as a reader reads them (issue 63): built from three record sets (the H200 run, the quickstart, the
goldens' records), their tables, report.json and results.csv parsed, and every figure a reader can recompute
recomputed: a ratio from the two throughputs printed beside it, the time-to-target ratio from its two times, cost per
million examples from the cost per epoch, one value per figure across the three files. A reworded sentence costs
none of these checks an edit; a figure computed in two places that drift apart fails them."""

from __future__ import annotations

import csv
import io
import json
import re
from pathlib import Path

import pytest

from bench.reporting.build import build_report
from bench.reporting.render.text import sig

DATA = Path(__file__).parent / "data"
H200 = DATA / "gpu_h200_2026_11_27"
SETS = {"h200": [H200 / d for d in ("r1", "r2", "r3", "b")], "quickstart": [DATA / "quickstart_2026_11_28"],
        "goldens": [DATA / "records"]}
ROUNDED = 0.006  # a figure in 3 significant figures is within 0.5 % of its value (+ float slack)


@pytest.fixture(scope="module", params=sorted(SETS))
def built(request, tmp_path_factory) -> tuple[str, str, dict, list[dict[str, str]]]:
    out = tmp_path_factory.mktemp(request.param)
    text = build_report(SETS[request.param], out).read_text(encoding="utf-8")
    data = json.loads((out / "report.json").read_text(encoding="utf-8"))
    rows = list(csv.DictReader(io.StringIO((out / "results.csv").read_text(encoding="utf-8"))))
    return request.param, text, data, rows


def number(cell: str) -> float:
    """``115,309`` -> 115309.0, ``43.4x (n=1)`` -> 43.4, ``$0.0202`` -> 0.0202."""
    found = re.search(r"-?[\d,]*\.?\d+", cell.replace("$", ""))
    assert found, cell
    return float(found.group().replace(",", ""))


def tables(section: str, heading: str) -> list[list[dict[str, str]]]:
    """Every pipe table under ``### heading`` in ``section`` (one per workload), as rows of column -> cell."""
    out = []
    for part in section.split(f"\n### {heading}\n")[1:]:
        lines = [line for line in part.lstrip("\n").split("\n\n")[0].splitlines() if line.startswith("|")]
        if not lines:
            continue
        head = [c.strip() for c in lines[0].strip("|").split("|")]
        out.append([dict(zip(head, (c.strip() for c in line.strip("|").split("|")), strict=True))
                    for line in lines[2:]])
    return out


def workload_sections(text: str) -> dict[str, str]:
    """``## <workload> on <dataset>`` -> its section's text."""
    parts = re.split(r"\n## ", text)
    return {p.split("\n", 1)[0]: p for p in parts if " on " in p.split("\n", 1)[0]}


def close(a: float, b: float, tol: float) -> bool:
    return abs(a - b) <= tol * max(abs(a), abs(b))


def test_the_answer_prints_the_claims_of_report_json(built) -> None:
    """Each workload's headline: its throughput and both ratios are report.json's claims, and the two ratios of one
    line belong to one pair: the time ratio is the two times printed beside it."""
    name, text, data, rows = built
    assert answer_checked(text, data, rows) or name == "quickstart"  # the H200's and the goldens' answers compare


def answer_checked(text: str, data: dict, rows: list[dict[str, str]]) -> int:
    """:func:`test_the_answer_prints_the_claims_of_report_json`'s checks; returns how many answers it compared with
    a baseline."""
    answer = text[text.index("## The answer"):text.index("\n## ", text.index("## The answer") + 5)]
    checked = 0
    for w in data["workloads"]:
        c = w["claims"]
        title = f"**{w['workload']} on {w['dataset']}**"
        block = answer[answer.index(title):].split("\n\n")[0]
        if c["earlier_definition"]:  # a headline says what qualifies it, whatever the outcome
            assert "ecords of an earlier definition of this workload (*Not today's workload*)" in block, block
        if c["outcome"] != "winner":
            assert "- Fastest that learns:" not in block
            continue
        for flag, said in (("too_short", "epoch too short to time"), ("trending", "steady epochs still drift"),
                           ("input_bound", "input-bound"), ("earlier_definition", "earlier definition")):
            assert (flag in c["flags"]) == (said in block.split("- Read with:")[-1].split("\n")[0]), (flag, block)
        if c["accuracy_given_up_pp"] is not None:
            assert f"it ends {c['accuracy_given_up_pp']:.1f} pp below" in block
        assert f"{sig(w['examples_per_s'])} examples/s over {c['processes']} process" in block
        if c["processes"] >= 2:  # its range over processes
            assert f"({sig(c['examples_per_s_low'])}-{sig(c['examples_per_s_high'])})" in block
        vs = c["vs_baseline"]
        if vs is None or c["is_baseline"]:
            continue
        assert vs["ratio"]["ratio"] == pytest.approx(vs["of"]["examples_per_s"] / vs["vs"]["examples_per_s"])
        assert vs["of"]["configuration"] == w["fastest_that_learns"]
        assert w["vs_baseline"]["ratio"] == vs["ratio"]["ratio"]  # the answer's old field: the same figure
        line = next(line for line in block.splitlines() if line.startswith("- Against the best"))
        said = re.search(r"\*\*([\d.,]+)x the throughput(?:, ([\d.,]+)x (sooner|later) to the target [\d.]+)?\*\*",
                         line)
        assert said and said.group(1) == sig(vs["ratio"]["ratio"]), line
        if said.group(2):
            mine, theirs = (float(t) for t in re.search(r"; ([\d.]+) s vs ([\d.]+) s of training", line).groups())
            assert mine == pytest.approx(vs["of"]["time_to_target_s"], rel=ROUNDED)
            assert theirs == pytest.approx(vs["vs"]["time_to_target_s"], rel=ROUNDED)
            told = float(said.group(2))
            assert close(told, theirs / mine if said.group(3) == "sooner" else mine / theirs, 3 * ROUNDED), line
            assert close(told, vs["sooner"] if said.group(3) == "sooner" else 1 / vs["sooner"], ROUNDED)
        checked += 1
    return checked


def test_next_is_the_runner_up_strategys_best(built) -> None:
    """"Next" is the best configuration that learns of the fastest strategy other than the winner's and the
    baseline's, and its ratio is the two throughputs'."""
    assert runner_up_checked(*built[1:])


def runner_up_checked(text: str, data: dict, rows: list[dict[str, str]]) -> int:
    """:func:`test_next_is_the_runner_up_strategys_best`'s checks; returns how many it checked."""
    seen = 0
    for w in data["workloads"]:
        up = (w["claims"] or {}).get("runner_up")
        if up is None:
            continue
        learns = [c for c in data["configurations"] if c["workload"] == w["workload"]
                  and c["dataset"] == w["dataset"] and c["learns"] and c["examples_per_s"]["value"]]
        base = {data["baseline"], f"{w['fastest']['backend']}/{data['baseline']}"}
        others = [c for c in learns if c["strategy"] != w["fastest"]["strategy"]
                  and c["strategy"].split("@")[0] not in base]
        top = max(others, key=lambda c: c["examples_per_s"]["value"])
        assert up["of"]["examples_per_s"] == pytest.approx(top["examples_per_s"]["value"])
        assert up["vs"]["configuration"] == w["fastest_that_learns"]
        assert up["ratio"]["ratio"] == pytest.approx(up["of"]["examples_per_s"] / up["vs"]["examples_per_s"])
        seen += 1
    return seen


def test_best_per_strategy_ratios_are_the_throughputs_beside_them(built) -> None:
    """The best-per-strategy table's ratio is that row's examples/s over the baseline row's, both printed in it."""
    assert best_checked(*built[1:]) or built[0] == "quickstart"


def best_checked(text: str, data: dict, rows: list[dict[str, str]]) -> int:
    """:func:`test_best_per_strategy_ratios_are_the_throughputs_beside_them`'s checks; how many ratios it checked."""
    baseline = data["baseline"]
    seen = 0
    for section in workload_sections(text).values():
        for table in tables(section, "Best configuration per strategy"):
            base = {r["strategy"]: r for r in table if r[f"vs the best {baseline}"] == "baseline"}
            for r in table:
                cell = r[f"vs the best {baseline}"]
                if base and re.match(r"~?[\d.]+x", cell):  # against the one baseline row, or the one it names
                    vs = base[cell.rsplit(" vs ", 1)[1]] if len(base) > 1 else next(iter(base.values()))
                    want = number(r["examples/s"]) / number(vs["examples/s"])
                    assert close(number(cell.lstrip("~")), want, ROUNDED), (r, vs)
                    seen += 1
    return seen


def test_results_md_csv_and_json_print_one_value_per_figure(built) -> None:
    """Per configuration: examples/s, the same-settings speedup, s/epoch and the time to the target are one value in
    report.md's results table, results.csv and report.json; examples/s is what its s/epoch implies for one process."""
    figures_checked(*built[1:])


def figures_checked(text: str, data: dict, rows: list[dict[str, str]]) -> int:
    """:func:`test_results_md_csv_and_json_print_one_value_per_figure`'s checks; how many rows it checked."""
    seen = 0
    configs = {(c["workload"], c["dataset"], c["strategy"], c["global_batch_size"], c["steps_per_execution"],
                c["precision"]): c for c in data["configurations"]}
    for r in rows:
        if r["status"] != "ok" or not r["examples_per_s"]:
            continue
        c = configs[(r["workload"], r["dataset"], r["strategy"], int(r["global_batch_size"]),
                     int(r["steps_per_execution"]), r["precision"])]
        same = {"rel": 1e-5}  # results.csv writes 6 significant figures
        assert float(r["examples_per_s"]) == pytest.approx(c["examples_per_s"]["value"], **same)
        assert float(r["train_s_median"]) == pytest.approx(c["train_s"]["value"], **same)
        assert float(r["epoch_s_median"]) == pytest.approx(c["epoch_s"]["value"], **same)
        if c["speedup"] is not None:
            assert float(r["speedup"]) == pytest.approx(c["speedup"]["ratio"], **same)
        if c["target"] and c["target"]["seconds_median"] is not None and c["val_accuracy"]["seeds"] == 1:
            # a time to the target sums whole epochs' training seconds, epoch 1's warm-up included (one training run)
            assert c["target"]["seconds_median"] >= float(r["warmup_overhead_s"]) + float(r["train_s_median"]) - 1e-3
        if c["examples_per_s"]["n"] == 1 and c["train_s"]["n"] == 1:  # one process: rate x s/epoch = the epoch
            epoch_examples = float(r["examples_per_s"]) * float(r["train_s_median"])
            steps = epoch_examples / int(r["global_batch_size"])
            assert steps == pytest.approx(round(steps), rel=1e-4), r
        seen += 1
    printed = {f"{sig(float(r['speedup']))}x" for r in rows if r["speedup"]}  # the csv's, in 3 significant figures
    for section in workload_sections(text).values():
        for table in tables(section, "Results"):
            for row in table:
                cell = next((v for k, v in row.items() if k.startswith("same-settings speedup vs")), "")
                if re.match(r"~?[\d.]+x", cell):
                    assert cell.lstrip("~").split(" ")[0] in printed, cell
    return seen


def test_cost_per_million_examples_is_cost_per_epoch_times_epochs(built) -> None:
    """USD per 1M examples = USD/epoch x epochs per million training examples (the epoch's examples: its steps x
    batch, n_train from the section's title, less the remainder a batch drops)."""
    assert cost_checked(*built[1:]) or built[0] == "goldens"


def cost_checked(text: str, data: dict, rows: list[dict[str, str]]) -> int:
    """:func:`test_cost_per_million_examples_is_cost_per_epoch_times_epochs`'s checks; how many rows it checked."""
    seen = 0
    for title, section in workload_sections(text).items():
        n_train = re.search(r"n_train=(\d+)", title)
        for table in tables(section, "Cost"):
            for r in table:
                if not (n_train and r["USD/epoch"].startswith("$") and r["USD per 1M examples"].startswith("$")):
                    continue
                batch = int(re.search(r" at b(\d+) ", r["configuration"]).group(1))
                per_epoch = int(n_train.group(1)) // batch * batch
                per_million = number(r["USD/epoch"]) * 1e6 / per_epoch
                assert close(number(r["USD per 1M examples"]), per_million, 3 * ROUNDED), r
                seen += 1
    return seen


def test_no_figure_with_more_than_three_significant_figures_in_prose_and_no_history(built) -> None:
    """Ratios in 3 significant figures everywhere; the answer's throughputs too; no date of bench's history."""
    assert precision_checked(*built[1:])


def precision_checked(text: str, data: dict, rows: list[dict[str, str]]) -> int:
    """:func:`test_no_figure_with_more_than_three_significant_figures_in_prose_and_no_history`'s checks; how many
    ratios it read."""
    ratios = re.findall(r"(?<![\w.])(\d+\.\d+)x", text)
    assert all(len(m.replace(".", "").lstrip("0")) <= 3 for m in ratios), ratios
    answer = text[text.index("## The answer"):text.index("## Environment")]
    assert all(len(m.replace(",", "").rstrip("0")) <= 3 for m in re.findall(r"([\d,]{4,}) examples/s", answer))
    assert re.search(r"(since|before|until) 20\d\d-\d\d-\d\d", text) is None
    return len(ratios)


CHECKS = (answer_checked, runner_up_checked, best_checked, figures_checked, cost_checked, precision_checked)
