"""Tasks on worker processes or a Ray cluster, with a clean stop: what tournaments,
evaluations and label generation share.

:func:`run_tasks` calls ``fn(task)`` for each task of an iterable, in this process
(``workers=1``), on ``workers`` local processes, or as Ray tasks, keeping a few tasks in
flight per worker so that the iterable can be endless (label generation until a deadline).
Results come back in task order.  When ``stop.requested`` turns true (Ctrl-C,
:class:`~experiments.common.interrupt.StopRequest`) no task is started any more and the
finished results are returned.  With ``in_process_stop`` the tasks in progress are told
too (in a worker through a shared event) and return what they finished (a chunk ends
after its current deal); otherwise, and on Ray, they are dropped.

A worker that dies (a SIGTERM sent to the whole process group, as ``timeout`` and job
schedulers do; the kernel's out-of-memory killer) loses the task it held, which
``multiprocessing.Pool`` would wait for forever: the pool's first workers are watched, and
when one is gone the run ends with the finished results if a stop was requested (the main
process got the same signal), else with a ``RuntimeError`` that says so.  The same signal
ends the raylet and GCS of a local Ray cluster this process started (Ray blocks SIGINT in
them, not SIGTERM), and ``ray.shutdown()`` meeting a dead raylet exits the process from
Ray's C++ side (seen here: "Exiting because the Raylet IPC connection failed") before the
job writes what it finished; so after a stop by SIGTERM a cluster that lost a process is
not shut down but its other processes killed, Ray's exit hook is dropped, and the process
ends with the stop's exit code (143) once the job is done, without the interpreter's
finalization (where what is left of Ray crashed it).  A Ray task whose result is an error
once a stop follows (its worker died with the job's signal) is dropped like a local one.
A block that has nothing to keep yet and whose Ray calls would wait for such a cluster
(RLlib building its env runners) ends the process at once: :func:`ended_with_its_cluster`.

Local workers are started with the ``"spawn"`` method, never forked: a forked copy of a
process in which torch has run a parallel operation (a policy agent loaded and used, a
model trained in a notebook) blocks forever in torch's OpenMP thread pool.  Spawned
workers import the project afresh: ``fn`` must be importable (a module-level function).
"""

from __future__ import annotations

import atexit
import contextlib
import multiprocessing
import os
import signal
import socket
import sys
import threading
import time
from collections.abc import Callable, Iterable, Iterator
from typing import Any

from experiments.common.interrupt import StopRequest, handlers_kept, ignore_interrupts

#: tasks kept in flight per worker: enough to keep it busy, few enough to stop soon
IN_FLIGHT = 2
_POLL_S = 0.2  # the longest wait before a stop request is seen
#: Seconds a stopped Ray run watches the local cluster it started for processes ended by
#: the same SIGTERM (module docstring; a few hundred ms here, a busy machine is slower).  Not
#: after Ctrl-C: Ray's processes ignore SIGINT, so the cluster is shut down at once
RAY_DEATH_WAIT_S = 5.0
#: seconds a dead worker's run waits for the stop request of the signal that killed it (the
#: main process handles its signal between two polls)
_DEATH_GRACE_S = 2.0


_WORKER_STOP: Any = None  # in a worker process: the pool's shared stop event


def init_worker(stop_event: Any = None) -> None:
    """Start a worker process: one torch thread (the workers already use every core; a
    user's own ``OMP_NUM_THREADS`` wins), Ctrl-C left to the main process, and the pool's
    stop event (``multiprocessing.Event``) for :func:`_call_stoppable`."""
    global _WORKER_STOP
    ignore_interrupts()
    _WORKER_STOP = stop_event
    for name in ("OMP_NUM_THREADS", "MKL_NUM_THREADS"):
        os.environ.setdefault(name, "1")
    if "torch" in sys.modules:
        sys.modules["torch"].set_num_threads(1)


class RayUnreachableError(ConnectionError):
    """Ray could not start a local cluster or reach the one at the address given."""


#: Seconds :func:`check_ray_address` waits for a cluster's port to answer.
RAY_CONNECT_TIMEOUT_S = 10.0


