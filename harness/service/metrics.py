"""Numbers at GET /metrics (Prometheus text): answers by status and kind, timeouts, worker restarts, refusals."""

from __future__ import annotations

import typing
from collections.abc import Iterator

from prometheus_client import CollectorRegistry, Counter, Gauge, Histogram, disable_created_metrics, generate_latest
from prometheus_client.core import CounterMetricFamily, GaugeMetricFamily, Metric
from prometheus_client.registry import Collector

from harness.core.contract import Answer, ErrorKind
from harness.sandbox.pool import WorkerPool
from harness.service.catalog import LabCatalog

CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8"
disable_created_metrics()  # the *_created series only add noise to every scrape
DURATION_BUCKETS = (0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120)


class PoolCollector(Collector):
    """Read at scrape time from the pool itself, so no restart goes uncounted."""

    def __init__(self, pool: WorkerPool) -> None:
        self.pool = pool

    def collect(self) -> Iterator[Metric]:
        restarts = CounterMetricFamily(
            "stepeval_worker_restarts", "Evaluations that ended without an answer (timeout, crash, a limit)"
        )
        restarts.add_metric([], self.pool.restarts)
        yield restarts
        size = GaugeMetricFamily("stepeval_workers", "Evaluation processes that may run at once")
        size.add_metric([], self.pool.size)
        yield size
        shared = GaugeMetricFamily(
            "stepeval_gateway_shared",
            "What evaluations share at the gateway, by part: models the labs name, their operations and what is"
            " derived from them, endpoints, accounts with connections kept (no evaluation may change it)",
            labels=["part"],
        )
        for part, count in self.pool.gateway_shared().items():
            shared.add_metric([part], count)
        yield shared


class LabCollector(Collector):
    """The versions held of each lab, read at scrape time from the catalog (1 for the one serving, 0 for those kept
    for requests that name them)."""

    def __init__(self, catalog: LabCatalog) -> None:
        self.catalog = catalog

    def collect(self) -> Iterator[Metric]:
        held = GaugeMetricFamily(
            "stepeval_lab_version",
            "Lab versions held: 1 serves requests naming none, 0 is kept",
            labels=["lab", "version"],
        )
        for served in self.catalog.labs.values():
            for index, version in enumerate(served.versions):
                held.add_metric([version.name, version.version], 1.0 if index == 0 else 0.0)
        yield held


class Metrics:
    """One registry per service instance (tests run several in one process)."""

    def __init__(self, pool: WorkerPool, catalog: LabCatalog) -> None:
        self.registry = CollectorRegistry()
        r = self.registry
        self.answers = Counter(
            "stepeval_answers", "Answers given, by lab, status and error kind", ["lab", "status", "kind"], registry=r
        )
        self.reloads = Counter(
            "stepeval_reloads",
            "Reloads of the labs, by outcome (ok, or problems: a lab kept its version)",
            ["outcome"],
            registry=r,
        )
        self.timeouts = Counter("stepeval_timeouts", "Evaluations stopped at their timeout", registry=r)
        self.rejections = Counter(
            "stepeval_rejections", "Requests refused before any evaluation, by HTTP status", ["code"], registry=r
        )
        self.replays = Counter("stepeval_idempotent_replays", "Answers served again for a known webhook-id", registry=r)
        self.assume = Counter(
            "stepeval_assume_role", "Sandbox credentials: assumed, cached or refused", ["outcome"], registry=r
        )
        self.duration = Histogram(
            "stepeval_evaluation_seconds", "Time from arrival to answer", buckets=DURATION_BUCKETS, registry=r
        )
        self.in_flight = Gauge("stepeval_in_flight", "Evaluations admitted and not yet answered", registry=r)
        r.register(PoolCollector(pool))
        r.register(LabCollector(catalog))
        for outcome in ("ok", "problems"):
            self.reloads.labels(outcome=outcome)
        for lab in catalog.labs:
            self.expect_lab(lab)

    def expect_lab(self, lab: str) -> None:
        """Every series of `lab` shown from now on, at 0 until counted."""
        for status in ("pass", "fail", "pending"):
            self.answers.labels(lab=lab, status=status, kind="none")
        for kind in typing.get_args(ErrorKind):
            self.answers.labels(lab=lab, status="error", kind=kind)

    def answered(self, answer: Answer, seconds: float, lab: str) -> None:
        kind = answer.error.kind if answer.error else "none"
        self.answers.labels(lab=lab, status=answer.status, kind=kind).inc()
        if kind == "timeout":
            self.timeouts.inc()
        self.duration.observe(seconds)

    def render(self) -> bytes:
        return generate_latest(self.registry)
