"""Each conclusion worded once (issue 75): the answer and the findings state the same sentence for the same claim
(:mod:`bench.reporting.render.markdown.conclusions`): the fastest that learns, it against the baseline, its
accuracy, the quickest to the target, what limits it, and the trade-off; the findings add their evidence around
it. Read from reports built over real and made records, as a reader reads the two sections."""

from __future__ import annotations

import re
from collections import Counter
from pathlib import Path

import pytest

from bench.records import load_records
from bench.reporting.claims import TRADEOFF
from bench.reporting.claims import claims as workload_claims
from bench.reporting.frames.keys import sections
from bench.reporting.render.markdown import conclusions
from bench.reporting.render.markdown.answer import answer_section
from bench.reporting.render.markdown.findings import findings_section
from bench.reporting.verdicts import Analysis
from tests.rows import analyzed

DATA = Path(__file__).parent / "data"
H200 = DATA / "gpu_h200_2026_11_27"


def _sentences(a: Analysis, section: int) -> dict[str, str]:
    """Each claim of one section as the one sentence that states it ('' claims left out)."""
    c = workload_claims(a, section)
    t = a.tradeoffs.get(section)
    if c.outcome == TRADEOFF and t is not None:
        return {"trade-off": conclusions.tradeoff(t.fastest, t.most_accurate)}
    win = c.winner
    if win is None:
        return {}
    said = {"winner": conclusions.fastest(win), "baseline": conclusions.against_baseline(a, c),
            "accuracy": conclusions.accuracy(win), "quickest": conclusions.quickest(c),
            "limit": conclusions.limit(c.limit) if c.limit is not None else ""}
    return {k: v for k, v in said.items() if v}


def _checked(records: list) -> Counter:
    a = analyzed(records)
    checked: Counter = Counter()
    for section in sections(a.summary):
        workload = a.summary[a.summary["section"] == section]["workload"].iloc[0]
        answer = "\n".join(answer_section(a, section))
        findings = "\n".join(findings_section(a, section))
        for name, sentence in _sentences(a, section).items():
            assert sentence in answer, (workload, name, sentence)
            assert sentence in findings, (workload, name, sentence)
            checked[name] += 1
        bullets = [line for line in findings.splitlines() if line.lstrip().startswith("- ")]
        assert not [b for b in bullets if "(n=" in b], workload  # a ratio in a sentence: one format, with words
        counted = re.findall(r"\b\d+(?:/\d+)? seeds?\b", "\n".join(bullets))  # runs counted as the answer does
        assert not counted, (workload, counted)
    return checked


@pytest.mark.parametrize("folders", [[DATA / "records"], [DATA / "quickstart_2026_12_02"],
                                     [H200 / r for r in ("r1", "r2", "r3", "b")]], ids=["golden", "quickstart", "h200"])
def test_each_conclusion_reads_the_same_in_the_answer_and_the_findings(folders: list[Path]) -> None:
    checked = _checked(load_records(folders).records)
    assert {"winner", "baseline", "accuracy", "limit"} <= set(checked), checked


def test_the_trade_off_reads_the_same_in_both() -> None:
    from tests.test_tradeoff import _sweep

    assert _checked(_sweep({32: [0.767], 128: [0.684]})) == Counter({"trade-off": 1})


def test_the_check_finds_a_claim_worded_twice(monkeypatch: pytest.MonkeyPatch) -> None:
    """The findings' own wording of the winner (as before issue 75) is caught."""
    from types import SimpleNamespace

    import bench.reporting.render.markdown.findings as findings

    reworded = SimpleNamespace(**{k: getattr(conclusions, k) for k in dir(conclusions) if not k.startswith("_")})
    reworded.fastest = lambda win: conclusions.fastest(win).replace("Fastest that learns", "Fastest configuration")
    monkeypatch.setattr(findings, "conclusions", reworded)
    with pytest.raises(AssertionError):
        _checked(load_records([DATA / "quickstart_2026_12_02"]).records)
