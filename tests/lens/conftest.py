"""A test marked ``needs_build(NAME)`` skips when that CPython build is not
installed, with a message saying how to install it; under CI (CI=true) it
fails instead, so a machine that should have every build cannot pass
without testing on each."""

import pytest

from quickening.measure import builds


def pytest_configure(config):
    config.addinivalue_line("markers", "needs_build(name): needs that CPython build")


def pytest_runtest_setup(item):
    for mark in item.iter_markers("needs_build"):
        name = mark.args[0]
        if builds.build(name) is None:
            if builds.under_ci():
                pytest.fail(builds.missing_reason(name) + " (CI=true: a missing build fails)",
                            pytrace=False)
            pytest.skip(builds.missing_reason(name))
