"""core.lab.Trainers and LabRun's place in it, with fake quick runs (no torch): the cap is never
exceeded, the line is first come first served, a run leaves the line when stopped or when its
watcher goes away, an exception frees the slot, a cached configuration waits for nothing, a
visitor holds one trainer and one place in line, an address a few places and never every trainer,
and PEE_LAB_MAX_RUNS and PEE_LAB_PLACES_PER_ADDRESS set the caps."""

from __future__ import annotations

import logging
import threading
import time

import numpy as np
import pytest

from core.lab import entry, labrun
from core.lab import trainers as line
from core.lab.config import LabConfig, LabResult
from core.lab.cache import ResultCache
from core.lab.labrun import LabRun
from core.lab.trainers import Refused, Trainers, max_runs_from_env, places_from_env

WAIT = 10.0  # seconds any of these waits may take at most; each normally takes milliseconds


def config(seed: int, steps: int = 3) -> LabConfig:
    return LabConfig(scheme="none", steps=steps, seed=seed)


def result(c: LabConfig, stopped: bool = False, steps: int | None = None) -> LabResult:
    n = c.steps if steps is None else steps
    return LabResult(c, np.ones(n), {n: 1.0 for n in c.eval_lens}, {}, np.ones(1), None, 0.01, 1.0, stopped)


class FakeTrain:
    """Stands in for core.lab.entry.train: counts runs training at once, records the order they
    started in (by seed), takes `pause` seconds a step, waits at `gate` before its first step,
    raises for the seeds in `fail`."""

    def __init__(self, pause: float = 0.002, fail: tuple[int, ...] = ()) -> None:
        self.pause, self.fail = pause, fail
        self.gate = threading.Event()
        self.gate.set()
        self.lock = threading.Lock()
        self.now = self.peak = 0
        self.order: list[int] = []

    def __call__(self, c: LabConfig, on_step=None, should_stop=None) -> LabResult:
        with self.lock:
            self.now += 1
            self.peak = max(self.peak, self.now)
            self.order.append(c.seed)
        try:
            if c.seed in self.fail:
                raise RuntimeError(f"seed {c.seed} breaks")
            while not self.gate.wait(0.01):
                if should_stop is not None and should_stop():
                    return result(c, stopped=True, steps=0)
            for step in range(c.steps):
                if should_stop is not None and should_stop():
                    return result(c, stopped=True, steps=step)
                time.sleep(self.pause)
                if on_step is not None:
                    on_step(step + 1, 1.0, 100.0)
            return result(c)
        finally:
            with self.lock:
                self.now -= 1


def until(check, timeout: float = WAIT) -> bool:
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if check():
            return True
        time.sleep(0.005)
    return bool(check())


def test_the_cap_is_never_exceeded():
    slots, fake = Trainers(2), FakeTrain(pause=0.003)
    runs = [LabRun([config(10 * i + j) for j in range(2)], slots=slots, train_fn=fake).start() for i in range(8)]
    assert all(r.wait(WAIT) for r in runs)
    assert fake.peak == 2 and slots.peak == 2  # two at once, never three
    assert all(p.state == "done" for r in runs for p in r.progress) and len(fake.order) == 16
    assert slots.in_progress == 0 and slots.waiting == 0


def test_the_line_is_first_come_first_served_and_says_where_each_run_stands():
    slots, fake = Trainers(1), FakeTrain()
    held = slots.acquire()
    runs = [LabRun([config(seed)], slots=slots, train_fn=fake).start() for seed in (5, 3, 9, 1, 7)]
    assert [r.queued() for r in runs] == [(i, 1) for i in range(5)]  # places 0..4, one run training
    assert all(r.running and not r.done for r in runs) and [p.state for r in runs for p in r.progress] == ["waiting"] * 5
    time.sleep(0.05)
    assert fake.order == []  # nobody trains while the slot is held
    slots.release(held)
    assert all(r.wait(WAIT) for r in runs)
    assert fake.order == [5, 3, 9, 1, 7] and fake.peak == 1
    assert all(r.queued() is None for r in runs)


