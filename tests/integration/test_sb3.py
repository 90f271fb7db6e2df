"""Stable-Baselines3 over the single-agent Gymnasium ids, as its users start: ``make_vec_env``."""

import numpy as np
from stable_baselines3.common.env_util import make_vec_env

import rummy_env  # noqa: F401 - registers the Gymnasium ids


def test_make_vec_env_builds_the_registered_ids():
    # make_vec_env asks gymnasium.make for render_mode="rgb_array" and falls back only on a
    # TypeError: the view refused the mode with a ValueError, so every id failed
    vec = make_vec_env("rummy_env/GinRummy-v0", n_envs=2, seed=0)
    obs = vec.reset()
    assert obs.shape == (2, 485) and obs.dtype == np.float32 and vec.render_mode == "rgb_array"
    masks = np.stack(vec.env_method("action_masks"))
    assert masks.shape == (2, 108) and masks.dtype == np.int8 and masks.any(axis=1).all()
    vec.close()
