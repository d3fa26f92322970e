"""Suite-wide options: ``--fuzz-long`` runs the property-based tests with many more examples.

Every hypothesis test in the suite uses the active profile (do not set ``max_examples`` in a
test): ``autocue`` is bounded so the default run stays quick; ``--fuzz-long`` (or
``AUTOCUE_FUZZ_LONG=1``) switches to ``autocue-long`` for a long hunt.
"""

from __future__ import annotations

import os

import pytest
from hypothesis import HealthCheck, settings

settings.register_profile(
    "autocue",
    max_examples=60,
    deadline=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)
settings.register_profile(
    "autocue-long",
    max_examples=5_000,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)
settings.load_profile("autocue")


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption(
        "--fuzz-long",
        action="store_true",
        default=False,
        help="run the property-based tests with 5,000 examples each instead of 60 (no per-test time limit)",
    )


@pytest.hookimpl(tryfirst=True)  # before pytest-timeout reads its setting
def pytest_configure(config: pytest.Config) -> None:
    if config.getoption("--fuzz-long") or os.environ.get("AUTOCUE_FUZZ_LONG") == "1":
        settings.load_profile("autocue-long")
        config.option.timeout = 0  # a long hunt outlives the per-test limit of the default run


from recording_scan import _no_credential_in_recordings  # noqa: E402,F401  (every recording of the suite is scanned)