def test_stop_takes_a_waiting_run_out_of_the_line_at_once():
    slots, fake = Trainers(1), FakeTrain()
    held = slots.acquire()
    first, second, third = (LabRun([config(seed)], slots=slots, train_fn=fake).start() for seed in (1, 2, 3))
    second.stop()
    assert second.queued() is None and third.queued() == (1, 1) and slots.waiting == 2  # out at once, not at the next poll
    assert second.wait(WAIT) and second.progress[0].state == "stopped" and second.results == {}
    slots.release(held)
    assert first.wait(WAIT) and third.wait(WAIT)
    assert fake.order == [1, 3]  # the cancelled run never trained


def test_a_waiting_run_whose_watcher_goes_away_leaves_the_line():
    slots, fake = Trainers(1), FakeTrain()
    held = slots.acquire()
    there = [True]
    gone = LabRun([config(1)], slots=slots, train_fn=fake, alive=lambda: there[0], alive_every=0.01).start()
    stays = LabRun([config(2)], slots=slots, train_fn=fake, alive_every=0.01).start()
    assert gone.queued() == (0, 1) and stays.queued() == (1, 1)
    there[0] = False  # the tab closed
    assert gone.wait(WAIT) and gone.stopped and gone.progress[0].state == "stopped"
    assert stays.queued() == (0, 1)  # moved up
    slots.release(held)
    assert stays.wait(WAIT) and fake.order == [2]


def test_stopping_a_training_run_frees_its_slot_for_the_next():
    slots, fake = Trainers(1), FakeTrain()
    fake.gate.clear()  # the first run holds its slot until stopped
    first = LabRun([config(1, steps=1000)], slots=slots, train_fn=fake).start()
    nxt = LabRun([config(2)], slots=slots, train_fn=fake).start()
    assert until(lambda: first.progress[0].state == "training") and nxt.queued() == (0, 1)
    first.stop()
    assert first.wait(WAIT) and first.progress[0].state == "stopped"
    fake.gate.set()
    assert nxt.wait(WAIT) and nxt.progress[0].state == "done" and fake.peak == 1


def test_an_exception_in_a_run_frees_its_slot():
    slots, fake = Trainers(1), FakeTrain(fail=(13,))
    bad = LabRun([config(13), config(14)], slots=slots, train_fn=fake).start()
    nxt = LabRun([config(15)], slots=slots, train_fn=fake).start()
    assert bad.wait(WAIT) and nxt.wait(WAIT)
    assert [p.state for p in bad.progress] == ["failed", "done"] and "seed 13 breaks" in bad.progress[0].message
    assert nxt.progress[0].state == "done" and slots.in_progress == 0


def test_an_exception_outside_training_frees_its_slot_too():
    class BrokenCache(ResultCache):
        def put(self, result):
            raise OSError("disk full")

    slots, fake = Trainers(1), FakeTrain()
    bad = LabRun([config(21), config(22)], cache=BrokenCache(), slots=slots, train_fn=fake).start()
    nxt = LabRun([config(23)], slots=slots, train_fn=fake).start()
    assert bad.wait(WAIT) and nxt.wait(WAIT)
    assert bad.progress[1].state == "failed" and "disk full" in bad.progress[1].message  # shown, not raised
    assert nxt.progress[0].state == "done" and slots.in_progress == 0 and slots.waiting == 0


def test_a_cached_configuration_waits_for_nothing():
    cache, fake = ResultCache(), FakeTrain()
    cached = config(31)
    cache.put(result(cached))
    slots = Trainers(0)  # nobody may train: a cached result must still come at once
    run = LabRun([cached], cache=cache, slots=slots, train_fn=fake).start()
    assert run.done and not run.running and run.wait(0)  # at start(), no thread
    assert run.progress[0].state == "cached" and run.results[0] is cache.get(cached)
    assert slots.waiting == 0 and fake.order == []
    mixed = LabRun([cached, config(32)], cache=cache, slots=slots, train_fn=fake).start()
    assert mixed.progress[0].state == "cached" and mixed.results[0] is cache.get(cached)  # shown while the rest waits
    assert mixed.queued() == (0, 0) and mixed.progress[1].state == "waiting"
    mixed.stop()
    assert mixed.wait(WAIT) and mixed.progress[1].state == "stopped" and set(mixed.results) == {0}


def test_a_config_cached_while_waiting_is_taken_from_the_cache():
    cache, fake = ResultCache(), FakeTrain()
    slots = Trainers(1)
    held = slots.acquire()
    c = config(41)
    run = LabRun([c], cache=cache, slots=slots, train_fn=fake).start()
    cache.put(result(c))  # another session finished the same configuration meanwhile
    slots.release(held)
    assert run.wait(WAIT) and run.progress[0].state == "cached" and fake.order == []


