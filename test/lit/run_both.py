#!/usr/bin/env python3
"""Runs a TFL program eagerly and natively and checks the two agree.

Usage: run_both.py TFLC [--mpirun=N] [--tflc=OPTION ...] [--rtol=R]
                   [--gpu-tolerance=RTOL,ATOL]
                   [--mask=REGEX ...] [--expect-error=REGEX]
                   [--no-compiled-ops] PROGRAM.tfl
                   TMP_PREFIX [program flags...]

--mpirun=N runs both modes on N processes (`mpirun -np N`); the output is
each rank's standard output in turn, rank 0's first (mpirun writes each
rank's to a file of its own), so that it does not depend on how the
ranks' lines interleave. With --expect-error, one rank
must report the error and mpirun must fail.

--tflc=OPTION passes OPTION (such as --precision=bf16) to every tflc run
and build.
--rtol=R compares numbers to relative tolerance R (default 1e-5): a
bf16 program's two runs round f32 sums made in different orders to bf16,
so they may differ by a bf16 rounding step.

--gpu-tolerance=RTOL,ATOL: the GPU runs (test/gpu/run-all.sh), and the
eager run of the GPU's IR here (TFL_CUDA below), match the eager output to
these tolerances instead (default: --rtol's): a program
whose convolutions run on TFL's Winograd kernels on the CPU and on
cuDNN's algorithms on the GPU agrees with it only as closely as both do
with the reference the test holds them to.

--mask=REGEX leaves what REGEX matches out of the comparison (a rate in
images/s, which is the one number the two modes need not agree on).
--expect-error=REGEX: the program must stop with exit code 1 and an error
matching REGEX in every mode; the eager run's error is printed.

--no-compiled-ops leaves out the runs on compiled kernels that
TFL_TEST_COMPILED_OPS=1 asks for (below): for a program that appends to
files which the test then counts the lines of.

Prints the eager run's output (for FileCheck) when both runs exit 0 and
their outputs match up to float rounding (compare_outputs.py); otherwise
reports the difference on stderr and exits 1.

With TFL_TEST_COMPILED_OPS=1, the program also runs eagerly with each op
on a kernel the pipeline compiles for it (`tflc run --eager
--test-compiled-ops`, the machinery of eager mode on a GPU), and must
print what the native run does.

When TFL_CUDA=1 (tflc has the CUDA path), the program is also built with
`--device cuda`, which assembles its kernels with ptxas for sm_90, and
run eagerly with `--device cuda --test-compiled-ops`, which builds each
op's CUDA kernel and links it into tflc (as eager mode on a GPU does)
before running the op on the CPU: its output must be the native run's.
With TFL_GPU_BUNDLE=DIR as well, the CUDA executable, its flags, the
program (from the source tree) and the eager output go into DIR, for
test/gpu/run-all.sh to run on a GPU, compiled and eagerly.
"""
import glob
import json
import os
import re
import shutil
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))  # the source tree


def mpi_environment():
    """The environment of a run under mpirun. In a sanitizer build, without
    LeakSanitizer: Open MPI's libraries leak at exit (strings its PMIx
    client keeps, its progress thread's events) from plugins it has
    unloaded by then, which LeakSanitizer cannot name for a suppression.
    AddressSanitizer's and UBSan's other checks stay on, and TFL's runtime
    is leak-checked in every run without mpirun (a world of one runs the
    same collective code)."""
    env = dict(os.environ)
    options = env.get("ASAN_OPTIONS", "")
    env["ASAN_OPTIONS"] = (options + ":" if options else "") + "detect_leaks=0"
    return env


def mpirun(ranks, outdir):
    """The mpirun command line that runs a program on `ranks` processes,
    each rank's standard output and error going to files of its own under
    `outdir` (rank_output reads them), whatever the ranks interleave."""
    shutil.rmtree(outdir, ignore_errors=True)
    return ["mpirun", "-np", str(ranks), "--output-filename", outdir]


