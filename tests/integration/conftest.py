"""The RL libraries of these tests are optional extras (``rllib``, ``tianshou``): CI
installs them (``.[test]``) and must run the tests, so a missing library is skipped only
outside CI (``CI`` unset), e.g. on a machine with the core install."""

import importlib
import os

import pytest


def require(module: str):
    """``module`` imported; outside CI a missing one skips the test module."""
    if os.environ.get("CI") == "true":
        return importlib.import_module(module)
    return pytest.importorskip(module, reason=f"{module} is an optional extra; CI installs it")