def check_ray_address(address: str | None, timeout: float = RAY_CONNECT_TIMEOUT_S) -> None:
    """Check that a TCP connection to ``address`` (``host:port`` or ``ray://host:port``)
    opens within ``timeout`` seconds; None, ``"auto"`` (Ray finds the cluster itself) and
    ``"local"`` (Ray starts a new one) pass.

    Why: ``ray.init`` keeps retrying an address that does not answer (over 12 minutes seen,
    and one Ctrl-C did not stop it), so the jobs ask first, before their folder is made.

    Raises:
        RayUnreachableError: nothing answers there, or the address is no ``host:port``.
    """
    if address is None or address in ("auto", "local"):
        return
    hostport = address.removeprefix("ray://")
    host, _, port = hostport.rpartition(":")
    if not host or not port.isdigit():
        raise RayUnreachableError(f"address={address!r} is not host:port (or ray://host:port, auto or local)")
    try:
        socket.create_connection((host.strip("[]"), int(port)), timeout=timeout).close()
    except OSError as err:
        raise RayUnreachableError(
            f"cannot reach the Ray cluster at address={address!r} within {timeout:g} s: {err}"
        ) from None


def used_ray_address(address: str | None) -> str | None:
    """The address ``ray.init(address=address)`` goes to: the environment variable
    ``RAY_ADDRESS`` when ``address`` is None or ``"auto"`` and the variable is set (Ray
    reads it then), else ``address`` (None or ``"local"``: a new cluster)."""
    if address in (None, "auto") and os.environ.get("RAY_ADDRESS"):
        return os.environ["RAY_ADDRESS"]
    return address


def check_used_ray_address(address: str | None) -> None:
    """:func:`check_ray_address` on :func:`used_ray_address`.

    Raises:
        RayUnreachableError: as :func:`check_ray_address`, saying when the address came
            from ``RAY_ADDRESS``.
    """
    used = used_ray_address(address)
    from_env = used != address
    try:
        check_ray_address(used)
    except RayUnreachableError as err:
        raise RayUnreachableError(f"{err} (the environment variable RAY_ADDRESS)" if from_env else str(err)) from None


def refuse_unreachable_address(parser: Any, address: str | None, uses_ray: bool = True) -> None:
    """:func:`check_used_ray_address` for a job's ``--address`` (``uses_ray``: the job will
    call ``ray.init``; otherwise only ``address`` itself is checked), as a usage error
    (exit 2) of ``parser`` (an ``argparse.ArgumentParser``): called before the job makes
    its folder."""
    try:
        check_used_ray_address(address) if uses_ray else check_ray_address(address)
    except RayUnreachableError as err:
        parser.error(str(err))


def run_tasks(
    fn: Callable[[Any], Any],
    tasks: Iterable[Any],
    workers: int = 1,
    backend: str = "local",
    address: str | None = None,
    stop: StopRequest | None = None,
    on_result: Callable[[Any, Any], None] | None = None,
    in_process_stop: bool = False,
) -> list[Any]:
    """``[fn(t) for t in tasks]``, in parallel, stopping cleanly on request.

    Args:
        fn: a module-level function (workers import it).
        tasks: the tasks, consumed lazily (an endless generator is fine: stop taking from it
            to end the run, e.g. at a deadline).
        workers: local processes (``backend="local"``; 1 runs in this process).
        backend: ``"local"`` or ``"ray"`` (the ``distributed`` extra; a new local cluster, or
            the running one at ``address``).
        address: a Ray cluster's address (``"auto"``, ``"ray://head:10001"``).
        stop: when ``stop.requested`` turns true no new task starts and the finished
            results are returned.
        on_result: called as ``on_result(task, result)`` in this process as each result
            arrives (progress bars).
        in_process_stop: with ``workers=1``, call ``fn(task, stopped)`` with a callable that
            tells the task a stop was requested, so a long task can end early.

    Returns:
        the results of the finished tasks, in task order.

    Raises:
        ImportError: ``backend="ray"`` without Ray installed.
        ValueError: an unknown backend or a worker count below 1.
        RuntimeError: a local worker process died with no stop requested (killed on its
            own, e.g. out of memory): the task it held may be lost.
        RayUnreachableError: ``backend="ray"`` and Ray could not start a cluster or reach
            the one at ``address`` (nothing was run).
    """
    if backend not in ("local", "ray"):
        raise ValueError(f"backend={backend!r}: use local or ray")
    if workers < 1:
        raise ValueError(f"workers={workers}: at least 1")
    stopped = (lambda: stop.requested) if stop is not None else (lambda: False)
    notify = on_result or (lambda task, result: None)
    if backend == "ray":
        return _run_ray(fn, tasks, address, stopped, notify, stop)
    if workers == 1:
        results = []
        for task in tasks:
            if stopped():
                break
            result = fn(task, stopped) if in_process_stop else fn(task)
            results.append(result)
            notify(task, result)
        return results
    return _run_pool(fn, tasks, workers, stopped, notify, in_process_stop)


