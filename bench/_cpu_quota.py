"""Holding a process to a share of the CPU with a cgroup quota, as a container's CPU limit does.

A load test of two replicas on one small machine measures the machine: the replicas, PostgreSQL
and the load generator share its cores, so a second replica mostly takes CPU from the others.
Giving each replica a quota of its own (``cores`` of CPU time per period) makes it the size of a
small machine or a container with a CPU limit, with the rest of the cores left to the store and
the load generator: then what a second replica adds is what the software lets it add.

Needs root and a writable cgroup ``cpu`` controller: cgroup v1 (``/sys/fs/cgroup/cpu``) or v2
(``cpu.max``); ``CpuQuota.available()`` says whether this machine has one.
"""

from __future__ import annotations

import os
import uuid
from pathlib import Path

__all__ = ["CpuQuota"]

_V1 = Path("/sys/fs/cgroup/cpu")
_V2 = Path("/sys/fs/cgroup")
_PERIOD_US = 100_000  # the period Docker and Kubernetes use for a CPU limit


class CpuQuota:
    """A cgroup whose processes together get at most ``cores`` of CPU; ``close`` removes it
    (its processes must have ended)."""

    def __init__(self, cores: float) -> None:
        name = f"yadk-bench-{uuid.uuid4().hex[:8]}"
        quota = max(1_000, int(cores * _PERIOD_US))
        if (_V1 / "cpu.cfs_quota_us").exists():
            self.path = _V1 / name
            self.path.mkdir()
            (self.path / "cpu.cfs_period_us").write_text(str(_PERIOD_US))
            (self.path / "cpu.cfs_quota_us").write_text(str(quota))
        else:
            controllers = (_V2 / "cgroup.subtree_control").read_text().split()
            if "cpu" not in controllers:  # enabling it would change the machine's set-up
                raise OSError("the cgroup v2 cpu controller is not enabled for child groups")
            self.path = _V2 / name
            self.path.mkdir()
            (self.path / "cpu.max").write_text(f"{quota} {_PERIOD_US}")

    @staticmethod
    def available() -> str | None:
        """``None`` when quotas can be set here, else why not."""
        if os.geteuid() != 0:
            return "setting CPU quotas needs root"
        try:
            CpuQuota(0.5).close()
        except OSError as exc:
            return f"no writable cgroup cpu controller ({exc.strerror or exc})"
        return None

    def add(self, pid: int) -> None:
        (self.path / "cgroup.procs").write_text(str(pid))

    def close(self) -> None:
        try:
            self.path.rmdir()
        except OSError:
            pass  # a process still in it: left for the system to clean up
