"""Helpers of the jobs: the Wilson interval, option parsing, variant names."""

import pytest

from experiments.common import parse_env_options, resolve_variant, wilson_interval


@pytest.mark.parametrize("n", range(1, 400))
def test_wilson_interval_contains_the_rate_even_at_0_and_1(n):
    for p in (0.0, 1.0, 0.5, 1 / n):
        low, high = wilson_interval(p, n)
        assert 0.0 <= low <= p <= high <= 1.0


def test_wilson_interval_values():
    low, high = wilson_interval(0.5, 100)
    assert (round(low, 4), round(high, 4)) == (0.4038, 0.5962)
    assert wilson_interval(0.3, 0) == (0.0, 1.0)


def test_parse_env_options():
    assert parse_env_options(["num_players=3", "ace_high=true", "episode=game", "x=False"]) == {
        "num_players": 3,
        "ace_high": True,
        "episode": "game",
        "x": False,
    }
    with pytest.raises(ValueError, match="is not key=value"):
        parse_env_options(["=3"])


def test_resolve_variant():
    assert resolve_variant("rummy") == resolve_variant("rummy_v0") == "rummy_v0"
    with pytest.raises(ValueError, match="unknown variant 'poker'"):
        resolve_variant("poker")
