"""Time limits the platform's clocks can hold: every seconds limit above ``MAX_SECONDS`` (and inf, NaN) is one
line of bad input, and a limit of ``MAX_SECONDS`` (twice over, as deadlines add limits up) passes every wait
the host and plugins make with it without an ``OverflowError``."""

from __future__ import annotations

import math
import multiprocessing
import os
import select
import selectors
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from typing import Any

import pytest

import nqueens_plugins as nq
from nqueens_plugins.core.limits import MAX_SECONDS, longest_wait, time_limit

FIELDS = ("timeout", "prepare_timeout", "check_timeout")
BAD = [1e10, 1e300, float("inf"), float("nan"), 10**400, MAX_SECONDS * (1 + 1e-9), int(MAX_SECONDS) + 1]
# What the headroom must cover: the longest limit, twice (a check's time on top of a run's), plus the clock.
WAITED = 2 * MAX_SECONDS + 60


def test_the_bound_is_derived_from_the_platform_with_room_to_spare() -> None:
    assert MAX_SECONDS == 1_000_000.0  # Linux: poll and epoll's C int of milliseconds, 24.8 days, halved, then 10^k
    assert 2 * MAX_SECONDS <= longest_wait() <= threading.TIMEOUT_MAX


@pytest.mark.parametrize("field", FIELDS)
@pytest.mark.parametrize("value", BAD, ids=lambda value: repr(value)[:16])
def test_a_limit_the_clocks_cannot_hold_is_one_line_of_bad_input(field: str, value: float) -> None:
    with pytest.raises(nq.BadInput) as refused:
        nq.Limits(**{field: value})  # type: ignore[arg-type]
    message = str(refused.value)
    assert message.startswith(f"{field} must be") and "\n" not in message and len(message) < 200
    if isinstance(value, int) or not math.isnan(value):  # too large: the message says what is not
        assert "at most 1,000,000 seconds (11.6 days" in message


@pytest.mark.parametrize("field", FIELDS)
def test_the_bound_itself_is_a_limit(field: str) -> None:
    assert getattr(nq.Limits(**{field: MAX_SECONDS}), field) == MAX_SECONDS  # type: ignore[arg-type]
    assert time_limit(int(MAX_SECONDS)) == MAX_SECONDS


@pytest.fixture
def ready() -> Iterator[int]:
    """A descriptor with something to read: every wait below returns at once, after converting its timeout."""
    read, write = os.pipe()
    os.write(write, b"x")
    yield read
    os.close(read)
    os.close(write)


def test_every_wait_takes_the_bound_as_a_timeout_and_as_a_deadline(ready: int) -> None:
    deadline = time.monotonic() + WAITED  # as the checker's process and a worker's handle compute theirs
    remaining = deadline - time.monotonic()
    assert select.select([ready], [], [], remaining)[0] == [ready]  # checker_process.read_line
    poller = select.poll()
    poller.register(ready, select.POLLIN)
    assert poller.poll(remaining * 1000)  # milliseconds: the tightest of them
    with selectors.DefaultSelector() as selector:  # epoll here: subprocess and asyncio go through it
        selector.register(ready, selectors.EVENT_READ)
        assert selector.select(remaining)
    sending, receiving = multiprocessing.Pipe()
    sending.send(1)
    assert receiving.poll(remaining)  # a plugin's own worker (pysat polls its pipe for budget.remaining())
    assert multiprocessing.connection.wait([receiving], remaining) == [receiving]  # the scheduler's wait
    sending.close()
    receiving.close()
    assert threading.Lock().acquire(timeout=remaining)  # an unheld lock: the timeout is checked, then taken
    previous = signal.setitimer(signal.ITIMER_VIRTUAL, remaining)  # Budget.interrupting arms ITIMER_REAL alike
    signal.setitimer(signal.ITIMER_VIRTUAL, *previous)
    done = subprocess.run([sys.executable, "-c", "pass"], capture_output=True, timeout=remaining, check=True)
    assert done.returncode == 0


def test_sleep_takes_the_bound() -> None:
    """``time.sleep`` cannot be tried without sleeping: a thread sleeps the bound; one that could not convert it
    ends at once with the error (a loaded machine can only make this pass without trying, never fail it)."""
    errors: list[BaseException] = []
    about_to = threading.Event()

    def sleep() -> None:
        about_to.set()
        try:
            time.sleep(WAITED)
        except BaseException as exc:  # noqa: BLE001 - what we look for
            errors.append(exc)

    sleeper = threading.Thread(target=sleep, daemon=True)
    sleeper.start()
    assert about_to.wait(60)
    sleeper.join(1.0)
    assert not errors and sleeper.is_alive()


@pytest.mark.parametrize(
    "flag, value",
    [
        ("--check-timeout", "1e10"),
        ("--check-timeout", "1e300"),
        ("--timeout", "1e10"),
        ("--prepare-timeout", "2000000"),
        ("--timeout", "inf"),
        ("--check-timeout", "nan"),
        ("--timeout", "1e400"),
    ],
)
def test_the_command_refuses_them_in_one_line_with_exit_status_2(run_cli: Any, flag: str, value: str) -> None:
    code, out, err = run_cli("solve", "-s", "bitset-mrv", "-n", "8", flag, value)
    assert code == 2 and out == "" and err.count("\n") == 1 and err.startswith("nqueens: error: "), err
    if value not in ("inf", "nan", "1e400"):  # those the flag's own type refuses, as it always did
        assert "at most 1,000,000 seconds" in err


def test_the_command_takes_the_bound(run_cli: Any) -> None:
    code, out, err = run_cli("solve", "-s", "bitset-mrv", "-n", "8", "--check-timeout", "1e6", "--timeout", "1e6")
    assert code == 0 and "solved, verified" in out, err
