"""A fake local Ray cluster and stop request, for the stop tests of the tournament's Ray
backend (``test_parallel_stop``) and of ``train --backend rllib`` (``test_rllib_stop``)."""

import signal


class Stop:
    """A job's stop request (:class:`experiments.common.interrupt.StopRequest`'s surface)."""

    requested = False


class LocalRay:
    """Ray's surface as ``_run_ray`` meets a local cluster it starts: tasks run at once, the
    first result collected comes with a stop request, and then the cluster's processes are
    dead unless ``alive_after_stop`` (a SIGTERM to the process group reaches the raylet with
    the job's stop request; Ctrl-C does not).  ``joined``: a cluster ``ray.init`` only joins
    (``--address``), whose node holds no process of this one."""

    def __init__(self, alive_after_stop, joined=False):
        self.alive_after_stop = alive_after_stop
        self.calls = []
        self.stop = Stop()
        self.stop.signum, self.stop.exit_code = signal.SIGTERM, 143
        self.initialized = False
        node = self

        class Node:
            all_processes = {} if joined else {"raylet": ["the raylet's process"]}

            @staticmethod
            def remaining_processes_alive():
                return not node.stop.requested or node.alive_after_stop

            @staticmethod
            def kill_all_processes(check_alive, allow_graceful):
                node.calls.append(("kill_all_processes",))

        self._private = type("Private", (), {"worker": type("Worker", (), {"_global_node": Node})})

    def is_initialized(self):
        return self.initialized

    def init(self, **kwargs):
        self.initialized = True

    def cluster_resources(self):
        return {"CPU": 1}

    def remote(self, fn):
        ray = self

        class Remote:
            @staticmethod
            def remote(task):
                ray.calls.append(("run", task))
                return fn(task)

        return Remote

    def wait(self, refs, num_returns, timeout):
        return refs[:num_returns], refs[num_returns:]

    def get(self, ref):
        self.stop.requested = True  # the first result arrives with the signal
        return ref

    def cancel(self, ref, force):
        self.calls.append(("cancel", ref))

    def shutdown(self):
        self.calls.append(("shutdown",))
