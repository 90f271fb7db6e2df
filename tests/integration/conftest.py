"""The RL libraries of these tests are optional extras of the package (``rllib``,
``tianshou``) and part of the ``test`` extra the tests run with: a missing one fails the
test module with the install command instead of skipping it."""

import importlib


def require(module: str):
    """``module`` imported.

    Raises:
        ImportError: ``module`` is missing; the message names the extra that installs it.
    """
    try:
        return importlib.import_module(module)
    except ImportError as err:
        raise ImportError(f'{module} is part of the test extra: pip install -e ".[test]" ({err})') from err
