"""PettingZoo environments: the only layer that imports pettingzoo and gymnasium."""
