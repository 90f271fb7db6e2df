"""The work of a tournament: lineups, duplicate deals, and the chunks of deals a worker plays.

Each *matchup* is a lineup of agents, one per seat (every multiset of the named agents
with at least two different ones).  Each *deal* (a reset seed) of a matchup is played
once per seat rotation, so every agent of the lineup plays every seat of the same
cards: duplicate play, which cancels most of the luck of the deal.
"""

from __future__ import annotations

import hashlib
import itertools
import json
import re
import zlib
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from agents import agent_names, make_agent, seat_seed
from experiments.common import MAX_DEALS, check_deals, load_variant, play_episode  # noqa: F401 - MAX_DEALS: its home before common

#: Games per variant when ``--deals`` is not given (split over the lineups and seat
#: rotations): the default run of every variant takes about a minute on 2 cores.
DEFAULT_GAMES = {"rummy_v0": 16000, "crazy_rummy_v0": 6000, "gin_rummy_v0": 16000, "rummikub_v0": 480}


@dataclass(frozen=True)
class Chunk:
    """Deals ``first .. first+count-1`` of one matchup, for one worker call."""

    variant: str
    env_options: tuple[tuple[str, Any], ...]
    lineup: tuple[str, ...]
    first: int
    count: int
    seed: int
    record_dir: str | None = None  # --record: write the first record_games games of the lineup there
    record_games: int = 0


_ENVS: dict[tuple, Any] = {}  # one env per (variant, options) per worker process


def deal_seed(seed: int, variant: str, deal: int) -> int:
    """The reset seed of a deal: a function of the job seed, variant and deal only, so
    every matchup plays the same deals."""
    ss = np.random.SeedSequence([seed, zlib.crc32(variant.encode()), deal])
    return int(ss.generate_state(1)[0])


def run_chunk(chunk: Chunk, stopped: Callable[[], bool] | None = None) -> list[dict]:
    """Play every seat rotation of each deal of ``chunk``; one record per game.

    Args:
        chunk: the deals and the lineup.
        stopped: called before each deal; when it returns True the chunk ends there
            (Ctrl-C in a tournament played in this process).
    """
    key = (chunk.variant, chunk.env_options)
    env = _ENVS.get(key)
    if env is None:
        env = _ENVS[key] = load_variant(chunk.variant).env(**dict(chunk.env_options))
    k = len(chunk.lineup)
    records = []
    for deal in range(chunk.first, chunk.first + chunk.count):
        if stopped is not None and stopped():
            break
        seed = deal_seed(chunk.seed, chunk.variant, deal)
        for rotation in range(k):
            seats = [chunk.lineup[(i + rotation) % k] for i in range(k)]
            agents = [make_agent(name, env, seed=seat_seed(seed, i)) for i, name in enumerate(seats)]
            if is_recorded(chunk, deal, rotation):
                result = _play_and_record(env, agents, seed, chunk, seats, deal, rotation)
            else:
                result = play_episode(env, agents, seed, names=seats)
            returns = result["returns"]
            winners = [i for i, r in enumerate(returns) if r > 1e-9]
            records.append(
                {
                    "variant": chunk.variant,
                    "lineup": " vs ".join(chunk.lineup),
                    "deal": deal,
                    "seed": seed,
                    "rotation": rotation,
                    "seats": seats,
                    "returns": returns,
                    "win_share": [1.0 / len(winners) if i in winners else 0.0 for i in range(k)],
                    "points_per_hand": [
                        info.get("total_score", 0) / max(1, info.get("hand", 1)) for info in result["infos"]
                    ],
                    "steps": result["steps"],
                    "truncated": result["truncated"],
                }
            )
    return records


def deals_played(chunk: Chunk, records: list[dict]) -> int:
    """The deals of ``chunk`` that :func:`run_chunk` finished, from its records (one per seat
    rotation of a deal): ``chunk.count`` unless a stop cut the chunk short."""
    return len(records) // len(chunk.lineup)


def is_recorded(chunk: Chunk, deal: int, rotation: int) -> bool:
    """Whether the game of ``deal`` in seat rotation ``rotation`` of ``chunk`` is recorded:
    with ``--record``, the lineup's first ``record_games`` games."""
    return chunk.record_dir is not None and deal * len(chunk.lineup) + rotation < chunk.record_games


#: the longest lineup part of a record's file name: a file name stops at 255 bytes (the
#: ``.part`` of ``atomic_open`` included), which a lineup of a few policy paths passes
MAX_LINEUP_CHARS = 160


def lineup_slug(agents: Sequence[str]) -> str:
    """The agents of a lineup as a record's file name holds them: joined by ``-``, each run of
    characters other than ASCII letters, digits and ``_ . -`` written ``_``; one longer than
    :data:`MAX_LINEUP_CHARS` is cut short and ended by a hash of the agents themselves, so that
    two long lineups get two names even when they differ only in characters written ``_``
    (``policy:runs/é/...`` and ``policy:runs/ü/...``).  Shorter lineups that differ only so
    share a name, as before the cut.  ``experiments.serve.results`` finds records by this name
    (and by :func:`whole_lineup_slug`'s, for records written before the cut)."""
    slug = whole_lineup_slug(agents)
    if len(slug) > MAX_LINEUP_CHARS:
        digest = hashlib.sha256(json.dumps(list(agents)).encode()).hexdigest()[:16]
        slug = f"{slug[: MAX_LINEUP_CHARS - len(digest) - 1]}-{digest}"
    return slug