def rank_output(outdir, stream):
    """Each rank's `stream` ("stdout", "stderr") under `outdir`, rank 0's
    first."""
    ranks = []
    for job in glob.glob(os.path.join(outdir, "*")):
        for d in glob.glob(os.path.join(job, "rank.*")):
            ranks.append((int(d.rsplit(".", 1)[1]), os.path.join(d, stream)))
    text = ""
    for _, path in sorted(ranks):
        if os.path.exists(path):
            with open(path) as f:
                text += f.read()
    return text


def run(cmd, what, expect_error=None, ranks=None, outdir=None):
    """The command's output. With `expect_error`, the command must stop
    with exit code 1 and that error: its output up to the error, and the
    error's line (the eager interpreter adds the source line and a caret
    below it). With `ranks`, the command runs on that many processes, their
    outputs kept under `outdir`."""
    env = None
    if ranks:
        cmd = mpirun(ranks, outdir) + cmd
        env = mpi_environment()
    # A program may print any bytes (decode() of sampled text): they pass
    # through as surrogate escapes.
    r = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                       text=True, errors="surrogateescape", env=env)
    if ranks:
        # The launcher's own messages stay after the ranks' errors.
        r.stdout, r.stderr = (rank_output(outdir, "stdout"),
                              rank_output(outdir, "stderr") + r.stderr)
    if expect_error:
        m = re.search(".*" + expect_error + ".*", r.stderr)
        stopped = r.returncode != 0 if ranks else r.returncode == 1
        if not stopped or not m:
            sys.stderr.write(f"{what} did not stop with the expected error "
                             f"(exit code {r.returncode}):\n{r.stderr}")
            sys.exit(1)
        return r.stdout + m.group(0) + "\n"
    if r.returncode != 0:
        sys.stderr.write(f"{what} failed with exit code {r.returncode}:\n"
                         f"{r.stderr}{r.stdout}")
        sys.exit(1)
    return r.stdout


def main():
    tflc, *args = sys.argv[1:]
    ranks = None
    if args and args[0].startswith("--mpirun="):
        ranks = int(args.pop(0)[len("--mpirun="):])
    options = []
    while args and args[0].startswith("--tflc="):
        options.append(args.pop(0)[len("--tflc="):])
    rtol = []
    if args and args[0].startswith("--rtol="):
        rtol = ["--rtol", args.pop(0)[len("--rtol="):]]
    gpu_tolerance = rtol
    if args and args[0].startswith("--gpu-tolerance="):
        r, a = args.pop(0)[len("--gpu-tolerance="):].split(",")
        gpu_tolerance = ["--rtol", r, "--atol", a]
    masks = []
    while args and args[0].startswith("--mask="):
        masks.append(re.compile(args.pop(0)[len("--mask="):]))
    expect_error = None
    if args and args[0].startswith("--expect-error="):
        expect_error = args.pop(0)[len("--expect-error="):]
    compiled_ops = os.environ.get("TFL_TEST_COMPILED_OPS") == "1"
    if args and args[0] == "--no-compiled-ops":
        args.pop(0)
        compiled_ops = False
    program, prefix, *flags = args
    eager = run([tflc, "run", "--eager"] + options + [program] + flags,
                "eager run", expect_error, ranks, prefix + ".eager.ranks")
    exe = prefix + ".exe"
    run([tflc, "build"] + options + [program, "-o", exe], "build")
    native = run([exe] + flags, "native run", expect_error, ranks,
                 prefix + ".native.ranks")
    def masked(text):
        for m in masks:
            text = m.sub("<masked>", text)
        return text
    with open(prefix + ".native", "w", errors="surrogateescape") as f:
        f.write(masked(native))
    expect_same(prefix, ".eager", masked(eager), rtol, "eager",
                f"--- eager\n{eager}--- native\n{native}")
    if compiled_ops:
        check_compiled_ops(tflc, options, program, prefix, flags, rtol,
                           masked, expect_error, ranks)
    if os.environ.get("TFL_CUDA") == "1":
        if compiled_ops:
            check_cuda_kernels(tflc, options, program, prefix, flags,
                               gpu_tolerance, masked, expect_error, ranks)
        build_for_gpu(tflc, options, program, prefix, {
            "flags": flags, "rtol": gpu_tolerance,
            "masks": [m.pattern for m in masks],
            "expect_error": expect_error, "ranks": ranks,
            "program": os.path.relpath(os.path.abspath(program), ROOT),
            "options": options}, masked(eager))
    sys.stdout.reconfigure(errors="surrogateescape")
    sys.stdout.write(eager)


