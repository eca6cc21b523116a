"""Results layer, parent side: run-time statistics that treat an unsolved run as censored, not missing.

A stochastic method run with a time limit either solves the board (its time is
known) or stops unsolved (its time to solve is only known to exceed what it
spent). Dropping those runs flatters a method; averaging their times as if they
were solutions does too. The figures here are the field's own:

* **ERT**, expected running time (Auger and Hansen 2005; the COCO/BBOB platform,
  IOHanalyzer): the cost of *all* runs, successful or not, divided by the number
  of successes. In seconds and in iterations; infinite with no success. It is
  the expected cost of solving with restarts of independent runs.
* **PAR-10** (penalised average runtime, the SAT competitions): the mean time
  with each unsolved run counted as 10 times the time limit. Only defined when
  the runs had a limit.
* **Censored quantiles** (the empirical run-time distribution of Hoos and
  Stützle): quartiles of time-to-solve with every unsolved run counted as
  infinitely long, so a quantile that falls on an unsolved run is reported as
  "more than the limit" instead of a number.
* Success rates carry their 95 % Wilson score interval (``wilson_interval``).

``compare_to_baseline`` says whether a variant is really faster than another:
the ratio of their ERTs with a bootstrap 95 % interval (``scipy.stats.bootstrap``,
runs resampled within each variant), and a two-sided Mann-Whitney U test
(``scipy.stats.mannwhitneyu``) on time-to-solve, with the unsolved runs of both
tied above every solved one at the smaller of the two limits (a solved run above
that limit is censored there too), so that ties and censoring are handled the
way the test's tie correction expects. The two ask different questions (is
solving with restarts cheaper? do single runs tend to finish sooner?) and can
disagree: the verdict is "faster" or "slower" where both say so, names the test
where only one could be run, and is "unclear", saying what each found, otherwise.

"Solved" above stands for whatever counts as a success (``Runs.succeeded``). The
summaries count a run that *decided* its instance, as SAT and CP competitions
score: a verified board, or a confirmed proof that none exists (``summary.py``).
"""

from __future__ import annotations

import functools
import math
import warnings
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from nqueens_plugins.core.errors import BadInput, install_hint

PAR_FACTOR = 10
SIGNIFICANCE = 0.05
BOOTSTRAP_RESAMPLES = 2000


@dataclass(frozen=True)
class Runs:
    """The runs of one variant on one board: what each cost, whether it succeeded, and the time limit.

    A success is what the caller scores as one; the summaries score a run that *decided* its
    instance (a verified board, or a confirmed proof that none exists), as SAT and CP
    competitions do.

    ``weights``, when given, says how many runs each entry stands for: a file that repeats one
    run ten million times is summarised from one entry, in flat memory (``summary.Group``). The
    figures ``summary_rows`` shows (``len``, ``successes``, ``weighted_ert``, ``par``,
    ``censored_quantile``) honour it; the rest (``ecdf``, the bootstrap, Mann-Whitney) work on
    ``expanded()`` runs, one entry a run, exactly as before."""

    seconds: np.ndarray
    iterations: np.ndarray
    succeeded: np.ndarray  # bool
    limit: float | None  # seconds; None when the runs had no time limit
    weights: np.ndarray | None = None  # runs each entry stands for (None: one each)

    @classmethod
    def of(
        cls,
        seconds: Sequence[float],
        iterations: Sequence[float],
        succeeded: Sequence[bool] | Sequence[int] | np.ndarray,
        limit: float | None,
        weights: np.ndarray | None = None,
    ) -> Runs:
        return cls(
            np.asarray(seconds, dtype=float),
            np.asarray(iterations, dtype=float),
            np.asarray(succeeded, dtype=bool),
            limit,
            None if weights is None else np.asarray(weights, dtype=np.int64),
        )

    def __len__(self) -> int:
        return len(self.seconds) if self.weights is None else int(self.weights.sum())

    @property
    def successes(self) -> int:
        """How many runs succeeded."""
        if self.weights is None:
            return int(np.count_nonzero(self.succeeded))
        return int(self.weights[self.succeeded].sum())

    def expanded(self) -> Runs:
        """One entry a run (itself when it is so already): for the figures that resample or rank runs."""
        if self.weights is None:
            return self
        repeat = functools.partial(np.repeat, repeats=self.weights)
        return Runs(repeat(self.seconds), repeat(self.iterations), repeat(self.succeeded), self.limit)


def ert(cost: np.ndarray, solved: np.ndarray) -> float:
    """Expected running time: the cost of all runs over the number of successes (inf without one)."""
    successes = int(np.count_nonzero(solved))
    return float(cost.sum()) / successes if successes else math.inf


