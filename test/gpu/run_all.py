#!/usr/bin/env python3
"""Runs the unpacked GPU bundle's programs and compares their outputs.

Usage: run_all.py BUNDLE_DIR LOG_DIR
       run_all.py --library-path BUNDLE_DIR

Each tests/NAME.exe runs in the directory and with the flags of NAME.run
(under `mpirun -np N`, one rank per GPU, when NAME.run has ranks N: skipped
where there is no mpirun, or fewer GPUs than ranks);
its output (with NAME.run's masks applied) must match NAME.expected, the
eager CPU run, up to float rounding; or, when NAME.run has expect_error,
it must stop with exit code 1 and that error (the CPU's, with the .tfl
line). The examples' training loops must also replay their steps as CUDA
graphs (TFL_CUDA_GRAPHS=stats counts them). Libraries come from
BUNDLE_DIR/lib, then this machine's CUDA.

Then the checks of how programs load the NVIDIA libraries (they link
none; libtflrt_cuda loads each when first needed): a program without
products or convolutions loads neither cuBLAS nor cuDNN and one with them
loads both; with no GPU visible, and with the driver hidden (its file
covered by /dev/null in a mount namespace of the run's own), a program
stops with TFL's error and exit status 1. And TFL_CUDA_PROFILE=1's table
of the GPU's time: a program with products has a row of cuBLAS calls at
the .tfl line that made them, and its kernels' rows; a program with work
placed on the CPU has rows of copies to and from the host at its lines.

With BUNDLE_DIR/bin/tflc (test/gpu/prepare.sh eager: a self-contained
tflc), each program also runs eagerly on the GPU (`tflc run --eager
--device cuda`, from this source tree) and must print what the CPU
printed (or is skipped when it reads a dataset this machine lacks: that
archive leaves them out); a second run loads every kernel from the disk
cache, and a program's tensors cross between host and GPU as often as its
lit test counts on a simulated device memory.
"""
import json
import os
import re
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "lit"))
from run_both import mpirun, rank_output  # noqa: E402  (runs of ranks)


def cuda_library_dirs():
    """Where this machine keeps cuDNN and cuBLAS, when the loader does not
    find them: the toolkit's lib64, or the directories of the NVIDIA wheels
    that PyTorch brings."""
    dirs = []
    try:
        import nvidia  # PyTorch's CUDA libraries, as wheels
        for base in nvidia.__path__:
            for name in sorted(os.listdir(base)):
                lib = os.path.join(base, name, "lib")
                if os.path.isdir(lib):
                    dirs.append(lib)
    except ImportError:
        pass
    return [d for d in ["/usr/local/cuda/lib64"] + dirs if os.path.isdir(d)]


def library_path(bundle):
    """The LD_LIBRARY_PATH that runs a bundle's programs here: its own
    libraries, then this machine's CUDA libraries."""
    paths = [os.path.join(bundle, "lib")] + cuda_library_dirs()
    if os.environ.get("LD_LIBRARY_PATH"):
        paths.append(os.environ["LD_LIBRARY_PATH"])
    return ":".join(paths)


def launch_problem(ranks):
    """Why a program of `ranks` processes cannot run here, or None."""
    if subprocess.run(["which", "mpirun"], capture_output=True).returncode:
        return f"{ranks} processes need mpirun (Open MPI), not on this machine"
    gpus = subprocess.run(["nvidia-smi", "-L"], capture_output=True,
                          text=True).stdout.count("GPU ")
    if gpus < ranks:
        return f"{ranks} processes need {ranks} GPUs (one each), {gpus} here"
    return None


# The programs of the library checks: one without products or
# convolutions, one with products, one with convolutions.
NO_LIBRARIES = "e2e.control-flow.tfl.tmp"
PRODUCTS = "e2e.attention-vs-torch.tfl.tmp"
CONVOLUTIONS = "e2e.conv-vs-numpy.tfl.tmp"
# A program with work placed on the CPU.
PLACEMENT = "e2e.placement.tfl.tmp"


def run_program(tests, name, env, wrapper=()):
    """Runs tests/NAME.exe as its .run says, under `wrapper`."""
    spec = json.load(open(os.path.join(tests, name + ".run")))
    os.makedirs(spec["cwd"], exist_ok=True)
    return subprocess.run(list(wrapper) + [os.path.join(tests, name + ".exe")]
                          + spec["flags"], cwd=spec["cwd"], env=env,
                          capture_output=True, text=True,
                          errors="surrogateescape", timeout=600)


