#!/usr/bin/env python3
"""Kills a training run with SIGKILL and checks that --resume continues it
exactly.

Usage: kill_and_resume.py DIR COMMAND [FLAGS...]

Runs COMMAND FLAGS --checkpoint=DIR/full.safetensors to its end; runs it
again with --checkpoint=DIR/killed.safetensors and kills it (SIGKILL, no
chance to clean up) as soon as that checkpoint first exists (a checkpoint
is written to a temporary file and renamed, so it is whole when it
appears); then runs COMMAND FLAGS --checkpoint=DIR/killed.safetensors
--resume. Checks that

- the resumed run says which step it resumed from (K), and that is a step
  the killed run had saved;
- every line it prints after that is the line the uninterrupted run
  printed after saving step K (rates in tokens/s and the checkpoint's name
  left out): the same losses, validation losses and sampled text;
- both runs end with byte-identical checkpoints (parameters, optimizer
  state, the generator's state).

Prints one summary line for FileCheck; exits 1 with the difference
otherwise.
"""
import os
import re
import signal
import subprocess
import sys
import time


def masked(line, checkpoint):
    line = line.replace(checkpoint, "CHECKPOINT")
    return re.sub(r"[0-9]+ tokens/s", "N tokens/s", line)


def fail(message):
    print(message, file=sys.stderr)
    sys.exit(1)


def main():
    workdir, command = sys.argv[1], sys.argv[2:]
    full = os.path.join(workdir, "full.safetensors")
    killed = os.path.join(workdir, "killed.safetensors")
    for path in (full, killed):
        if os.path.exists(path):
            os.remove(path)

    done = subprocess.run(command + [f"--checkpoint={full}"],
                          encoding="latin-1",
                          capture_output=True)
    if done.returncode != 0:
        fail(f"the uninterrupted run failed:\n{done.stderr}")
    reference = [masked(l, full) for l in done.stdout.splitlines()]

    run = subprocess.Popen(command + [f"--checkpoint={killed}"],
                           stdout=subprocess.DEVNULL,
                           stderr=subprocess.DEVNULL)
    while not os.path.exists(killed):
        if run.poll() is not None:
            fail("the run to kill ended before writing a checkpoint")
        time.sleep(0.001)
    if run.poll() is not None:
        fail("the run to kill ended before it could be killed; make it longer")
    run.send_signal(signal.SIGKILL)
    run.wait()

    resumed = subprocess.run(command + [f"--checkpoint={killed}", "--resume"],
                             encoding="latin-1", capture_output=True)
    if resumed.returncode != 0:
        fail(f"the resumed run failed:\n{resumed.stderr}")
    lines = [masked(l, killed) for l in resumed.stdout.splitlines()]
    at = [i for i, l in enumerate(lines) if l.startswith("resumed from")]
    if not at:
        fail("the resumed run did not say where it resumed:\n" +
             "\n".join(lines))
    step = int(re.search(r"at step ([0-9]+)", lines[at[0]]).group(1))
    saved = [i for i, l in enumerate(reference)
             if re.match(rf"step +{step}: saved CHECKPOINT$", l)]
    if not saved:
        fail(f"the uninterrupted run saved no checkpoint at step {step}")
    expected = reference[saved[0] + 1:]
    got = lines[at[0] + 1:]
    if got != expected:
        diff = [f"  uninterrupted: {e!r}\n  resumed:       {g!r}"
                for e, g in zip(expected, got) if e != g]
        fail(f"after step {step}, the resumed run printed {len(got)} lines "
             f"and the uninterrupted one {len(expected)}; first "
             f"differences:\n" + "\n".join(diff[:5]))
    with open(full, "rb") as a, open(killed, "rb") as b:
        identical = a.read() == b.read()
    if not identical:
        fail("the final checkpoints differ")
    print(f"killed after step {step}'s checkpoint; resumed: {len(got)} lines "
          f"as the uninterrupted run's; final checkpoints identical")


if __name__ == "__main__":
    main()