def weighted_ert(runs: Runs, cost: np.ndarray) -> float:
    """``ert`` of runs that may stand for several each (``Runs.weights``): ``cost`` is one of their arrays."""
    if runs.weights is None:
        return ert(cost, runs.succeeded)
    successes = runs.successes
    return float(np.dot(cost, runs.weights)) / successes if successes else math.inf


def par(runs: Runs, factor: int = PAR_FACTOR) -> float | None:
    """Penalised average runtime: unsolved runs count as ``factor`` x the limit (None without a limit)."""
    if runs.limit is None or not len(runs):
        return None
    scored = np.where(runs.succeeded, runs.seconds, factor * runs.limit)
    if runs.weights is None:
        return float(scored.mean())
    return float(np.dot(scored, runs.weights)) / len(runs)


def censored_quantile(runs: Runs, q: float) -> float:
    """The q-quantile of time-to-solve, unsolved runs counted as infinitely long (inf when it falls on one).

    The empirical distribution's own quantile (the smallest time with at least
    a fraction q of the runs at or below it), so that it is always a run's time.
    """
    if not len(runs):
        return math.nan
    times = np.where(runs.succeeded, runs.seconds, np.inf)
    if runs.weights is None:
        return float(np.quantile(times, q, method="inverted_cdf"))
    order = np.argsort(times, kind="stable")  # the same rule, each entry counted as the runs it stands for
    reached = np.cumsum(runs.weights[order])
    at = min(int(np.searchsorted(reached, q * len(runs), side="left")), len(order) - 1)
    return float(times[order[at]])


def ecdf(runs: Runs) -> tuple[np.ndarray, np.ndarray]:
    """The run-length distribution: sorted solve times and the fraction of all runs solved by each."""
    runs = runs.expanded()
    times = np.sort(runs.seconds[runs.succeeded])
    return times, np.arange(1, len(times) + 1) / max(len(runs), 1)


NO_DIFFERENCE = "no significant difference"


@dataclass(frozen=True)
class BaselineComparison:
    """One variant against the baseline on one board, by two tests that ask different questions: the
    ERT ratio's interval (is solving with restarts cheaper?) and Mann-Whitney U (do its runs tend to
    decide sooner?). They can disagree; the verdict says which said what."""

    ert_ratio: float  # variant ERT / baseline ERT: below 1 is faster
    ratio_low: float | None  # bootstrap 95 % interval (None when a resample can have no success)
    ratio_high: float | None
    p_value: float | None  # Mann-Whitney U, two-sided
    significant: bool  # Mann-Whitney: p below SIGNIFICANCE
    ranks_faster: bool | None = None  # Mann-Whitney: the variant's runs rank below the baseline's (None: a tie)
    neither_decided: bool = False  # no run of either decided: nothing to compare

    def interval_says(self) -> str | None:
        """What the ERT ratio's 95 % interval says: faster (wholly below 1), slower (above), or None without one."""
        if self.ratio_low is None or self.ratio_high is None:
            return None
        if self.ratio_high < 1:
            return "faster"
        return "slower" if self.ratio_low > 1 else NO_DIFFERENCE

    def ranks_say(self) -> str | None:
        """What Mann-Whitney says at p < 0.05, in the direction the ranks lean; None with too few runs."""
        if self.p_value is None:
            return None
        if not self.significant or self.ranks_faster is None:
            return NO_DIFFERENCE
        return "faster" if self.ranks_faster else "slower"

    def verdict(self) -> str:
        """Faster, slower or no significant difference, naming the test it rests on; "unclear" when the
        ERT interval and Mann-Whitney disagree, with what each said."""
        interval, ranks = self.interval_says(), self.ranks_say()
        if self.neither_decided:
            return "neither decided any run"
        if ranks is None:
            return "too few runs"
        if interval is None:  # one of the two never decided, or too few runs decided for an interval
            return f"{ranks} (Mann-Whitney)"
        if interval == ranks:
            return f"{ranks} (both tests)"
        ert_said = "includes 1" if interval == NO_DIFFERENCE else f"says {interval}"
        ranks_said = "finds no difference" if ranks == NO_DIFFERENCE else f"says {ranks}"
        return f"unclear: ERT interval {ert_said}, Mann-Whitney {ranks_said}"


