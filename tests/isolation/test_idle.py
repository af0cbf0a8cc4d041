"""Whether spares rehearse their job: only when the machine had CPU to spare since the last reading."""

from __future__ import annotations

from pathlib import Path

import pytest

from harness.isolation import idle
from harness.isolation.idle import IdleCpu


def _stat(path: Path, idle_jiffies: int, busy_jiffies: int) -> None:
    # user nice system idle iowait irq softirq steal
    path.write_text(f"cpu  {busy_jiffies} 0 0 {idle_jiffies} 0 0 0 0 0 0\ncpu0 1 2 3 4\n")


def test_spares_rehearse_while_cpus_idle_and_not_once_they_are_busy(tmp_path: Path, monkeypatch) -> None:
    clock = [100.0]
    monkeypatch.setattr(idle.time, "monotonic", lambda: clock[0])
    stat = tmp_path / "stat"
    _stat(stat, idle_jiffies=1000, busy_jiffies=1000)
    cpu = IdleCpu(str(stat))
    clock[0] += 1
    _stat(stat, idle_jiffies=1150, busy_jiffies=1050)  # 75% idle since
    assert cpu.to_spare()
    clock[0] += 1
    _stat(stat, idle_jiffies=1160, busy_jiffies=1240)  # 5% idle since
    assert not cpu.to_spare()
    _stat(stat, idle_jiffies=2000, busy_jiffies=1240)  # read again within the window: the last verdict holds
    clock[0] += idle.WINDOW_S / 2
    assert not cpu.to_spare()


@pytest.mark.parametrize("content", ["", "cpu  x y\n"])
def test_an_unreadable_stat_lets_spares_rehearse(tmp_path: Path, content: str) -> None:
    stat = tmp_path / "stat"
    stat.write_text(content)
    assert IdleCpu(str(stat)).to_spare()
    assert IdleCpu(str(tmp_path / "missing")).to_spare()
