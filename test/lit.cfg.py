# lit configuration of TFL's test suites (ir, codegen, frontend, errors, e2e).
import os

import lit.formats
from lit.llvm import llvm_config

config.name = "TFL"
config.test_format = lit.formats.ShTest(execute_external=False)
config.suffixes = [".mlir", ".tfl", ".test"]
config.excludes = ["lit.cfg.py", "lit.site.cfg.py", "unit", "fuzz", "CMakeLists.txt",
                   "Inputs"]
config.test_source_root = os.path.dirname(__file__)
config.test_exec_root = os.path.join(config.tfl_obj_root, "test")

llvm_config.use_default_substitutions()
# Our tools first, then the caller's PATH (the linker tflc runs lives there),
# then LLVM's (lit, FileCheck, not).
config.environment["PATH"] = os.pathsep.join(
    [config.tfl_tools_dir, os.environ.get("PATH", ""), config.llvm_tools_dir])
# With the CUDA path built, e2e programs are also built for the GPU (and
# their kernels assembled by ptxas); GPU-only lit tests need `cuda`.
if config.tfl_cuda:
    config.available_features.add("cuda")
    config.environment["TFL_CUDA"] = "1"
    config.environment["CUDA_HOME"] = "/usr/local/cuda"
    config.substitutions.append(
        ("%ptxas-all", "/usr/bin/python3 " + os.path.join(
            config.tfl_src_root, "test", "lit", "ptxas_all.py")
         + " /usr/local/cuda/bin/ptxas"))
    # Whether this machine has the NVIDIA driver (a GPU machine): programs
    # built with --device cuda then start on its GPU.
    try:
        import ctypes
        ctypes.CDLL("libcuda.so.1")
        config.available_features.add("nvidia-driver")
    except OSError:
        pass
    for var in ["TFL_GPU_BUNDLE"]:
        if var in os.environ:
            config.environment[var] = os.environ[var]
# With MPI, the distributed tests run programs on several processes of this
# machine: as root if need be, oversubscribed (CI has 2 cores).
if config.tfl_mpi:
    config.available_features.add("mpi")
    config.environment.update({
        "OMPI_ALLOW_RUN_AS_ROOT": "1",
        "OMPI_ALLOW_RUN_AS_ROOT_CONFIRM": "1",
        "OMPI_MCA_rmaps_base_oversubscribe": "1",
    })
# Under the sanitizers, libraries tflc builds need their runtime loaded
# first: Debian's Python cannot load them.
if config.tfl_sanitize:
    config.available_features.add("sanitize")
# Convolutions on TFL's own kernels wherever they apply, as before kernels
# were chosen by measurement (which tests of their own run): outputs that
# do not depend on the machine's load, and no cache file written.
config.environment["TFL_CONV"] = "tfl"
config.environment["TFL_KERNEL_CACHE"] = "off"
# Eager ops on compiled kernels: run_both.py runs each program a third
# time so (TFL_TEST_COMPILED_OPS=0 leaves that out), the kernels kept in
# the build tree, which the tests share.
config.environment["TFL_OP_KERNEL_CACHE"] = os.path.join(
    config.tfl_obj_root, "test", "op-kernels")
config.environment["TFL_TEST_COMPILED_OPS"] = os.environ.get(
    "TFL_TEST_COMPILED_OPS", "1")
# The ISA builds of TFL's own kernels (runtime/lib/Isa.h) this CPU runs:
# tests then run them all (TFL_ISA).
try:
    with open("/proc/cpuinfo") as cpuinfo:
        flags = next((line.split(":", 1)[1].split() for line in cpuinfo
                      if line.startswith("flags")), [])
except OSError:
    flags = []
if {"avx2", "fma", "bmi1", "bmi2", "f16c", "movbe"} <= set(flags):
    config.available_features.add("isa-avx2")
    if {"avx512f", "avx512bw", "avx512cd", "avx512dq", "avx512vl"} <= set(flags):
        config.available_features.add("isa-avx512")
tools = ["tflc", "tfl-opt", "FileCheck", "not", "split-file"]
llvm_config.add_tool_substitutions(tools, [config.tfl_tools_dir,
                                           config.llvm_tools_dir])

# Reference computations use Debian's Python, which sees python3-numpy.
config.substitutions.append(("%refpython", "/usr/bin/python3"))
# Compares an eager and a native run's outputs, numbers up to rounding.
config.substitutions.append(
    ("%compare-outputs",
     "/usr/bin/python3 " + os.path.join(config.tfl_src_root, "test", "lit",
                                        "compare_outputs.py")))
# Runs a program eagerly and natively, checks they agree, prints the output.
config.substitutions.append(
    ("%run-both",
     "/usr/bin/python3 " + os.path.join(config.tfl_src_root, "test", "lit",
                                        "run_both.py")
     + " " + os.path.join(config.tfl_tools_dir, "tflc")))
# What tflc build --shared made at build time, and the C program calling it.
config.substitutions.append(("%export-dir",
                             os.path.join(config.tfl_obj_root, "test",
                                          "export-libs")))
config.substitutions.append(("%examples",
                             os.path.join(config.tfl_src_root, "examples")))
config.substitutions.append(("%tfl_src_root", config.tfl_src_root))