def test_a_run_starts_once():
    run = LabRun([config(1)], train_fn=FakeTrain()).start()
    with pytest.raises(RuntimeError, match="starts once"):
        run.start()
    assert run.wait(WAIT)
    assert not LabRun([config(2)]).wait(0)  # never started: not finished


def test_trainers_refuse_a_negative_cap():
    with pytest.raises(ValueError, match="at least 0"):
        Trainers(-1)


@pytest.mark.parametrize(("value", "expected"), [(None, 2), ("", 2), ("3", 3), (" 1 ", 1), ("0", 2), ("-4", 2), ("two", 2), ("2.5", 2)])
def test_the_cap_comes_from_pee_lab_max_runs(value, expected, caplog):
    environ = {} if value is None else {"PEE_LAB_MAX_RUNS": value}
    with caplog.at_level(logging.WARNING, logger="core.lab.trainers"):
        assert max_runs_from_env(environ) == expected
    assert bool(caplog.records) == (value is not None and value.strip() not in ("", "3", "1"))


def test_the_process_wide_trainers_are_one_object():
    assert line.trainers() is line.trainers() and line.trainers().max_runs >= 1


@pytest.fixture
def slow_import(monkeypatch):
    """A fresh 'process' for the lab model's import: not loaded yet, and its import (torch, 10-20 s
    on a busy server) held at a gate until the test opens it; entry.train is a fake."""
    gate, error = threading.Event(), []

    def fake_import(ready, errors):
        try:
            gate.wait(WAIT)
            if error:
                errors.append(error[0])
        finally:
            ready.set()

    monkeypatch.setattr(entry, "_MODEL_READY", threading.Event())
    monkeypatch.setattr(entry, "_MODEL_LOADER", None)
    monkeypatch.setattr(entry, "_MODEL_ERROR", [])
    monkeypatch.setattr(entry, "_import_model", fake_import)
    monkeypatch.setattr(entry, "train", FakeTrain())
    yield gate, error
    gate.set()
    if entry._MODEL_LOADER is not None:
        entry._MODEL_LOADER.join(WAIT)


def test_a_run_stopped_while_torch_loads_ends_before_the_import_does(slow_import):
    gate, _ = slow_import
    slots = Trainers(1)
    run = LabRun([config(31), config(32)], slots=slots).start()
    assert until(lambda: run.progress[0].state == "loading")
    assert "torch" in run.progress[0].message
    run.stop()
    assert run.wait(WAIT), "a run waiting for torch's import must end when stopped"
    assert [p.state for p in run.progress] == ["stopped", "stopped"]
    assert not entry._MODEL_READY.is_set() and slots.in_progress == 0  # the import still going, the slot already free
    gate.set()
    assert entry.warm_model().wait(WAIT) and entry.model_loaded()


def test_a_closed_tab_ends_a_run_waiting_for_torch_too(slow_import):
    alive = threading.Event()
    alive.set()
    run = LabRun([config(33)], slots=Trainers(1), alive=alive.is_set, alive_every=0.05).start()
    assert until(lambda: run.progress[0].state == "loading")
    alive.clear()
    assert run.wait(WAIT) and run.progress[0].state == "stopped" and not entry._MODEL_READY.is_set()


def test_runs_train_once_torch_has_loaded_and_the_import_happens_once(slow_import, monkeypatch):
    gate, _ = slow_import
    calls = []
    fake_import = entry._import_model
    monkeypatch.setattr(entry, "_import_model", lambda *args: (calls.append(1), fake_import(*args)))
    first = LabRun([config(34)], slots=Trainers(2)).start()
    second = LabRun([config(35)], slots=Trainers(2)).start()
    assert until(lambda: first.progress[0].state == "loading" and second.progress[0].state == "loading")
    gate.set()
    assert first.wait(WAIT) and second.wait(WAIT)
    assert [first.progress[0].state, second.progress[0].state] == ["done", "done"] and first.progress[0].message == ""
    assert len(calls) == 1 and entry.warm_model() is entry._MODEL_READY


def test_a_failed_import_is_shown_as_the_runs_failure(slow_import):
    gate, error = slow_import
    error.append(ImportError("no torch here"))
    run = LabRun([config(36)], slots=Trainers(1)).start()
    gate.set()
    assert run.wait(WAIT) and run.progress[0].state == "failed" and "no torch here" in run.progress[0].message


