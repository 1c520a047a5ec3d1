"""Time and cost to accuracy: price matching (exact device, unknown device, free tier, the user's override), cost
arithmetic by hand, the Pareto front, and the Cost section of a report on records merged from three machines, read
from its parsed tables."""

from __future__ import annotations

import json
import math
import re
from pathlib import Path

import pytest

from bench.measure.datasheets import CHIPS
from bench.reporting.analysis.cost import match_price, pareto_front, platform_of, price_key
from bench.reporting.build import build_report
from bench.reporting.commands import report_main
from bench.reporting.load.prices import PriceError, load_table
from tests.conftest import make_record
from tests.rows import analyzed

VCPU = 0.042246  # suites/prices/cloud.yaml: cpu-vcpu


def _words(priced, kind) -> str:
    """The report's words for a match (render words the analysis' codes)."""
    from bench.reporting.render.words import priced_as

    return priced_as({"price_basis": priced.basis, "price_key": priced.key, "price_what": priced.what,
                      "price_units": priced.units, "price_unit": priced.unit, "device_kind": kind})


@pytest.fixture(scope="module")
def table():
    return load_table()


@pytest.mark.parametrize(("kind", "accelerator", "replicas", "cpus", "usd", "label"), [
    ("tpu", "TPU v5 lite", 8, 224, 8 * 1.20, "tpu-v5e x 8 chips"),  # JAX's name; the host's vCPUs are in the chip
    ("tpu", "v5litepod-8", 8, 224, 8 * 1.20, "tpu-v5e x 8 chips"),  # TensorFlow's TPU_ACCELERATOR_TYPE
    ("tpu", "v6e-1", 1, 44, 2.70, "tpu-v6e x 1 chip"),
    ("tpu", "v4-8", 4, 240, 4 * 3.22, "tpu-v4 x 4 chips"),  # v4: one replica (megacore) per chip
    ("gpu", "Tesla T4", 1, 4, 0.58661, "gpu-t4 x 1 GPU"),  # with its n1-highmem-4 host
    ("gpu", "NVIDIA A100-SXM4-40GB", 2, 24, 2 * 3.673, "gpu-a100 x 2 GPUs"),
    ("gpu", "NVIDIA H100 80GB HBM3", 1, 26, 10.979, "gpu-h100 x 1 GPU"),  # CUDA's name of the SXM card
    ("gpu", "NVIDIA H200", 1, 16, 10.845, "gpu-h200 x 1 GPU"),  # the H200 run's (2026-11-27)
    ("cpu", "", 1, 2, 2 * VCPU, "2 vCPU (cpu-vcpu)"),  # a CPU point pays for the machine's vCPUs
    ("cpu", "", 2, 96, 96 * VCPU, "96 vCPU (cpu-vcpu)"),  # cpu_x2 on a 96-vCPU box: still the whole machine
])
def test_a_device_is_priced_by_kind_name_and_count(table, kind, accelerator, replicas, cpus, usd, label) -> None:
    priced = match_price(table, kind, accelerator, replicas, cpus)
    assert priced.usd_per_hour == pytest.approx(usd) and _words(priced, kind) == label


@pytest.mark.parametrize(("kind", "accelerator", "replicas", "label"), [
    ("tpu", "v3-8", 8, "no price (tpu-v3)"),  # no price read: no guess from another generation
    ("gpu", "NVIDIA H100 PCIe", 1, "no price (gpu-h100-pcie)"),  # why: its note, in the report's Prices used
    ("gpu", "NVIDIA H100 NVL", 1, "no price (gpu-h100-nvl)"),  # never the SXM card's price
    ("gpu", "NVIDIA B200", 1, "no price (gpu-b200)"),
    ("gpu", "NVIDIA A100-SXM4-80GB", 1, "no price (gpu-a100-80gb)"),  # not the 40 GB price
    ("gpu", "Radeon Instinct MI300X", 1, "no price (Radeon Instinct MI300X)"),
    (math.nan, "", math.nan, "no price (device unknown)"),  # a skipped point never saw its device
])
def test_an_unknown_or_unpriced_device_says_no_price(table, kind, accelerator, replicas, label) -> None:
    priced = match_price(table, kind, accelerator, replicas, 8)
    assert math.isnan(priced.usd_per_hour) and _words(priced, kind) == label