def driver_file():
    """The file this machine's libcuda.so.1 is (its links resolved)."""
    import ctypes
    ctypes.CDLL("libcuda.so.1")
    with open("/proc/self/maps") as maps:
        for line in maps:
            if "libcuda.so" in line:
                return os.path.realpath(line.split()[-1])
    return None


def library_checks(tests, env):
    """[(name, None if it passed, else why; or "SKIP: why")]."""
    results = []
    loads = {}
    for name in (NO_LIBRARIES, PRODUCTS, CONVOLUTIONS):
        r = run_program(tests, name, dict(env, LD_DEBUG="libs"))
        loads[name] = (r.returncode, {lib for lib in ("libcublas", "libcudnn")
                                      if f"library={lib}" in r.stderr})
    code, libs = loads[NO_LIBRARIES]
    results.append(("libraries.none-unneeded", None if code == 0 and not libs
                    else f"exit code {code}, loaded {sorted(libs)}"))
    for name, lib in ((PRODUCTS, "libcublas"), (CONVOLUTIONS, "libcudnn")):
        code, libs = loads[name]
        results.append((f"libraries.{lib}-when-needed",
                        None if code == 0 and lib in libs
                        else f"{name}: exit code {code}, loaded {sorted(libs)}"))

    def stops(r, message):
        if r.returncode == 1 and message in r.stderr:
            return None
        return f"exit code {r.returncode}: {r.stderr.strip()[-500:]}"

    r = run_program(tests, NO_LIBRARIES, dict(env, CUDA_VISIBLE_DEVICES=""))
    results.append(("libraries.no-gpu-visible", stops(
        r, "error: this program was built with --device cuda and needs a "
        "GPU: none is visible (CUDA_VISIBLE_DEVICES=)")))
    path = driver_file()
    hide = ["unshare", "--mount", "sh", "-c",
            f"mount --bind /dev/null {path} && exec \"$@\"", "hide"]
    probe = subprocess.run(hide + ["true"], capture_output=True, text=True)
    if path is None or probe.returncode != 0:
        results.append(("libraries.no-driver", "SKIP: cannot hide the driver "
                        f"here ({path}): {probe.stderr.strip()}"))
    else:
        r = run_program(tests, NO_LIBRARIES, env, hide)
        results.append(("libraries.no-driver", stops(
            r, "error: this program was built with --device cuda and needs "
            "the NVIDIA driver: ")))
    r = run_program(tests, PRODUCTS, dict(env, TFL_CUDA_PROFILE="1"))
    head = re.search(r"GPU profile: (\d+) operations, ([0-9.]+) ms", r.stderr)
    gemm = re.search(r"\s(\d+)\s+[0-9.]+  cuBLAS gemm.* \(attention-vs-torch"
                     r"[^:]*\.tfl:\d+:\d+\)", r.stderr)
    kernel = re.search(r"  \w+_kernel \(", r.stderr)
    results.append(("profile.table", None if r.returncode == 0 and head and
                    int(head.group(1)) > 0 and float(head.group(2)) > 0 and
                    gemm and kernel else
                    f"exit code {r.returncode}: {r.stderr.strip()[-1500:]}"))
    # Work placed on the CPU runs on the host: its calls copy their
    # operands to the host and their results back, at placement.tfl's
    # lines (its values are checked with the other programs').
    r = run_program(tests, PLACEMENT, dict(env, TFL_CUDA_PROFILE="1"))
    copies = [re.search(rf"  copy {way} the host \(placement\.tfl:\d+:\d+\)",
                        r.stderr) for way in ("to", "from")]
    results.append(("placement.host-copies", None if r.returncode == 0 and
                    all(copies) else
                    f"exit code {r.returncode}: {r.stderr.strip()[-1500:]}"))
    return results