def test_an_import_reports_to_the_event_it_started_with(slow_import, monkeypatch):
    """The import thread is handed its event when it starts: one still running when the state is
    reset (the next test's fresh 'process') must not mark the new, unstarted import done."""
    gate, _ = slow_import
    started = entry.warm_model()
    loader = entry._MODEL_LOADER
    fresh = threading.Event()
    monkeypatch.setattr(entry, "_MODEL_READY", fresh)
    gate.set()
    loader.join(WAIT)
    assert not loader.is_alive() and started.is_set()
    assert not fresh.is_set() and not entry.model_loaded()


def test_the_real_import_reports_a_failure_to_the_list_and_event_it_was_handed(monkeypatch):
    """entry._import_model itself (not a fake): a failed import goes to the list it was handed
    and sets the event it was handed, and touches neither of the module's."""
    import sys

    monkeypatch.setitem(sys.modules, "core.lab.model", None)  # importing it now raises ImportError
    monkeypatch.setattr(entry, "_MODEL_READY", threading.Event())
    monkeypatch.setattr(entry, "_MODEL_ERROR", [])
    ready, errors = threading.Event(), []
    entry._import_model(ready, errors)
    assert ready.is_set() and len(errors) == 1 and isinstance(errors[0], ImportError)
    assert not entry._MODEL_READY.is_set() and entry._MODEL_ERROR == []


# --- fairness in a room: one trainer per visitor, a place with an estimated wait, a limit that follows the estimate ---


def test_a_visitor_holds_one_trainer_across_tabs_and_others_go_first_meanwhile():
    slots, fake = Trainers(2), FakeTrain()
    fake.gate.clear()  # every run holds its slot until the gate opens
    tab1 = LabRun([config(1)], slots=slots, train_fn=fake, visitor="ann").start()
    tab2 = LabRun([config(2)], slots=slots, train_fn=fake, visitor="ann").start()  # the same browser, another tab
    bob = LabRun([config(3)], slots=slots, train_fn=fake, visitor="bob").start()
    assert until(lambda: fake.order == [1, 3])  # bob, behind ann's second tab in line, takes the free trainer
    outlook = tab2.outlook()
    assert outlook.behind_own and outlook.place == 0 and outlook.in_progress == 2
    assert slots.peak == 2 and tab2.progress[0].state == "waiting"
    fake.gate.set()
    assert all(r.wait(WAIT) for r in (tab1, tab2, bob))
    assert fake.order == [1, 3, 2] and slots.served == ["ann", "bob", "ann"]


def test_ten_visitors_are_served_in_turn_whatever_their_tabs_do():
    slots, fake = Trainers(2), FakeTrain(pause=0.001)
    held = [slots.acquire(visitor="x"), slots.acquire(visitor="y")]
    runs = [LabRun([config(100 + i)], slots=slots, train_fn=fake, visitor=f"v{i}").start() for i in range(10)]
    extra = LabRun([config(200)], slots=slots, train_fn=fake, visitor="v0").start()  # v0 presses again in a second tab
    assert [r.queued()[0] for r in runs] == list(range(10))
    assert extra.done and extra.queued() is None and "one place in line per visitor" in extra.progress[0].message  # one place each
    for ticket in held:
        slots.release(ticket)
    assert all(r.wait(WAIT) for r in runs)
    assert fake.order == [100 + i for i in range(10)] and slots.peak == 2
    assert slots.served[2:] == [f"v{i}" for i in range(10)]


def test_the_estimated_wait_adds_up_the_runs_ahead_and_what_is_left_of_those_training():
    slots = Trainers(2)
    now = time.monotonic()
    a, b = slots.join("a", seconds=100, cap=300), slots.join("b", seconds=40, cap=120)
    assert slots.wait_turn(a) and slots.wait_turn(b)
    a.started = b.started = now - 10  # trained 10 s each: 90 and 30 s left
    waiting = [slots.join(v, seconds=s, cap=3 * s) for v, s in (("c", 50), ("d", 20), ("a", 10), ("e", 5))]
    seen = [slots.outlook(t) for t in waiting]
    # c takes b's trainer when it frees (30 s) and ends at 80 s; a's second run waits for a's first (90 s), so d
    # takes c's trainer at 80 s; a's second run then a's own trainer at 90 s, and e the first to free after that (100 s)
    assert [round(o.wait_s) for o in seen] == [30, 80, 90, 100] and [o.place for o in seen] == [0, 1, 2, 3]
    assert [o.behind_own for o in seen] == [False, False, True, False] and all(o.in_progress == 2 for o in seen)
    assert [round(o.at_most_s) for o in seen] == [110, 260, 290, 320]  # every run ahead taking its whole limit
    assert slots.outlook(a) is None  # not waiting