def compare_to_baseline(variant: Runs, baseline: Runs, seed: int = 0) -> BaselineComparison:
    """ERT ratio with its bootstrap interval and a censoring-aware rank test (see the module docstring)."""
    from scipy import stats  # the `report` extra

    variant, baseline = variant.expanded(), baseline.expanded()
    mine, theirs = ert(variant.seconds, variant.succeeded), ert(baseline.seconds, baseline.succeeded)
    ratio = math.nan if math.isinf(mine) and math.isinf(theirs) else mine / theirs  # 0: only the variant solves
    low = high = None
    if variant.succeeded.any() and baseline.succeeded.any() and len(variant) > 1 and len(baseline) > 1:

        def ratio_of(a: np.ndarray, b: np.ndarray, axis: int = -1) -> np.ndarray:
            # a, b: resampled run indices; ERT of each resample, inf where it holds no success
            a_ert = take_ert(variant, a, axis)
            b_ert = take_ert(baseline, b, axis)
            with np.errstate(divide="ignore", invalid="ignore"):
                return a_ert / b_ert

        interval = percentile_interval((len(variant), len(baseline)), ratio_of, seed)
        if math.isfinite(interval[0]) and math.isfinite(interval[1]):
            low, high = interval
    p_value, faster, neither = None, None, False
    if len(variant) >= 2 and len(baseline) >= 2:
        limits = [limit for limit in (variant.limit, baseline.limit) if limit is not None]
        common = min(limits) if limits else math.inf
        a = np.where(variant.succeeded & (variant.seconds <= common), variant.seconds, np.inf)
        b = np.where(baseline.succeeded & (baseline.seconds <= common), baseline.seconds, np.inf)
        if np.isinf(a).all() and np.isinf(b).all():
            p_value, neither = 1.0, True  # nobody solved: no difference to see
        else:
            test = stats.mannwhitneyu(a, b, alternative="two-sided", method="asymptotic")
            p_value = float(test.pvalue)
            middle = len(a) * len(b) / 2  # U of the variant's sample when neither leans
            faster = None if test.statistic == middle else bool(test.statistic < middle)
    significant = p_value is not None and p_value < SIGNIFICANCE
    return BaselineComparison(ratio, low, high, p_value, significant, faster, neither)


def ert_interval(runs: Runs, seed: int = 0) -> tuple[float, float] | None:
    """A bootstrap 95 % interval of the ERT in seconds (None without scipy, or with fewer than two runs or no success)."""
    try:
        import scipy  # noqa: F401 - the `report` extra; plots go without intervals when it is missing
    except ImportError:
        return None
    if len(runs) < 2 or not runs.succeeded.any():
        return None
    runs = runs.expanded()
    low, high = percentile_interval((len(runs),), lambda a, axis=-1: take_ert(runs, a, axis), seed)
    return (low, high) if math.isfinite(low) else None  # high may be inf: some resamples never solve


def percentile_interval(sizes: Sequence[int], statistic: Any, seed: int) -> tuple[float, float]:
    """A bootstrap 95 % percentile interval of ``statistic(indices..., axis)``, resampling the run
    indices of each sample on its own (``sizes``: runs per sample)."""
    from scipy import stats

    samples = tuple(np.arange(size, dtype=float) for size in sizes)
    with warnings.catch_warnings(), np.errstate(invalid="ignore", divide="ignore"):
        warnings.simplefilter("ignore")  # resamples without a success give infinite or undefined values
        result = stats.bootstrap(
            samples,
            statistic,
            n_resamples=BOOTSTRAP_RESAMPLES,
            vectorized=True,
            method="percentile",
            random_state=np.random.default_rng(seed),
        )
    return float(result.confidence_interval.low), float(result.confidence_interval.high)


def take_ert(runs: Runs, indices: np.ndarray, axis: int) -> np.ndarray:
    """ERT in seconds of the runs at ``indices`` (floats from the bootstrap), along ``axis``."""
    chosen = indices.astype(int)
    cost = runs.seconds[chosen].sum(axis=axis)
    successes = runs.succeeded[chosen].sum(axis=axis)
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(successes > 0, cost / np.maximum(successes, 1), np.inf)


def require_scipy(what: str) -> None:
    try:
        import scipy  # noqa: F401
    except ImportError:
        raise BadInput(f"{what} needs scipy: {install_hint('report')}") from None


def wilson_interval(successes: int, trials: int, z: float = 1.959964) -> tuple[float, float]:
    """The 95 % Wilson score interval for a success rate (sound at 0 and at 100 %)."""
    if trials == 0:
        return 0.0, 1.0
    p = successes / trials
    denominator = 1 + z * z / trials
    centre = (p + z * z / (2 * trials)) / denominator
    half = z * math.sqrt(p * (1 - p) / trials + z * z / (4 * trials * trials)) / denominator
    return max(0.0, centre - half), min(1.0, centre + half)