def check_output(bundle, tests, logs, name, spec, r, ranks, suffix=""):
    """(ok, why) of run `r` of test NAME: its output (masked) must match
    the CPU's, or it must stop with the expected error. The output goes to
    LOGS/NAME.gpu (+ suffix)."""
    out = r.stdout
    for m in spec["masks"]:
        out = re.sub(m, "<masked>", out)
    got = os.path.join(logs, name + ".gpu" + suffix)
    with open(got, "w", errors="surrogateescape") as f:
        f.write(out)
    ok = r.returncode == 0
    why = f"exit code {r.returncode}: {r.stderr.strip()[-2000:]}"
    if spec.get("expect_error"):
        # A program that must stop with a run-time error, the CPU's.
        m = re.search(".*" + spec["expect_error"] + ".*", r.stderr)
        ok = (r.returncode != 0 if ranks else r.returncode == 1) and \
            m is not None
        why = f"expected an error like {spec['expect_error']!r}: {why}"
        with open(got, "w", errors="surrogateescape") as f:
            f.write(r.stdout + (m.group(0) + "\n" if m else r.stderr))
    expected = os.path.join(tests, name + ".expected")
    if ok and spec.get("expect_error"):
        # The error's line is compared by the pattern, which allows the
        # GPU's wording ("out of GPU memory: ... (N GiB free)"); what
        # the program printed before it, by value.
        expected = os.path.join(logs, name + ".expected" + suffix)
        for path, source in ((got, got), (expected, os.path.join(
                tests, name + ".expected"))):
            with open(source) as f:
                lines = f.read().splitlines(keepends=True)
            with open(path, "w") as f:
                f.write("".join(
                    "<the expected error>\n"
                    if re.search(spec["expect_error"], line) else line
                    for line in lines))
    if ok:
        cmp = subprocess.run([sys.executable,
                              os.path.join(bundle, "compare_outputs.py"),
                              expected, got]
                             + spec.get("rtol", []),
                             capture_output=True, text=True)
        ok = cmp.returncode == 0
        why = "output differs from the CPU's: " + cmp.stdout.strip()
    return ok, why


# The source tree this script is in: eager runs compile its programs.
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))))
# A program whose tensors' copies between host and GPU are counted: the
# GPU's must be the simulated device memory's (its lit test's counts).
RESIDENCY = "e2e.eager-device-memory.tfl.tmp"
RESIDENCY_COPIES = "8 copies to the device, 7 to the host"


def eager_run(bundle, logs, env, name, spec, cache):
    """Runs NAME's program eagerly on the GPU with the bundle's tflc."""
    cmd = [os.path.join(bundle, "bin", "tflc"), "run", "--eager", "--device",
           "cuda"] + spec.get("options", []) + [
               os.path.join(ROOT, spec["program"])] + spec["flags"]
    return subprocess.run(
        cmd, cwd=spec["cwd"], capture_output=True, text=True,
        errors="surrogateescape", timeout=900,
        env=dict(env, TFL_STDLIB_PATH=os.path.join(ROOT, "stdlib"),
                 TFL_OP_KERNEL_CACHE=cache, TFL_OP_KERNEL_STATS="1"))


def eager_runs(bundle, tests, logs, env, names):
    """[(name, None if it passed, else why; or "SKIP: why")] of each
    program run eagerly on the GPU (`tflc run --eager --device cuda`, each
    op on its kernel from the CUDA pipeline): it must print what the CPU
    printed. Then: a second run loads every kernel from the disk cache,
    and a program's tensors cross between host and GPU as often as on the
    simulated device memory of its lit test."""
    from concurrent.futures import ThreadPoolExecutor
    # (in the unpacked bundle: not among the logs that come back)
    cache = os.path.join(bundle, "op-kernels")
    specs = {}
    for name in names:
        spec = json.load(open(os.path.join(tests, name + ".run")))
        if "program" in spec and not spec.get("ranks"):
            specs[name] = spec
            os.makedirs(spec["cwd"], exist_ok=True)

    def one(name):
        r = eager_run(bundle, logs, env, name, specs[name], cache)
        with open(os.path.join(logs, name + ".eager.stderr"), "w",
                  errors="surrogateescape") as f:
            f.write(r.stderr)
        return r
    # Programs in parallel: each compiles its kernels on a core.
    with ThreadPoolExecutor(max_workers=min(8, os.cpu_count() or 1)) as pool:
        runs = dict(zip(specs, pool.map(one, specs)))
    results = []
    for name, r in runs.items():
        missing = re.search(r"(/usr/share/(datasets|games/fortunes)\S*)",
                            r.stderr) if r.returncode else None
        path = missing.group(1).rstrip(":'\"") if missing else None
        if path and not os.path.exists(path):
            # (an archive without the datasets: prepare.sh eager's)
            results.append(("eager." + name, f"SKIP: it reads {path}, not "
                            "on this machine"))
            continue
        ok, why = check_output(bundle, tests, logs, name, specs[name], r,
                               None, ".eager")
        results.append(("eager." + name, None if ok else why))
    if RESIDENCY in specs:
        again = eager_run(bundle, logs, env, RESIDENCY, specs[RESIDENCY],
                          cache)
        stats = re.search(r"compiled ops: .*", again.stderr)
        results.append(("eager.kernels-from-cache", None if stats and
                        stats.group(0).startswith("compiled ops: 0 kernels")
                        else f"second run: {again.stderr.strip()[-500:]}"))
        results.append(("eager.tensors-stay-on-the-gpu", None if stats and
                        stats.group(0).endswith(RESIDENCY_COPIES) else
                        f"expected {RESIDENCY_COPIES}: "
                        f"{stats.group(0) if stats else again.stderr}"))
    return results