def test_the_waits_follow_how_this_servers_runs_compare_with_their_estimates():
    slots = Trainers(1)
    assert slots.pace == 1.0
    for pace in (2.0, 2.2, 1.8):
        slots.release(slots.acquire(), pace)
    assert slots.pace == 2.0
    busy = slots.join("a", seconds=10)
    assert slots.wait_turn(busy)
    waiting = slots.join("b", seconds=10)
    assert 19 < slots.outlook(waiting).wait_s <= 20  # 10 s estimated, twice as slow here
    slots.release(busy, pace=float("nan"))  # a run with no pace leaves the others alone
    assert slots.pace == 2.0


def test_a_runs_time_limit_follows_its_estimate():
    fake = FakeTrain()
    fake.gate.clear()
    run = LabRun([config(51), config(52)], train_fn=fake, estimate=lambda c: 0.02, wall_seconds=900).start()
    assert run.cap == labrun.CAP_FLOOR_S  # 3 x 0.04 s is under the floor
    run.stop()
    assert run.wait(WAIT)
    big = LabRun([config(53)], estimate=lambda c: 100.0, wall_seconds=900, train_fn=fake)
    assert big.start().cap == 300.0 and big.estimated_s == 100.0
    big.stop()
    huge = LabRun([config(54)], estimate=lambda c: 500.0, wall_seconds=900, train_fn=fake).start()
    assert huge.cap == 900.0  # never past the page's own limit
    huge.stop()
    fake.gate.set()
    assert big.wait(WAIT) and huge.wait(WAIT)


def test_a_run_past_its_estimated_limit_is_stopped_and_says_so(monkeypatch):
    monkeypatch.setattr(labrun, "CAP_FLOOR_S", 0.05)
    fake = FakeTrain(pause=0.01)
    run = LabRun([config(61, steps=10_000), config(62)], train_fn=fake, estimate=lambda c: 0.02, slots=Trainers(1)).start()
    assert run.cap == pytest.approx(0.12) and run.wait(WAIT) and run.timed_out
    assert run.progress[0].state == "stopped" and "this run's time limit of 0 s (3 × its estimated 0 s)" in run.progress[0].message
    assert run.progress[1].state == "stopped" and run.progress[1].message.startswith("not started")


def test_a_run_stopped_at_its_limit_tells_the_server_its_pace_from_the_steps_it_got_through(monkeypatch):
    """Ended by its time limit, a run has taken at least CAP_FACTOR times the estimate of the work it
    did (the limit is CAP_FACTOR x its whole estimate, and it did only part): its pace is at least
    that, where a run stopped by hand gives none."""
    monkeypatch.setattr(labrun, "CAP_FLOOR_S", 0.001)
    slots, fake = Trainers(1), FakeTrain(pause=0.01)
    run = LabRun([config(71, steps=1000)], train_fn=fake, estimate=lambda c: 0.05, slots=slots).start()
    assert run.cap == pytest.approx(0.15) and run.wait(WAIT) and run.timed_out
    assert 0 < run.progress[0].step < 1000
    assert slots.pace >= labrun.CAP_FACTOR  # measured >= 0.15 s for at most 0.05 s x (steps done / 1000) estimated
    by_hand = Trainers(1)
    stopped = LabRun([config(72, steps=1000)], train_fn=fake, estimate=lambda c: 0.05, slots=by_hand).start()
    assert until(lambda: stopped.progress[0].step > 0)
    stopped.stop()
    assert stopped.wait(WAIT) and not stopped.timed_out and by_hand.pace == 1.0  # nothing learnt