def _worker_stopped() -> bool:
    return _WORKER_STOP is not None and _WORKER_STOP.is_set()


def _call_stoppable(fn: Callable[[Any, Callable[[], bool]], Any], task: Any) -> Any:
    """In a worker: ``fn(task, stopped)``, ``stopped`` reading the pool's stop event."""
    return fn(task, _worker_stopped)


def _spawn_pool(context: Any, workers: int, stop_event: Any) -> Any:
    """The pool, its workers started with SIGINT ignored: a Ctrl-C to the process group
    while they import the job's modules (before their initializer runs) would otherwise
    print a traceback from each (an ignored signal stays ignored across exec, and Python
    leaves it so)."""
    main = threading.current_thread() is threading.main_thread()
    previous = signal.signal(signal.SIGINT, signal.SIG_IGN) if main else None
    try:
        return context.Pool(workers, initializer=init_worker, initargs=(stop_event,))
    finally:
        if main:
            signal.signal(signal.SIGINT, previous)


def _run_pool(fn, tasks, workers, stopped, notify, in_process_stop=False) -> list[Any]:
    context = multiprocessing.get_context("spawn")
    stop_event = context.Event()
    pool = _spawn_pool(context, workers, stop_event)
    # the Pool replaces a dead worker but never fails its task: watch the first workers
    # (Pool keeps them in _pool, a CPython detail unchanged since 3.2; none exits while the
    # pool is open)
    watched = list(getattr(pool, "_pool", []))
    source = iter(enumerate(tasks))
    pending: dict[int, tuple[Any, Any]] = {}  # index -> (task, AsyncResult)
    done: dict[int, Any] = {}
    exhausted = False
    arrived = threading.Event()

    def wake(_: Any) -> None:
        arrived.set()

    try:
        while True:
            while not exhausted and not stopped() and len(pending) < IN_FLIGHT * workers:
                item = next(source, None)
                if item is None:
                    exhausted = True
                    break
                i, task = item
                call, args = (_call_stoppable, (fn, task)) if in_process_stop else (fn, (task,))
                pending[i] = (task, pool.apply_async(call, args, callback=wake, error_callback=wake))
            if not pending:
                break
            if stopped():
                if not in_process_stop:
                    break
                stop_event.set()  # the tasks in progress end after their current deal or game
            ready = [i for i, (_, r) in pending.items() if r.ready()]
            if not ready:
                dead = [p for p in watched if p.exitcode not in (None, 0)]  # 0: a normal exit
                if dead and _stop_follows(stopped):
                    break  # the signal that killed the worker stops the job: keep what finished
                if dead:
                    raise RuntimeError(
                        f"a worker process died (exit code {dead[0].exitcode}, e.g. killed for memory) "
                        "with no stop requested: the task it held may be lost, so the run ends rather than wait"
                    )
                arrived.wait(_POLL_S)  # a result, or a moment to look at the stop request again
                arrived.clear()
                continue
            for i in ready:
                task, r = pending.pop(i)
                done[i] = r.get()  # re-raises a worker's exception here
                notify(task, done[i])
    finally:
        if pending:
            pool.terminate()  # a stop (or an error): the tasks in progress are dropped
        else:
            pool.close()
        pool.join()
    return [done[i] for i in sorted(done)]


def _stop_follows(stopped: Callable[[], bool]) -> bool:
    """Whether a stop is requested now or within :data:`_DEATH_GRACE_S` (a signal to the
    process group reaches the workers and this process at once; its handler runs here at
    the next poll)."""
    deadline = time.monotonic() + _DEATH_GRACE_S
    while not stopped():
        if time.monotonic() > deadline:
            return False
        time.sleep(0.05)
    return True