def test_a_hosted_notebook_is_priced_by_its_free_tier(table) -> None:
    assert platform_of({"KAGGLE_KERNEL_RUN_TYPE": "Interactive"}, table) == "kaggle"
    assert platform_of({"COLAB_RELEASE_TAG": "release-colab_20261101"}, table) == "colab"
    assert platform_of({"TF_CPP_MIN_LOG_LEVEL": "2"}, table) == ""
    priced = match_price(table, "tpu", "TPU v5 lite", 8, 96, platform="kaggle")
    assert priced.usd_per_hour == 0 and _words(priced, "tpu") == "kaggle free tier"
    assert "quota" in table["kaggle"].quota and table["kaggle"].source.endswith("#1198 (2026-09)")


def test_every_shipped_price_has_a_source_and_a_date(table) -> None:
    for p in table.values():
        assert p.source and p.read.startswith("2026-"), p.key
        assert p.usd_per_hour is not None or p.note, p.key  # no price only with the reason
    assert {"tpu-v4", "tpu-v5e", "tpu-v6e", "gpu-t4", "gpu-l4", "gpu-a100", "gpu-h100", "gpu-h200", "gpu-b200",
            "cpu-vcpu", "colab", "kaggle"} <= set(table)


def test_every_accelerator_bench_knows_has_its_own_price_key_that_a_user_can_set(table) -> None:
    """Each chip of the datasheet table, by every name a framework reports it by, matches its own entry
    (price_key: kind-model), never a sibling's (H100 PCIe is not the SXM card), and price.KEY=USD prices it."""
    for chip in CHIPS:
        key = price_key(chip.kind, chip.model)
        mine = load_table(overrides={key: 1.5})
        for name in chip.names:
            priced = match_price(mine, chip.kind, f"NVIDIA {name}" if chip.kind == "gpu" else name, 1, 8)
            assert priced.key == key and priced.usd_per_hour == pytest.approx(
                1.5 / chip.devices_per_chip), (chip.model, name, priced)


def test_the_user_overrides_one_price_or_brings_a_file(tmp_path) -> None:
    mine = load_table(overrides={"tpu-v5e": 0.84})
    assert mine["tpu-v5e"].usd_per_hour == 0.84 and mine["tpu-v5e"].source == "your override"
    assert match_price(mine, "tpu", "v5litepod-8", 8, 224).usd_per_hour == pytest.approx(8 * 0.84)
    f = tmp_path / "contract.yaml"
    f.write_text("prices:\n  gpu-h100:\n    kind: gpu\n    match: [H100]\n    unit: GPU\n    usd_per_hour: 2.10\n"
                 "    source: our 2027 contract\n    read: 2026-11-20\n")
    theirs = load_table(extra=f)
    assert match_price(theirs, "gpu", "NVIDIA H100 80GB HBM3", 8, 208).usd_per_hour == pytest.approx(8 * 2.10)
    assert theirs["gpu-t4"].usd_per_hour == 0.58661  # the rest stays
    with pytest.raises(PriceError, match=r"price\.tpu-v9: no such price; allowed: tpu-v2, tpu-v3, tpu-v4i, tpu-v4,"):
        load_table(overrides={"tpu-v9": 1.0})
    with pytest.raises(PriceError, match=r"price\.tpu-v5: no such price \(did you mean price\.tpu-v5p or "
                                         r"price\.tpu-v5e\?\)"):
        load_table(overrides={"tpu-v5": 1.0})
    with pytest.raises(PriceError, match=r"price\.gpu-t4: a number of USD per hour >= 0, got -1"):
        load_table(overrides={"gpu-t4": -1})
    f.write_text("prices:\n  x:\n    kind: fpga\n    usd_per_hour: 1\n")
    with pytest.raises(PriceError, match=r"x\.kind: 'fpga'; allowed: tpu, gpu, cpu"):
        load_table(extra=f)
    f.write_text("prices:\n  x:\n    kind: gpu\n    usd_per_hr: 1\n")
    with pytest.raises(PriceError, match=r"x: unknown field\(s\) usd_per_hr; allowed: kind, match"):
        load_table(extra=f)
    with pytest.raises(PriceError, match=r"prices=.*nope.yaml: no such file"):
        load_table(extra=tmp_path / "nope.yaml")


def test_the_pareto_front_keeps_what_nothing_beats_on_both() -> None:
    #            fast+dear   slow+cheap  dominated  tie-on-time  no cost
    assert pareto_front([1.0, 5.0, 6.0, 1.0, 2.0], [9.0, 1.0, 2.0, 9.5, math.nan]) == [
        True, True, False, False, False]


# --- records from three machines: a 2-vCPU laptop, a TPU v5e-8 VM, a Kaggle T4 x2 notebook ---------------------

