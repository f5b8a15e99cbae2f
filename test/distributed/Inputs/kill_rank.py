#!/usr/bin/env python3
"""Kills one rank of a running TFL program and times how the run ends.

Usage: kill_rank.py RANK WORKDIR -- COMMAND...

Runs `mpirun -np 2 COMMAND` in WORKDIR, waits until the program has
written ready.npy there (rank 1 does once its collectives run), kills the
process of rank RANK with SIGKILL, and waits for mpirun to end. Prints
mpirun's exit status, whether it ended within 15 seconds of the kill, and
its standard error, for FileCheck. Fails if the program never gets ready
(60 s).
"""
import os
import signal
import subprocess
import sys
import time


def rank_process(launcher, rank):
    """The pid of the launcher's child process that runs `rank`."""
    for pid in os.listdir("/proc"):
        if not pid.isdigit():
            continue
        try:
            with open(f"/proc/{pid}/stat") as f:
                parent = int(f.read().rsplit(")", 1)[1].split()[1])
            with open(f"/proc/{pid}/environ", "rb") as f:
                env = f.read().split(b"\0")
        except OSError:
            continue
        if parent == launcher and \
                f"OMPI_COMM_WORLD_RANK={rank}".encode() in env:
            return int(pid)
    return None


def main():
    rank, workdir, sep, *command = sys.argv[1:]
    assert sep == "--"
    ready = os.path.join(workdir, "ready.npy")
    if os.path.exists(ready):
        os.remove(ready)
    # (Sanitizer builds: run_both.py's mpi_environment says why.)
    env = dict(os.environ, ASAN_OPTIONS="detect_leaks=0")
    run = subprocess.Popen(["mpirun", "-np", "2"] + command, cwd=workdir,
                           env=env,
                           stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                           text=True)
    deadline = time.time() + 60
    while not os.path.exists(ready):
        if time.time() > deadline or run.poll() is not None:
            run.kill()
            sys.exit("the program never got ready: " + run.stderr.read())
        time.sleep(0.05)
    pid = None
    while pid is None and time.time() < deadline:
        pid = rank_process(run.pid, rank)
    os.kill(pid, signal.SIGKILL)
    killed = time.time()
    try:
        _, err = run.communicate(timeout=60)
    except subprocess.TimeoutExpired:
        run.kill()
        sys.exit("the run did not end within 60 s of the kill")
    seconds = time.time() - killed
    print(f"exit status {run.returncode}")
    print(f"ended within 15 s: {seconds < 15}")
    sys.stdout.write(err)


if __name__ == "__main__":
    main()