def _run_ray(fn, tasks, address, stopped, notify, stop=None) -> list[Any]:
    import ray

    started_here = not ray.is_initialized()
    if started_here:
        check_used_ray_address(address)
        try:
            with handlers_kept():
                ray.init(address=address, include_dashboard=False, log_to_driver=False)
        except Exception as err:  # Ray raises ConnectionError, RuntimeError or its own types here
            where = "a new local cluster" if address is None else f"the Ray cluster at address={address!r}"
            raise RayUnreachableError(f"cannot start or reach {where}: {type(err).__name__}: {err}") from err
    done: dict[int, Any] = {}
    try:
        remote = ray.remote(fn)
        capacity = IN_FLIGHT * max(1, int(ray.cluster_resources().get("CPU", 1)))
        source = iter(enumerate(tasks))
        pending: dict[Any, tuple[int, Any]] = {}  # ObjectRef -> (index, task)
        exhausted = False
        try:
            while True:
                while not exhausted and not stopped() and len(pending) < capacity:
                    item = next(source, None)
                    if item is None:
                        exhausted = True
                        break
                    i, task = item
                    pending[remote.remote(task)] = (i, task)
                if not pending or stopped():
                    break
                ready, _ = ray.wait(list(pending), num_returns=1, timeout=_POLL_S)
                for ref in ready:
                    i, task = pending.pop(ref)
                    try:
                        done[i] = ray.get(ref)
                    except Exception:  # noqa: BLE001 - Ray's errors, or the task's own
                        if _stop_follows(stopped):
                            break  # its worker died with the job's signal: keep what finished
                        raise
                    notify(task, done[i])
        finally:  # a stop, or a task's error raised by ray.get: the tasks still out end here
            for ref in pending:
                ray.cancel(ref, force=True)
    finally:
        if started_here:
            shut_down_ray(ray, stop)
    return [done[i] for i in sorted(done)]


def shut_down_ray(ray: Any, stop: Any = None) -> None:
    """End the local Ray cluster this process started with ``ray.init``, once its job is
    done or stopped (``stop``: the job's :class:`~experiments.common.interrupt.StopRequest`,
    or None).

    After a stop by SIGTERM whose signal ended a process of the cluster (module docstring)
    ``ray.shutdown()`` is not called: it met the dead raylet (for 8 s in
    ``train --backend rllib``, or exiting this process before the job wrote its results);
    the cluster's other processes are killed, Ray's exit hook dropped, and the process ends
    with the stop's exit code once the job is done (:func:`_exit_at_once`).  Otherwise (no
    stop, Ctrl-C, a cluster that lives on, or one this process only joined) ``ray.shutdown()``
    as usual.
    """
    if _ended_by_stop(ray, stop):
        _end_cluster(ray)
        atexit.unregister(ray.shutdown)  # registered by ``import ray``: it would meet the dead raylet too
        atexit.register(_exit_at_once, _exit_code(stop))  # read now: the stop's signal
        return
    with handlers_kept():
        ray.shutdown()


@contextlib.contextmanager
def ended_with_its_cluster(ray: Any, stop: Any, job: str, phase: str) -> Iterator[None]:
    """A block in which the job has nothing to keep yet, ended at once (the stop's exit code,
    one line on stderr, what is left of the cluster killed) when a stop by SIGTERM comes and
    a process of the local Ray cluster this process started is dead: Ray's calls wait for
    that cluster without a timeout (``train --backend rllib`` building its env runners: 60 s,
    then Ray's C++ side ended the process with 1 and "Failed to connect to GCS").  Nothing is
    watched for a cluster this process only joined (``--address``, ``RAY_ADDRESS``, a
    ``ray start`` one): its processes are not this job's.  The watch has ended when the block
    does, so the job is never ended once it goes on after the block.

    Args:
        ray: the ``ray`` module.
        stop: the job's :class:`~experiments.common.interrupt.StopRequest`, or None (no watch).
        job: the job's name, for the line (``"train"``).
        phase: what the block does, for the line (``"building the RLlib algorithm"``).
    """
    done = threading.Event()

    def watch() -> None:
        while not done.wait(_POLL_S):
            if _ended_by_stop(ray, stop, wait_s=0):
                _end_cluster(ray)
                sys.stderr.write(
                    f"{job}: stopped early ({_signal_name(stop)}) while {phase}, "
                    "its Ray cluster ended by the same signal: nothing was kept\n"
                )
                _exit_at_once(_exit_code(stop))
                return

    watcher = None
    if stop is not None and _ray_node(ray) is not None:  # processes of a cluster this process started
        watcher = threading.Thread(target=watch, name="ended_with_its_cluster", daemon=True)
        watcher.start()
    try:
        yield
    finally:
        done.set()
        if watcher is not None:  # a watch past ``done.wait`` ends the job before the block's caller goes on
            watcher.join()


