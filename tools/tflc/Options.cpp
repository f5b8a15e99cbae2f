//===- Options.cpp - tflc's command-line options --------------------------===//

#include "Options.h"
#include "tfl/Codegen/NativeCode.h"

namespace tfl::tflc {

namespace cl = llvm::cl;

cl::OptionCategory tflcCategory("tflc options");

cl::list<std::string> positionals(cl::Positional, cl::desc("<args>"),
                                  cl::cat(tflcCategory));
cl::opt<bool> eager("eager",
                    cl::desc("run: interpret the IR op by op (eager mode)"),
                    cl::cat(tflcCategory));
cl::opt<bool> trace("trace",
                    cl::desc("run --eager: print each op with its .tfl line, "
                             "type and min/max/mean of its result"),
                    cl::cat(tflcCategory));
cl::opt<bool>
    checkNumerics("check-numerics",
                  cl::desc("run --eager: stop at the first NaN or infinity, "
                           "with the .tfl line and call stack"),
                  cl::cat(tflcCategory));
cl::opt<bool> pdb("pdb",
                  cl::desc("run --eager --check-numerics: at the first NaN or "
                           "infinity, show the debugger's prompt there"),
                  cl::cat(tflcCategory));
cl::opt<uint64_t>
    maxOps("max-ops",
           cl::desc("run --eager: stop with an error once this many ops have "
                    "run (0, the default: no limit)"),
           cl::value_desc("N"), cl::init(0), cl::cat(tflcCategory));
cl::opt<bool> verifyEach(
    "verify-each",
    cl::desc("run, build, emit: verify the IR after each pass of the "
             "pipeline (else once, at its end)"),
    cl::Hidden, cl::cat(tflcCategory));
cl::opt<bool> testCudaPlacement(
    "test-cuda-placement",
    cl::desc("run, build, emit (for the CPU): place the program's work and "
             "move what is placed on the CPU into host functions as for "
             "--device cuda, then compile all of it for the CPU (the host "
             "functions' calls and copies, checked without a GPU)"),
    cl::Hidden, cl::cat(tflcCategory));
cl::opt<bool> testCompiledOps(
    "test-compiled-ops",
    cl::desc("run --eager, repl: run each op without regions or side "
             "effects on a kernel the CPU pipeline compiles for it (cached "
             "in TFL_OP_KERNEL_CACHE), its tensors in a simulated device "
             "memory, as eager mode on a GPU does (run: report the kernels' "
             "and copies' counts on standard error); with --device cuda, "
             "build and link each op's CUDA kernel without loading it, and "
             "run the op on the CPU"),
    cl::Hidden, cl::cat(tflcCategory));
cl::opt<std::string> gpuAttention(
    "gpu-attention",
    cl::desc("run, build, emit with --device cuda: 'products' (the "
             "default) runs attention as products and a softmax, 'fused' "
             "each f32 attention on libtflrt_cuda's fused kernels (not yet "
             "measured against the products on a GPU)"),
    cl::value_desc("products|fused"), cl::init("products"), cl::Hidden,
    cl::cat(tflcCategory));
cl::opt<std::string> gpuRows(
    "gpu-rows",
    cl::desc("run, build, emit with --device cuda: 'ops' (the default) "
             "runs a softmax's or a layer norm's ops as a kernel each, "
             "'fused' each chain of row-wise ops as one kernel, a block per "
             "row (not yet measured against the ops on a GPU)"),
    cl::value_desc("ops|fused"), cl::init("ops"), cl::Hidden,
    cl::cat(tflcCategory));
cl::opt<bool> testGpuRowsOnCpu(
    "test-gpu-rows-on-cpu",
    cl::desc("run, build on the CPU: run each chain of row-wise ops as the "
             "GPU's row kernel (--gpu-rows=fused) would, built for one "
             "thread per block, as loops on the CPU (tests of the kernels' "
             "numbers without a GPU)"),
    cl::Hidden, cl::cat(tflcCategory));
cl::opt<unsigned> glueInstructions(
    "glue-instructions",
    cl::desc("build, run, emit llvm: LLVM instructions above which a "
             "function (the program's top level) is cleaned up and left out "
             "of -O3"),
    cl::value_desc("N"), cl::init(mlir::tfl::kGlueInstructions), cl::Hidden,
    cl::cat(tflcCategory));
cl::opt<unsigned> buildThreads(
    "build-threads",
    cl::desc("build, run: the threads LLVM's optimization and code "
             "generation run on (0, the default: one for each core; the "
             "program is the same whatever their number)"),
    cl::value_desc("N"), cl::init(0), cl::cat(tflcCategory));
cl::opt<unsigned> moduleInstructions(
    "module-instructions",
    cl::desc("build, run: LLVM instructions of the program's loops and "
             "kernels for each module compiled on a thread of its own"),
    cl::value_desc("N"), cl::init(mlir::tfl::kModuleInstructions), cl::Hidden,
    cl::cat(tflcCategory));
cl::opt<std::string> outputFile("o", cl::desc("build: the executable to write"),
                                cl::value_desc("path"), cl::cat(tflcCategory));
cl::opt<bool> shared(
    "shared",
    cl::desc("build: a shared library of the functions marked @export (with "
             "-o libNAME.so; writes NAME.h, its C API, next to it)"),
    cl::cat(tflcCategory));
cl::opt<bool> staticLibrary(
    "static",
    cl::desc("build: a static library of the exports (with -o libNAME.a; "
             "libtflrt's objects inside; NAME.h says what to link after it)"),
    cl::cat(tflcCategory));
cl::opt<bool> python(
    "python",
    cl::desc("build --shared: also write NAME.py, the API on NumPy arrays "
             "(ctypes); with -o NAME.py, the library is libNAME.so next to "
             "it"),
    cl::cat(tflcCategory));
cl::list<std::string>
    exportList("export",
               cl::desc("build --shared: export these functions too (their "
                        "annotations give the argument types)"),
               cl::value_desc("f,g"), cl::CommaSeparated,
               cl::cat(tflcCategory));
cl::opt<std::string> afterStage(
    "after",
    cl::desc("emit mlir: show the IR after this stage "
             "(mlirgen, autodiff, simplify, linalg, bufferize, llvm; with "
             "--device cuda: ... bufferize, gpu, nvvm, llvm)"),
    cl::value_desc("stage"), cl::init("mlirgen"), cl::cat(tflcCategory));
cl::opt<Device>
    device("device", cl::desc("build, run, emit: the target"),
           cl::values(clEnumValN(Device::Cpu, "cpu", "the host CPU (default)"),
                      clEnumValN(Device::Cuda, "cuda",
                                 "an NVIDIA GPU (sm_90 code, PTX for others)")),
           cl::init(Device::Cpu), cl::cat(tflcCategory));
cl::opt<bool> allowTf32(
    "allow-tf32",
    cl::desc("--device cuda: let cuBLAS and cuDNN multiply f32 in TF32 "
             "(tensor cores, 10-bit mantissas); f32 stays f32 without it"),
    cl::cat(tflcCategory));
cl::opt<std::string> precision(
    "precision",
    cl::desc("run, build, emit: run matmuls and convolutions (and their "
             "gradients) in bf16 or f16 with f32 accumulation, the rest in "
             "f32, as PyTorch's autocast (bf16, f16, f32; overrides the "
             "program's set_precision)"),
    cl::value_desc("bf16|f16|f32"), cl::cat(tflcCategory));
cl::opt<double> bucketMb(
    "bucket-mb",
    cl::desc("run, build: the size of the gradient buckets that an "
             "all_reduce is split into, started as the backward pass makes "
             "them (MiB, after a 1 MiB first bucket; 0 keeps each all_reduce "
             "whole, where the program has it)"),
    cl::init(25.0), cl::cat(tflcCategory));
cl::opt<int64_t> worldSize(
    "world-size",
    cl::desc("compile for N processes (mpirun -np N): world_size() is then "
             "known at compile time, so it may size shapes, and all_gather "
             "works; a run on another number stops with an error (tflc run "
             "knows its own: the launcher's, or 1)"),
    cl::init(0), cl::cat(tflcCategory));
cl::opt<bool> reportMemory(
    "report-memory",
    cl::desc("run, build: print the run's peak memory in tensors at exit "
             "(host, and GPU with --device cuda) to stderr"),
    cl::cat(tflcCategory));
cl::opt<bool> timeReport(
    "time-report",
    cl::desc("run, build, emit: print to stderr where compiling took its "
             "time: the front end, each pass of the pipeline by stage, "
             "LLVM's optimization and code generation, linking"),
    cl::cat(tflcCategory));
cl::opt<bool> verifyDiagnostics(
    "verify-diagnostics",
    cl::desc("check diagnostics against `expected-error {{...}}` markers"),
    cl::cat(tflcCategory));

cl::opt<int64_t> checkSeed("seed",
                           cl::desc("check-grad: the seed of the random point"),
                           cl::init(0), cl::cat(tflcCategory));
cl::opt<double> checkTolerance(
    "tolerance",
    cl::desc("check-grad: the largest error allowed, relative to the "
             "gradient's largest element (at least 1)"),
    cl::init(1e-6), cl::cat(tflcCategory));

} // namespace tfl::tflc