def _record(host: str, strategy: str, kind: str, replicas: int, acc: str, cpus: int, train_s: float,
            env_vars: dict | None = None, batch: int = 128) -> dict:
    """An ok point: 40 steps of ``batch`` per epoch (5,120 examples), epoch 1 a warm-up of 3 x ``train_s``,
    validation 10 % of training; reaches the 0.85 target in epoch 3."""
    steps = 5120 // batch
    epochs = [{"epoch": e, "train_s": train_s * (3 if e == 1 else 1), "val_s": 0.1 * train_s, "steps": steps,
               "examples": steps * batch, "loss": 1.0 / e, "val_accuracy": (0.70, 0.80, 0.86, 0.88)[e - 1]}
              for e in (1, 2, 3, 4)]
    for e in epochs:
        e["epoch_s"] = e["train_s"] + e["val_s"]
    return make_record(
        run_id=f"run-{host}", point_id=f"fashion_cnn-{strategy}-b{batch}-spe1-fp32-r0", suite="cnn",
        strategy={"name": strategy, "requested": strategy, "num_replicas": replicas, "device_kind": kind},
        global_batch_size=batch, per_replica_batch_size=batch // replicas, steps_per_epoch=steps,
        target_accuracy=0.85, epochs=epochs, dataset={"name": "synthetic", "n_train": 5120, "n_val": 1024},
        env={"hostname": host, "cpu_count": cpus, "accelerator": acc or None, "env_vars": env_vars or {}})