def _ended_by_stop(ray: Any, stop: Any, wait_s: float | None = None) -> bool:
    """Whether ``stop`` (or None) was requested by a signal other than Ctrl-C (Ray's processes
    ignore SIGINT: no wait for them then) and a process of the local cluster this process
    started is dead, or dies within ``wait_s`` seconds (:func:`_local_cluster_ended`)."""
    requested = stop is not None and stop.requested and getattr(stop, "signum", None) != signal.SIGINT
    return requested and _local_cluster_ended(ray, wait_s)


def _exit_code(stop: Any) -> int:
    """The exit code of a stop (143 after SIGTERM), 1 for a stop that has none."""
    return getattr(stop, "exit_code", 1) or 1


def _signal_name(stop: Any) -> str:
    """The name of the signal that stopped the job (``"SIGTERM"``), or ``"stop"`` without one."""
    signum = getattr(stop, "signum", None)
    return signal.Signals(signum).name if signum is not None else "stop"


def _exit_at_once(code: int) -> None:
    """End the process with ``code`` (the stop's, 143 after SIGTERM; 1 when an exception went
    unhandled) once the job has written its results and the exit hooks registered after this
    one ran: what is left of Ray in this process, a core worker whose raylet is dead, crashed
    the interpreter's finalization (a segmentation fault seen here).  The hooks registered
    before this one (``logging.shutdown``, temporary folders) and the flushing of files left
    open are skipped: the jobs write their outputs with ``with`` blocks and renames first."""
    if getattr(sys, "last_value", None) is not None:
        code = 1  # a traceback after the stop: not a clean partial run
    try:
        with contextlib.suppress(Exception):  # a closed pipe (``| head``) must not keep the process alive
            sys.stdout.flush()
            sys.stderr.flush()
    finally:
        os._exit(code)


def _ray_node(ray: Any) -> Any:
    """Ray's object for the local cluster this process started (``ray._private.worker._global_node``,
    Ray 2.x), or None: no such cluster, another Ray, or a cluster this process only joined
    (``ray.init`` sets a node for it too, which started no process: empty ``all_processes``)."""
    node = getattr(getattr(getattr(ray, "_private", None), "worker", None), "_global_node", None)
    return node if getattr(node, "all_processes", None) else None


def _end_cluster(ray: Any) -> None:
    """Kill what is left of the local cluster whose processes a stop's signal ended (one dead
    is enough to call it ended: the raylet and GCS may outlive it), through :func:`_ray_node`."""
    node = _ray_node(ray)
    with contextlib.suppress(Exception):  # Ray's private API: another version may lack it
        node.kill_all_processes(check_alive=False, allow_graceful=False)


def _local_cluster_ended(ray: Any, wait_s: float | None = None) -> bool:
    """Whether a process of the local Ray cluster this process started is dead, or dies
    within ``wait_s`` seconds (default :data:`RAY_DEATH_WAIT_S`; a stop's SIGTERM to the
    process group ends them within a few hundred ms here).

    Reads :func:`_ray_node`; without it (another Ray), False: the cluster is shut down as usual.
    """
    node = _ray_node(ray)
    if node is None or not hasattr(node, "remaining_processes_alive"):
        return False
    deadline = time.monotonic() + (RAY_DEATH_WAIT_S if wait_s is None else wait_s)
    while node.remaining_processes_alive():
        if time.monotonic() >= deadline:
            return False
        time.sleep(0.05)
    return True