def test_the_time_limit_follows_the_servers_pace_when_slower_than_estimated():
    slots = Trainers(1)
    for pace in (4.0, 4.0, 4.0):
        slots.release(slots.acquire(), pace)
    fake = FakeTrain()
    fake.gate.clear()
    run = LabRun([config(81)], estimate=lambda c: 10.0, wall_seconds=900, slots=slots, train_fn=fake).start()
    assert run.pace == 4.0 and run.cap == 120.0  # 3 x 10 s x 4
    run.stop()
    quick = Trainers(1)
    for pace in (0.5, 0.5, 0.5):
        quick.release(quick.acquire(), pace)
    fast = LabRun([config(82)], estimate=lambda c: 10.0, wall_seconds=900, slots=quick, train_fn=fake).start()
    assert fast.cap == 30.0  # a fast server never cuts the limit below 3 x the estimate
    fast.stop()
    fake.gate.set()
    assert run.wait(WAIT) and fast.wait(WAIT)


def test_a_waiting_run_takes_the_pace_learnt_while_it_waited():
    slots, fake = Trainers(1), FakeTrain()
    held = slots.acquire(visitor="x")
    fake.gate.clear()
    run = LabRun([config(91)], estimate=lambda c: 20.0, wall_seconds=900, slots=slots, train_fn=fake, visitor="y").start()
    assert run.cap == 60.0 and run.pace == 1.0
    slots.release(held, pace=2.5)  # the run ahead turned out 2.5 times slower than estimated
    assert until(lambda: run.progress[0].state == "training")
    assert run.cap == 150.0 and run.pace == 2.5
    run._deadline = 0.0  # as if the 150 s had passed
    fake.gate.set()
    assert run.wait(WAIT) and run.timed_out
    assert "this run's time limit of 150 s (3 × its estimated 20 s × 2.5, as much slower as this server's recent runs were)" in run.progress[0].message


# --- one address, however many visitors it claims to be: a few places, never every trainer ---


def test_forged_visitors_from_one_address_hold_two_places_and_one_trainer():
    # 100 sessions from one address, each with a cookie of its own (forged, or none: each a visitor of its own)
    slots = Trainers(2)
    held, refused = [], []
    for i in range(100):
        try:
            held.append(slots.join(f"forged-{i}", seconds=60, cap=180, address="203.0.113.9"))
        except Refused as refusal:
            refused.append(str(refusal))
    assert len(held) == 2 and len(refused) == 98 and "Your network address already has 2 runs training or waiting here" in refused[0]
    assert slots.wait_turn(held[0], every=0.01)
    polls = iter(range(5))
    assert not slots.wait_turn(held[1], should_stop=lambda: next(polls, None) is None, every=0.01)
    assert slots.in_progress == 1  # the second forged run waited 5 polls with a trainer free (its address holds all it may), then left
    real = slots.join("ann", seconds=5, cap=15, address="198.51.100.7")
    assert slots.wait_turn(real, should_stop=lambda: False, every=0.01)  # a real visitor elsewhere takes the free trainer at once
    assert slots.in_progress == 2 and slots.served == ["forged-0", "ann"]


def test_visitors_without_a_name_are_held_to_their_address_too():
    slots = Trainers(3, places_per_address=3)
    tickets = [slots.join(None, address="203.0.113.9") for _ in range(3)]
    with pytest.raises(Refused, match="already has 3 runs"):
        slots.join(None, address="203.0.113.9")
    assert slots.runs_per_address == 2  # one fewer than the trainers
    assert slots.wait_turn(tickets[0], every=0.01) and slots.wait_turn(tickets[1], every=0.01)
    assert not slots.wait_turn(tickets[2], should_stop=lambda: True)  # the third trainer stays free for somebody else
    slots.join(None, address="203.0.113.9")  # its place freed: it may join again
    with pytest.raises(Refused):
        slots.join(None, address="203.0.113.9")


def test_a_visitor_has_one_trainer_and_one_place_in_line():
    slots = Trainers(2)
    first = slots.join("ann", address="198.51.100.7")
    assert slots.wait_turn(first, every=0.01)
    slots.join("ann", address="198.51.100.7")  # a second tab waits behind the first
    with pytest.raises(Refused, match="one place in line per visitor"):
        slots.join("ann", address="192.0.2.1")  # a third, from anywhere
    assert slots.waiting == 1


def test_the_wait_shown_counts_the_trainers_an_address_may_hold():
    slots = Trainers(2)
    mine = slots.join("x", seconds=100, cap=300, address="203.0.113.9")
    assert slots.wait_turn(mine, every=0.01)
    mine.started = time.monotonic()
    second = slots.join("y", seconds=10, cap=30, address="203.0.113.9")  # its address holds its one trainer
    other = slots.join("ann", seconds=10, cap=30, address="198.51.100.7")
    ahead, behind = slots.outlook(second), slots.outlook(other)
    assert behind.place == 0 and behind.wait_s == pytest.approx(0, abs=0.5)  # takes the free trainer first
    assert ahead.place == 1 and ahead.wait_s == pytest.approx(100, abs=0.5) and not ahead.behind_own  # only when x's run ends


