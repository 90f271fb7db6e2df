"""Policy agents on several local workers finish (issue 10, item 1).

Before the fix the workers were forked from a parent in which torch had already run a
parallel operation, and blocked forever in torch's OpenMP thread pool as soon as they
ran one themselves.  The job runs in a subprocess with a time limit, so a hang is a
failure, not a stuck test suite.
"""

import json
import os
import pathlib
import signal
import subprocess
import sys

import pytest

from tests.experiments.batched_policy_agent import MODEL_VARIABLE

ROOT = pathlib.Path(__file__).resolve().parents[2]
#: the committed Gin model (docs/results/sb3-gin, README "Training agents")
MODEL = ROOT / "docs" / "results" / "sb3-gin" / "model.zip"
#: seconds: the job takes about 10 s alone on 2 cores, a minute or two on a loaded machine
LIMIT = 300

# The parent uses the policy first (a batched forward pass, as a notebook that trained
# or inspected the model does): torch's OpenMP threads run when the workers start.
SCRIPT = """
import json, os, sys
import torch
from agents import make_agent
from experiments import tournament
from rummy_env import gin_rummy_v0

policy = "policy:" + os.environ[sys.argv[1]]
agent = make_agent(policy, gin_rummy_v0.env())
with torch.no_grad():
    agent.model.policy(torch.zeros((512, agent.model.observation_space.shape[0])))
agents = [policy, "tests.experiments.batched_policy_agent:make"]
chunks = tournament.make_chunks(["gin_rummy_v0"], agents, 2, {}, 0, chunk_size=1)
records = tournament.run_local(chunks, 2, progress=False)
print(json.dumps({"games": len(records), "chunks": len(chunks)}))
"""


def test_policy_agents_play_on_two_workers_without_hanging():
    env = {**os.environ, MODEL_VARIABLE: os.environ.get(MODEL_VARIABLE, str(MODEL))}
    # a session of its own: on a hang the job and its stuck workers are killed together
    job = subprocess.Popen(
        [sys.executable, "-c", SCRIPT, MODEL_VARIABLE],
        cwd=ROOT,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
    )
    try:
        out, err = job.communicate(timeout=LIMIT)
    except subprocess.TimeoutExpired:
        os.killpg(job.pid, signal.SIGKILL)
        job.communicate()
        pytest.fail(f"a tournament of policy agents on 2 workers did not finish within {LIMIT} s (a hang)")
    assert job.returncode == 0, err
    # 2 deals, each played in both seats, one deal per chunk
    assert json.loads(out.strip().splitlines()[-1]) == {"games": 4, "chunks": 2}