# Programs whose training loop must replay its steps as CUDA graphs: most
# graph launches reuse a captured graph.
MUST_REPLAY = {"e2e.example-mnist-cnn.tfl.tmp", "e2e.example-mnist-mlp.tfl.tmp"}


def main():
    if sys.argv[1] == "--library-path":
        # For scripts: the LD_LIBRARY_PATH that runs a bundle's programs.
        print(library_path(sys.argv[2]))
        return
    bundle, logs = sys.argv[1:3]
    tests = os.path.join(bundle, "tests")
    # Step graphs on, and counted (libtflrt_cuda prints them at exit).
    env = dict(os.environ, LD_LIBRARY_PATH=library_path(bundle),
               TFL_CUDA_GRAPHS="stats")
    # As the lit tests run mpirun: as root if need be (a GPU machine's
    # container), oversubscribed.
    env.update(OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1",
               OMPI_MCA_rmaps_base_oversubscribe="1")
    passed = failed = skipped = 0
    names = sorted(f[:-4] for f in os.listdir(tests) if f.endswith(".run"))
    built = [n for n in names
             if os.path.exists(os.path.join(tests, n + ".exe"))]
    for name in built:
        spec = json.load(open(os.path.join(tests, name + ".run")))
        os.makedirs(spec["cwd"], exist_ok=True)
        cmd = [os.path.join(tests, name + ".exe")] + spec["flags"]
        ranks = spec.get("ranks")
        if ranks:
            why = launch_problem(ranks)
            if why:
                skipped += 1
                print(f"SKIP {name}: {why}")
                continue
            outdir = os.path.join(logs, name + ".ranks")
            cmd = mpirun(ranks, outdir) + ["-x", "LD_LIBRARY_PATH", "-x",
                                           "TFL_CUDA_GRAPHS"] + cmd
        r = subprocess.run(cmd, cwd=spec["cwd"], env=env, capture_output=True,
                           text=True, errors="surrogateescape", timeout=600)
        if ranks:
            r.stdout = rank_output(outdir, "stdout")
            r.stderr = rank_output(outdir, "stderr") + r.stderr
        ok, why = check_output(bundle, tests, logs, name, spec, r, ranks)
        if ok and name in MUST_REPLAY:
            # A training loop's steps must replay as graphs, not only run.
            m = re.search(r"step graphs: (\d+) launched, (\d+) captured",
                          r.stderr)
            ok = m is not None and int(m.group(1)) > 2 * int(m.group(2))
            why = ("its training steps did not replay as CUDA graphs: "
                   + (m.group(0) if m else "no step graph counts"))
        if ok:
            passed += 1
            print(f"PASS {name}")
        else:
            failed += 1
            print(f"FAIL {name}: {why}")
    results = library_checks(tests, env) if built else []
    if os.path.exists(os.path.join(bundle, "bin", "tflc")):
        results += eager_runs(bundle, tests, logs, env, names)
    for name, why in results:
        if why is None:
            passed += 1
            print(f"PASS {name}")
        elif why.startswith("SKIP: "):
            skipped += 1
            print(f"SKIP {name}: {why[6:]}")
        else:
            failed += 1
            print(f"FAIL {name}: {why}")
    print(f"gpu: {passed} passed, {failed} failed, {skipped} skipped")
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
