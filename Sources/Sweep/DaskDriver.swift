/// The Dask side of `sweep run --backend dask`, inside the program so that a copy of the binary alone can drive a
/// cluster: written into the sweep's folder (`dask-driver.py`) and run by a Python that has Dask's `distributed`.
enum DaskDriver {
    static let source = #"""
#!/usr/bin/env python3
"""The Dask side of `nearcatch-sim sweep run --backend dask` (docs/sweeps.md).

Reads the runs to make as JSON lines on standard input ({"id", "arguments"}), submits each to a Dask cluster (the
scheduler given, or a LocalCluster of its own), and prints each run's outcome as a JSON line on standard output as it
ends: {"id", "ok": true, "summary", "seconds"} or {"id", "ok": false, "error", "attempts"}. The first line is
{"threads": N}, the cluster's worker threads. The simulator's binary is sent to every worker once (no shared file
system needed) and kept there under its SHA-256; each task runs it with the run's arguments and a time limit.
A task that fails is tried again by the engine (`retries`); the tasks of a worker that dies go to another.
"""
import argparse
import hashlib
import json
import os
import shutil
import signal
import sys
import tempfile
import time

from distributed import Client, LocalCluster, as_completed


def run_simulator(binary, digest, arguments, time_limit, cache=None):
    """On a worker: the binary written once under its digest (in `cache`, or the worker's temporary folder), run once
    with `arguments`."""
    import subprocess
    import tempfile

    folder = os.path.join(cache or os.path.join(tempfile.gettempdir(), "nearcatch-sweep"), digest)
    path = os.path.join(folder, "nearcatch-sim")
    if not os.path.exists(path):
        os.makedirs(folder, exist_ok=True)
        partial = "%s.%d" % (path, os.getpid())
        with open(partial, "wb") as f:
            f.write(binary)
        os.chmod(partial, 0o755)
        os.replace(partial, path)
    start = time.monotonic()
    try:
        done = subprocess.run([path] + arguments, stdin=subprocess.DEVNULL, capture_output=True, timeout=time_limit)
    except subprocess.TimeoutExpired:
        raise RuntimeError("stopped at the time limit of %s s" % time_limit)
    seconds = time.monotonic() - start
    if done.returncode != 0:
        said = done.stderr.decode(errors="replace").strip()[-400:] or "(it printed nothing)"
        raise RuntimeError("exit status %d: %s" % (done.returncode, said))
    return {"summary": done.stdout.decode(), "seconds": seconds}


def emit(message):
    sys.stdout.write(json.dumps(message) + "\n")
    sys.stdout.flush()


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--binary", required=True, help="the simulator's executable, sent to the workers")
    parser.add_argument("--time-limit", type=float, required=True, help="seconds a run may take")
    parser.add_argument("--retries", type=int, required=True, help="times a failed run is tried again")
    where = parser.add_mutually_exclusive_group(required=True)
    where.add_argument("--scheduler", help="tcp://HOST:PORT of a running Dask scheduler")
    where.add_argument("--local-workers", type=int, help="start a LocalCluster of this many one-thread workers")
    args = parser.parse_args()

    tasks = [json.loads(line) for line in sys.stdin if line.strip()]
    with open(args.binary, "rb") as f:
        binary = f.read()
    digest = hashlib.sha256(binary).hexdigest()

    cluster = None
    cache = None
    if args.scheduler:
        client = Client(args.scheduler, timeout=30)
    else:
        # Its workers share this machine: the binary they are sent goes in a folder removed at the end.
        cache = tempfile.mkdtemp(prefix="nearcatch-sweep-")
        cluster = LocalCluster(n_workers=args.local_workers, threads_per_worker=1, processes=True,
                               host="127.0.0.1", dashboard_address=None)
        client = Client(cluster)

    def close():
        client.close()
        if cluster is not None:
            cluster.close()
        if cache is not None:
            shutil.rmtree(cache, ignore_errors=True)

    def end(signum, frame):
        close()
        sys.exit(128 + signum)

    signal.signal(signal.SIGTERM, end)
    signal.signal(signal.SIGINT, end)

    client.wait_for_workers(1, timeout=60)
    emit({"threads": sum(client.nthreads().values())})
    shipped = client.scatter(binary, broadcast=True)
    futures = {}
    for task in tasks:
        future = client.submit(run_simulator, shipped, digest, task["arguments"], args.time_limit, cache,
                               key="nearcatch-run-" + task["id"], retries=args.retries, pure=False)
        futures[future] = task["id"]
    for future in as_completed(list(futures)):
        run_id = futures[future]
        if future.status == "finished":
            result = future.result()
            emit({"id": run_id, "ok": True, "summary": result["summary"], "seconds": result["seconds"]})
        else:
            emit({"id": run_id, "ok": False, "error": str(future.exception()), "attempts": args.retries + 1})
    close()


if __name__ == "__main__":
    main()
"""#
}