def test_one_trainer_a_process_is_one_an_address_may_hold():
    # with one trainer there is no fewer to keep: the address may hold it (the image runs one process per core, each with its own)
    assert Trainers(1).runs_per_address == 1 and Trainers(4, places_per_address=2).runs_per_address == 2
    with pytest.raises(ValueError, match="places_per_address must be a whole number of at least 1"):
        Trainers(2, places_per_address=0)


@pytest.mark.parametrize(("value", "expected"), [(None, 2), ("5", 5), ("0", 2), ("x", 2)])
def test_the_places_per_address_come_from_the_environment(value, expected):
    assert places_from_env({} if value is None else {"PEE_LAB_PLACES_PER_ADDRESS": value}) == expected


def test_a_refused_run_says_why_on_every_scheme_and_holds_nothing():
    slots, fake = Trainers(2, places_per_address=1), FakeTrain()
    fake.gate.clear()
    first = LabRun([config(300)], slots=slots, train_fn=fake, visitor="a", address="203.0.113.9").start()
    second = LabRun([config(301), config(302)], slots=slots, train_fn=fake, visitor="b", address="203.0.113.9").start()
    assert second.done and [p.state for p in second.progress] == ["failed", "failed"]
    assert second.progress[0].message == "Your network address already has 1 run training or waiting here, the most one address may have, " + (
        "so that everybody gets a turn. Press Train again once it has ended."
    )
    fake.gate.set()
    assert first.wait(WAIT) and fake.order == [300] and slots.in_progress == 0 and slots.waiting == 0


# --- processes sharing a machine (the image: one per core, one trainer each) share an address's limit ---


def test_an_address_holds_one_trainer_across_processes(tmp_path):
    # two processes' trainers, one trainer each, sharing the lock folder as the image's processes do
    a, b = Trainers(1, locks=line.AddressLocks(tmp_path)), Trainers(1, locks=line.AddressLocks(tmp_path))
    mine = a.join("route-a", address="203.0.113.9")
    assert a.wait_turn(mine, every=0.01)
    polls = iter(range(5))
    other_process = b.join("route-b", address="203.0.113.9")  # another routing cookie, to reach the other process
    assert not b.wait_turn(other_process, should_stop=lambda: next(polls, None) is None, every=0.01)
    assert b.in_progress == 0  # its trainer stayed free five polls: the address holds all it may in the other process
    real = b.join("ann", address="198.51.100.7")
    assert b.wait_turn(real, every=0.01)  # somebody else takes it at once
    a.release(mine)
    again = b.join("route-b", address="203.0.113.9")
    b.release(real)
    assert b.wait_turn(again, every=0.01)  # once the first process let it go, the address may train in the second
    b.release(again)


def test_a_lock_is_dropped_when_its_process_ends(tmp_path):
    import subprocess
    import sys

    holder = subprocess.Popen(
        [sys.executable, "-c", "import sys, time; from core.lab.trainers import AddressLocks; "
         f"assert AddressLocks({str(tmp_path)!r}).take('203.0.113.9') is not None; print('held', flush=True); time.sleep(60)"],
        stdout=subprocess.PIPE, text=True,
    )  # fmt: skip
    try:
        assert holder.stdout.readline().strip() == "held"
        locks = line.AddressLocks(tmp_path)
        assert locks.take("203.0.113.9") is None and locks.take("198.51.100.7") is not None
    finally:
        holder.kill()
        holder.wait(WAIT)
    assert locks.take("203.0.113.9") is not None  # the kernel let go of a killed process's lock


def test_the_lock_folder_comes_from_the_environment(tmp_path):
    assert line.AddressLocks.from_env({}) is None
    locks = line.AddressLocks.from_env({"PEE_LAB_LOCK_DIR": str(tmp_path / "locks"), "PEE_LAB_TRAINERS_PER_ADDRESS": "2"})
    assert locks.per_address == 2 and (tmp_path / "locks").is_dir()
    held = [locks.take("x"), locks.take("x")]
    assert None not in held and locks.take("x") is None