def whole_lineup_slug(agents: Sequence[str]) -> str:
    """:func:`lineup_slug` not cut: the lineup part of the records written before 2026-12-07
    (a name within 255 bytes was written so, one past them failed)."""
    return re.sub(r"[^A-Za-z0-9_.-]+", "_", "-".join(agents))


def record_name(chunk: Chunk, deal: int, rotation: int) -> str:
    """The file name of the record of ``deal`` in seat rotation ``rotation`` of ``chunk``."""
    return record_file(chunk.variant, lineup_slug(chunk.lineup), deal, rotation)


def record_file(variant: str, slug: str, deal: Any, rotation: Any) -> str:
    """A record's file name from its parts (``slug``: :func:`lineup_slug`'s, or
    :func:`whole_lineup_slug`'s for a record written before the cut): the one format the
    tournament writes and ``experiments.serve.results`` looks records up by."""
    return f"{variant}-{slug}-deal{deal}-rot{rotation}.jsonl"


def record_names(chunks: Sequence[Chunk]) -> set[str]:
    """The file names of every record the tournament of ``chunks`` writes (its first
    ``record_games`` games per lineup, as :func:`run_chunk` picks them)."""
    names = set()
    for chunk in chunks:
        k = len(chunk.lineup)
        for deal in range(chunk.first, min(chunk.first + chunk.count, -(-chunk.record_games // k))):
            names.update(record_name(chunk, deal, r) for r in range(k) if is_recorded(chunk, deal, r))
    return names


def _play_and_record(env: Any, agents: list, seed: int, chunk: Chunk, seats: list, deal: int, rotation: int) -> dict:
    """``play_episode`` that also writes the game's record (``experiments/common/records.py``)."""
    from experiments.common.records import play_recorded, write_record

    result, lines = play_recorded(env, agents, seed, dict(chunk.env_options), seats)
    write_record(lines, Path(chunk.record_dir) / record_name(chunk, deal, rotation))
    return result


def lineups(agents: Sequence[str], seats: int) -> list[tuple[str, ...]]:
    """Every multiset of ``agents`` of size ``seats`` with at least two different agents."""
    return [c for c in itertools.combinations_with_replacement(agents, seats) if len(set(c)) > 1]


def default_deals(variant: str, matchups: int, seats: int) -> int:
    """Deals per matchup that spend the variant's default game budget (each deal is
    played once per seat rotation)."""
    return max(1, DEFAULT_GAMES.get(variant, 2000) // (matchups * seats))


def absolute_policy(name: str) -> str:
    """``policy:PATH`` and ``rllib:PATH`` with an absolute path, so that workers started elsewhere (Ray)
    find the model; other names unchanged.  On a cluster the path must be on a file
    system every node sees."""
    for prefix in ("policy:", "rllib:"):
        if name.startswith(prefix) and name[len(prefix) :].strip():  # an empty path stays empty (refused)
            return prefix + str(Path(name[len(prefix) :]).resolve())
    return name


def make_chunks(
    variants: Sequence[str],
    agents: Sequence[str] | None,
    deals: int | None,
    env_options: dict[str, Any],
    seed: int,
    chunk_size: int = 25,
    record_dir: str | None = None,
    record_games: int = 0,
) -> list[Chunk]:
    """The work of a tournament, cut into chunks of ``chunk_size`` deals.

    Raises:
        ValueError: an unknown variant or agent, env options the variant refuses, or
            ``deals`` not None and not an int 1..``MAX_DEALS``.
    """
    if deals is not None:
        check_deals(deals)
    chunks = []
    for variant in variants:
        module = load_variant(variant)
        env = module.env(**env_options)  # validates the options now, in this process
        known = agent_names(env.unwrapped.metadata["name"])
        names = [absolute_policy(a) for a in dict.fromkeys(agents)] if agents else known
        for name in names:
            make_agent(name, env, seed=0)  # an unknown name or a bad import path fails here
        seats = len(env.possible_agents)
        matchups = lineups(names, seats)
        if not matchups:
            raise ValueError(f"{variant}: a tournament needs at least two different agents, got {', '.join(names)}")
        n_deals = deals if deals is not None else default_deals(variant, len(matchups), seats)
        for lineup in matchups:
            for first in range(0, n_deals, chunk_size):
                chunks.append(
                    Chunk(
                        variant,
                        tuple(sorted(env_options.items())),
                        lineup,
                        first,
                        min(chunk_size, n_deals - first),
                        seed,
                        record_dir,
                        record_games,
                    )
                )
    return chunks