def check_compiled_ops(tflc, options, program, prefix, flags, rtol, masked,
                       expect_error, ranks):
    """Runs the program eagerly once more, each op that can on a kernel the
    pipeline compiles for it (--test-compiled-ops, the machinery of eager
    mode on a GPU), and checks that it prints what the native run did."""
    out = run([tflc, "run", "--eager", "--test-compiled-ops"] + options +
              [program] + flags, "eager run on compiled ops", expect_error,
              ranks, prefix + ".ops.ranks")
    expect_same(prefix, ".ops", masked(out), rtol, "eager on compiled ops",
                f"--- compiled ops\n{out}")


def check_cuda_kernels(tflc, options, program, prefix, flags, rtol, masked,
                       expect_error, ranks):
    """Runs the program eagerly once more with --device cuda
    --test-compiled-ops: each op's kernel for the GPU is built by the CUDA
    pipeline and linked into tflc as `tflc run --eager --device cuda` does,
    then the op runs on the CPU; the output must be the native run's, to
    the GPU's tolerance (the program's IR is the GPU's: attention written
    out, for one)."""
    out = run([tflc, "run", "--eager", "--device", "cuda",
               "--test-compiled-ops"] + options + [program] + flags,
              "eager run with the ops' CUDA kernels built", expect_error,
              ranks, prefix + ".cuda-ops.ranks")
    expect_same(prefix, ".cuda-ops", masked(out), rtol,
                "eager run with CUDA kernels built",
                f"--- eager run with CUDA kernels built\n{out}")


def expect_same(prefix, suffix, text, rtol, what, shown):
    """Writes `text` to prefix + suffix and exits 1, showing `shown`, unless
    it matches the native run's output (prefix.native) up to float
    rounding."""
    with open(prefix + suffix, "w", errors="surrogateescape") as f:
        f.write(text)
    cmp = subprocess.run([sys.executable, os.path.join(HERE,
                                                       "compare_outputs.py"),
                          prefix + suffix, prefix + ".native"] + rtol,
                         stdout=subprocess.PIPE, text=True)
    if cmp.returncode != 0:
        sys.stderr.write(what + " and native outputs differ: " + cmp.stdout)
        sys.stderr.write(shown)
        sys.exit(1)


def build_for_gpu(tflc, options, program, prefix, spec, expected):
    """Builds the program with --device cuda; with TFL_GPU_BUNDLE, puts the
    executable, how to run it (`spec`, and the directory) and the output it
    must print in that directory."""
    exe = prefix + ".cuda.exe"
    run([tflc, "build", "--device", "cuda"] + options + [program, "-o", exe],
        "build --device cuda")
    bundle = os.environ.get("TFL_GPU_BUNDLE")
    if not bundle:
        return
    # Named by suite and test (lit's SUITE/Output/TEST.tfl.tmp[/...]):
    # test/e2e and test/distributed both have an example-mnist-cnn.tfl, and
    # tests whose prefix is %t/both would share "both".
    parts = os.path.abspath(prefix).split(os.sep)
    at = len(parts) - 1 - parts[::-1].index("Output") \
        if "Output" in parts else len(parts) - 2
    name = ".".join(parts[at - 1:at] + parts[at + 1:])
    os.makedirs(bundle, exist_ok=True)
    shutil.copy(exe, os.path.join(bundle, name + ".exe"))
    with open(os.path.join(bundle, name + ".expected"), "w",
              errors="surrogateescape") as f:
        f.write(expected)
    with open(os.path.join(bundle, name + ".run"), "w") as f:
        f.write(json.dumps(dict(spec, cwd=os.getcwd())) + "\n")


if __name__ == "__main__":
    main()