@pytest.fixture(scope="module")
def merged(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("merged")
    recs = [_record("laptop", "cpu", "cpu", 1, "", 2, 4.0),
            _record("laptop", "cpu_x2", "cpu", 2, "", 2, 3.0),
            _record("tpu-vm", "tpu", "tpu", 8, "v5litepod-8", 224, 0.05, batch=1024),
            _record("kaggle", "gpus", "gpu", 2, "Tesla T4", 4, 0.4, {"KAGGLE_KERNEL_RUN_TYPE": "Interactive"}),
            _record("h100-box", "gpu", "gpu", 1, "NVIDIA H100 80GB HBM3", 26, 0.1),
            _record("b200-box", "gpu", "gpu", 1, "NVIDIA B200", 30, 0.05, batch=256)]
    for r in recs:
        folder = root / r["env"]["hostname"] / r["run_id"]
        folder.mkdir(parents=True, exist_ok=True)
        (folder / f"{r['point_id']}.json").write_text(json.dumps(r))
    return root


def test_cost_arithmetic_by_hand_on_merged_records(merged, tmp_path) -> None:
    text = build_report([merged], tmp_path / "out").read_text()
    rows = {line.split("|")[1].strip(): [c.strip() for c in line.split("|")[2:-1]]
            for line in text[text.index("### Cost"):].splitlines() if line.startswith("| ") and " at b" in line}
    laptop = rows["cpu at b128 spe1 float32"]
    # 2 vCPU x 0.042246 = $0.0845/h; steady epoch 4.4 s -> 4.4 x 0.084492 / 3600 = $0.000103
    assert laptop[1:5] == ["2 vCPU (cpu-vcpu)", "$0.0845", "4.40", "$0.000103"]
    # per 1M examples at the epoch's cost (training and validation, as USD/epoch): $0.000103 an epoch of 5,120
    # examples -> 4.4 / 5120 x 1e6 s x $0.084492/h = $0.0202; USD/epoch x epochs a million is the same figure
    assert laptop[5] == "$0.0202"
    # to target: epochs 1-3 train 12 + 4 + 4 = 20 s -> 20 x 0.084492 / 3600 = $0.000469
    assert laptop[6:8] == ["20.0", "$0.000469"]
    tpu = rows["tpu at b1024 spe1 float32 ◆"]  # 8 chips x $1.20 = $9.60/h; 0.25 s to target -> $0.000667
    assert tpu[1:3] == ["tpu-v5e x 8 chips", "$9.60"] and tpu[6:8] == ["0.250", "$0.000667"]
    assert rows["gpus at b128 spe1 float32 ◆"][1:3] == ["kaggle free tier", "$0"]  # free: cheapest, on the front
    h100 = rows["gpu@h100-box at b128 spe1 float32"]  # 1 GPU x $10.979; 0.11 s a steady epoch -> $0.000335
    assert h100[1:5] == ["gpu-h100 x 1 GPU", "$10.98", "0.110", "$0.000335"]
    b200 = rows["gpu@b200-box at b256 spe1 float32"]  # no price shipped: device time, a break-even
    assert b200[1] == "no price (gpu-b200)" and b200[4] == "—" and b200[3] == "0.055" and b200[6] == "0.250"
    # an epoch of 5,120 examples in 0.055 s: 0.055 / 5120 x 1e6 = 10.7 GPU-s a million; to target 0.15+0.05+0.05 s
    assert b200[5] == "10.7 GPU-s" and b200[7] == "0.250 GPU-s"
    assert b200[2] == "—; even at $0/GPU"  # the cheapest priced configuration is Kaggle's free tier
    assert "1 of 6 configurations ran on a device without a price" in text


def test_prices_used_lists_each_price_that_priced_a_row_with_its_basis_source_and_date(merged, tmp_path) -> None:
    """Read as a reader reads it (no byte-for-byte golden: rewording a sentence costs no edit here): every price the
    Cost table names is in *Prices used* with its USD per unit, basis, source and the date it was read, and the cost
    figure is drawn and linked."""
    report = build_report([merged], tmp_path / "out")
    text = report.read_text()
    cost = text[text.index("### Cost"):text.index("\n### Figures", text.index("### Cost"))]
    used = text[text.index("## Prices used"):text.index("\n## ", text.index("## Prices used") + 3)]

    def table(part: str) -> list[dict[str, str]]:
        lines = [ln for ln in part.splitlines() if ln.startswith("|")]
        head = [c.strip() for c in lines[0].strip("|").split("|")]
        return [dict(zip(head, (c.strip() for c in ln.strip("|").split("|")), strict=True)) for ln in lines[2:]]

    prices = {r["price"]: r for r in table(used)}
    keys = {re.search(r"\(([a-z0-9-]+)\)|^([a-z0-9-]+) x ", r["priced as"]).group(1) or
            re.search(r"^([a-z0-9-]+) x ", r["priced as"]).group(1)
            for r in table(cost) if r["priced as"] != "kaggle free tier"}
    assert keys and keys <= set(prices), (keys, set(prices))
    for key in keys | {"kaggle"}:
        row = prices[key]
        assert row["basis"] and row["source"] and re.fullmatch(r"20\d\d-\d\d(-\d\d)?", row["read"]), row
    assert prices["cpu-vcpu"]["USD/h per unit"] == "$0.0422" and prices["tpu-v5e"]["USD/h per unit"] == "$1.20"
    assert prices["gpu-b200"]["USD/h per unit"] == "—"  # no on-demand figure: never a guess
    (png,) = (tmp_path / "out").glob("*-cost.png")
    assert f"![cost]({png.name})" in cost and png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_the_cost_figures_money_ticks_are_as_short_as_their_values(merged) -> None:
    """The y ticks of the cost figure: dollars with no exponent and no trailing zeros ($0.0005, not $0.000500)."""
    import re

    from bench.records import load_records
    from bench.reporting.analysis.cost import priced_summary
    from bench.reporting.render.figures.drawer import priced_cost_figure

    priced = priced_summary(analyzed(load_records([merged], warn=False).records).summary, load_table())
    (ax,) = priced_cost_figure(priced, "t").axes
    fmt = ax.yaxis.get_major_formatter()
    labels = [fmt(v, i) for i, v in enumerate(ax.get_yticks())]
    assert labels[0] == "$0" and len(labels) >= 3
    assert all(re.fullmatch(r"\$[\d,]+(\.\d*[1-9])?", lab) for lab in labels), labels


def test_report_command_takes_a_price_and_refuses_an_unknown_one(merged, tmp_path, capsys) -> None:
    assert report_main([str(merged), f"out={tmp_path / 'o'}", "price.gpu-h100=2.5"]) == 0
    text = (tmp_path / "o" / "report.md").read_text()
    h100 = next(line for line in text.splitlines() if line.startswith("| gpu@h100-box at b128"))
    assert "gpu-h100 x 1 GPU" in h100 and "$2.50" in h100
    assert "| gpu-h100 | $2.50 " in text and "your override" in text  # the prices used say where it came from
    assert report_main([str(merged), f"out={tmp_path / 'p'}", "price.gpu-x=1"]) == 2
    assert "price.gpu-x: no such price; allowed:" in capsys.readouterr().err
    assert not (tmp_path / "p").exists()


def test_bench_report_in_a_notebook_takes_the_same_prices(merged, tmp_path) -> None:
    import bench

    f = tmp_path / "mine.yaml"
    f.write_text("prices:\n  gpu-t4:\n    kind: gpu\n    match: [T4]\n    unit: GPU\n    usd_per_hour: 0.11\n"
                 "    source: spot\n    read: 2026-11-23\n")
    path = bench.report([merged], out=tmp_path / "nb", show=False, price={"gpu-h100": 2.5}, prices=f)
    text = path.read_text()
    assert "| gpu-h100 | $2.50 " in text and "your override" in text
    with pytest.raises(PriceError, match=r"price\.nope: no such price"):
        bench.report([merged], out=tmp_path / "nb2", show=False, price={"nope": 1.0})


def test_a_run_takes_a_price_file_and_refuses_a_bad_one_before_it_starts(merged, tmp_path, capsys) -> None:
    """``prices=FILE`` on a run's command line: checked with the other inputs (exit 2, nothing written) and used
    by the report the run writes at its end (here: report_run over the merged records as a finished run)."""
    from bench.cli import parse_config
    from bench.config import ConfigError
    from bench.runner.session import report_run

    with pytest.raises(ConfigError, match=r"prices=.*nope\.yaml: no such file"):
        parse_config(["suite=smoke", f"prices={tmp_path / 'nope.yaml'}"])
    f = tmp_path / "mine.yaml"
    f.write_text("prices:\n  gpu-h100:\n    kind: gpu\n    match: [H100]\n    unit: GPU\n    usd_per_hour: 1.99\n"
                 "    source: our contract\n    read: 2026-11-23\n")
    cfg = parse_config(["suite=smoke", f"prices={f}", f"reports_dir={tmp_path / 'p'}", f"results_dir={tmp_path}"])
    report_run(cfg, "merged", merged / "h100-box" / "run-h100-box")
    text = (tmp_path / "p" / "merged" / "report.md").read_text()
    assert "| gpu-h100 | $1.99 " in text and "our contract" in text


def test_a_configuration_that_usually_misses_its_target_has_no_cost_to_target(table) -> None:
    """1 of 3 seeds reached the target: the median over that seed is no time to target for the configuration, so it
    is not priced to the target (nor put on a to-target Pareto front)."""
    import pandas as pd

    from bench.reporting.analysis.cost import priced_summary

    base = {"status": "ok", "device_kind": "cpu", "accelerator": "", "num_replicas": 1, "cpu_count": 2.0,
            "env_var_names": (), "epoch_s_median": 1.0, "examples_per_s": 1000.0, "time_to_target_s": 10.0}
    summary = pd.DataFrame([{**base, "reached_target": True}, {**base, "reached_target": False}])
    priced = priced_summary(summary, table)
    assert math.isfinite(priced.loc[0, "usd_to_target"]) and math.isnan(priced.loc[1, "usd_to_target"])


@pytest.mark.parametrize("records", ["gpu_h200_2026_11_27", "records"])
def test_the_fronts_labels_cover_no_marker_and_no_other_label(records) -> None:
    """Drawn as the report draws them, each Pareto-front label of the cost figure is clear of every marker and of
    the other labels (the H200's b32 cpu_x2 label ran into a jax/cpu marker; tests/data/records' sat on a cluster)."""
    import io

    from matplotlib.backends.backend_agg import FigureCanvasAgg

    from bench.records import load_records
    from bench.reporting.analysis.cost import priced_summary
    from bench.reporting.render.figures.drawer import priced_cost_figure
    from bench.reporting.render.figures.layout import save_to
    from tests.conftest import REPO

    loaded = load_records([REPO / "tests" / "data" / records], warn=False).records
    priced = priced_summary(analyzed(loaded).summary, load_table())
    checked = 0
    for (workload, dataset), rows in priced.groupby(["workload", "dataset"]):
        fig = priced_cost_figure(rows, f"{workload} {dataset}")
        if fig is None:
            continue
        save_to(fig, io.BytesIO())  # laid out and drawn: the positions below are the PNG's
        (ax,) = fig.axes
        renderer = FigureCanvasAgg(fig).get_renderer()  # at the figure's dpi, the PNG's
        boxes = [t.get_window_extent(renderer) for t in ax.texts]
        dots = [xy for c in ax.collections for xy in c.get_offset_transform().transform(c.get_offsets())]
        for i, box in enumerate(boxes):
            own = ax.transData.transform(ax.texts[i].xy)
            near = [xy for xy in dots if abs(xy[0] - own[0]) + abs(xy[1] - own[1]) > 1]
            padded = box.padded(4)  # a marker's radius, in pixels
            assert not any(padded.contains(*xy) for xy in near), (ax.texts[i].get_text(), box, near)
            assert not any(box.overlaps(b) for b in boxes[i + 1:]), ax.texts[i].get_text()
            checked += 1
    assert checked >= 2
