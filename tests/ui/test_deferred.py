"""ui.deferred.Files: a file made once per key, at most one making per session and `pool` per
process at a time, the kept files within the budget, and a making that fails leaves nothing behind."""

from __future__ import annotations

import threading
import time
from concurrent.futures import ThreadPoolExecutor

import pytest

from ui.deferred import Files


class Maker:
    """make() callables that count how many run at once, each holding on until released."""

    def __init__(self) -> None:
        self.lock, self.running, self.most, self.calls = threading.Lock(), 0, 0, []
        self.go = threading.Event()

    def __call__(self, name: str, size: int = 4):
        def make() -> bytes:
            with self.lock:
                self.running += 1
                self.most = max(self.most, self.running)
                self.calls.append(name)
            self.go.wait(10)
            with self.lock:
                self.running -= 1
            return name.encode().ljust(size, b".")

        return make


def settle(maker: Maker, running: int) -> None:
    """Wait until `running` makings have started (the threads are otherwise free to go in any order)."""
    end = time.monotonic() + 10
    while maker.running < running and time.monotonic() < end:
        time.sleep(0.01)
    time.sleep(0.05)  # any making that could also start, has


def test_presses_of_one_file_from_many_sessions_make_it_once():
    files, maker = Files(pool=2), Maker()
    with ThreadPoolExecutor(8) as pool:
        got = [pool.submit(files.get, b"k", maker("k"), f"session {i}") for i in range(8)]
        settle(maker, 1)
        maker.go.set()
        assert {g.result() for g in got} == {b"k..."}
    assert maker.calls == ["k"]


def test_a_session_makes_one_file_at_a_time_and_the_process_at_most_its_pool():
    files, maker = Files(pool=2), Maker()
    with ThreadPoolExecutor(8) as pool:
        mine = [pool.submit(files.get, f"a{i}".encode(), maker(f"a{i}"), "a") for i in range(4)]  # one session, four files
        others = [pool.submit(files.get, f"{s}".encode(), maker(s), s) for s in ("b", "c")]
        settle(maker, 2)
        assert maker.running == 2 and sum(c.startswith("a") for c in maker.calls) <= 1  # the pool is full; a's other files wait
        maker.go.set()
        assert [f.result() for f in mine + others] == [b"a0..", b"a1..", b"a2..", b"a3..", b"b...", b"c..."]
    assert maker.most == 2 and len(maker.calls) == 6


def test_the_kept_files_stay_within_the_budget_least_recently_used_dropped():
    files, maker = Files(budget=10), Maker()
    maker.go.set()
    files.get(b"x", maker("x"))
    files.get(b"y", maker("y"))
    files.get(b"x", maker("x"))  # kept: x is now the more recent
    files.get(b"z", maker("z"))  # 12 bytes held: y goes
    files.get(b"big", maker("big", 11))  # above the budget alone: made, not kept
    files.get(b"x", maker("x"))
    files.get(b"y", maker("y"))
    assert maker.calls == ["x", "y", "z", "big", "y"]


def test_a_making_that_fails_frees_its_key_and_its_session():
    files = Files()

    def broken() -> bytes:
        raise ValueError("no")

    with pytest.raises(ValueError):
        files.get(b"k", broken, "s")
    assert files.get(b"k", lambda: "text", "s") == b"text"  # the same key and session, made again (text as UTF-8)


def test_a_file_without_a_key_is_made_every_time_and_not_kept():
    files, maker = Files(), Maker()
    maker.go.set()
    assert files.get(None, maker("n"), "s") == files.get(None, maker("n"), "s") == b"n..."
    assert maker.calls == ["n", "n"]


def test_a_button_whose_key_cannot_be_read_in_full_still_gets_its_file(monkeypatch):
    from ui import deferred

    monkeypatch.setattr(deferred, "FILES", Files())
    made = []
    press = deferred.deferred(lambda: made.append(1) or "x", "csv", object())  # an object the digest cannot read
    assert press() == press() == b"x" and made == [1, 1]
    press = deferred.deferred(lambda: made.append(2) or "y", "csv", ("sinusoidal", 8))
    assert press() == press() == b"y" and made == [1, 1, 2]
