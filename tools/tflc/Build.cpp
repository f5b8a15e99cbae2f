//===- Build.cpp - Executables and libraries from the LLVM dialect --------===//
//
// `tflc build`: the module, lowered to the LLVM dialect, optimized and
// compiled to object files, then linked with libtflrt into an executable,
// or, for a program with exports, into a shared (or static) library with
// the C wrapper of its API, its header and, with --python, its Python
// module (Export.h).
//
//===----------------------------------------------------------------------===//

#include "Build.h"
#include "Export.h"
#include "tfl/Codegen/NativeCode.h"
#ifdef TFL_HAVE_CUDA
#include "tfl/Codegen/Cuda/Cuda.h"
#endif

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/IR/Builders.h"
#include "llvm/ADT/SmallString.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FileUtilities.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

namespace tfl::build {

namespace {

/// Calls tflrt_report_memory at the start of tfl_main (--report-memory).
static void callMemoryReport(mlir::ModuleOp module) {
  auto entry = module.lookupSymbol<mlir::LLVM::LLVMFuncOp>(tfl::kEntrySymbol);
  if (!entry || entry.isExternal())
    return;
  mlir::OpBuilder builder = mlir::OpBuilder::atBlockBegin(module.getBody());
  auto type = mlir::LLVM::LLVMFunctionType::get(
      mlir::LLVM::LLVMVoidType::get(module.getContext()), {});
  auto report =
      module.lookupSymbol<mlir::LLVM::LLVMFuncOp>("tflrt_report_memory");
  if (!report)
    report = mlir::LLVM::LLVMFuncOp::create(builder, module.getLoc(),
                                            "tflrt_report_memory", type);
  builder.setInsertionPointToStart(&entry.getBody().front());
  mlir::LLVM::CallOp::create(builder, entry.getLoc(), report,
                             mlir::ValueRange{});
}

/// Temporary files, removed when it goes.
struct TemporaryFiles {
  llvm::SmallVector<std::string> paths;
  TemporaryFiles() = default;
  TemporaryFiles(const TemporaryFiles &) = delete;
  TemporaryFiles &operator=(const TemporaryFiles &) = delete;
  ~TemporaryFiles() {
    for (const std::string &path : paths)
      llvm::sys::fs::remove(path);
  }
  llvm::SmallVector<llvm::StringRef> refs() const {
    return llvm::SmallVector<llvm::StringRef>(paths.begin(), paths.end());
  }
};

} // namespace

mlir::LogicalResult buildExecutable(mlir::ModuleOp module, llvm::StringRef path,
                                    const Options &options,
                                    mlir::TimingScope &timing) {
  if (options.reportMemory)
    callMemoryReport(module);
  TemporaryFiles objects;
  if (failed(mlir::tfl::compileToObjectFiles(module, options.objects,
                                             objects.paths, timing)))
    return mlir::failure();
  std::string error;
  mlir::LogicalResult linked = mlir::failure();
  mlir::TimingScope linking = timing.nest("linking");
#ifdef TFL_HAVE_CUDA
  if (options.cuda)
    linked = mlir::tfl::linkCudaExecutable(objects.refs(), path, error);
  else
#endif
    linked = mlir::tfl::linkExecutable(objects.refs(), path, error);
  if (failed(linked)) {
    llvm::errs() << "error: linking " << path << " failed: " << error << "\n";
    return mlir::failure();
  }
  return mlir::success();
}

mlir::LogicalResult buildLibrary(mlir::ModuleOp module, const Program &program,
                                 const Options &options,
                                 const LibraryOptions &library,
                                 mlir::TimingScope &timing) {
  // -o libNAME.so, or -o NAME.py with --python: the library, its header
  // and the module side by side.
  llvm::StringRef out = library.outputFile;
  std::string prefix = tfl::exports::prefixFor(out);
  llvm::SmallString<256> dir(llvm::sys::path::parent_path(out));
  auto sibling = [&](const std::string &name) {
    llvm::SmallString<256> path(dir);
    llvm::sys::path::append(path, name);
    return std::string(path);
  };
  bool pythonOutput = out.ends_with(".py");
  std::string libraryPath =
      pythonOutput ? sibling("lib" + prefix + ".so") : out.str();
  std::string libraryName = llvm::sys::path::filename(libraryPath).str();
  std::string sourceName = llvm::sys::path::filename(library.inputPath).str();
  bool withPython = library.python || pythonOutput;
  if (library.staticLibrary && withPython) {
    llvm::errs() << "error: --python needs a shared library (--shared)\n";
    return mlir::failure();
  }

  TemporaryFiles objects;
  if (failed(mlir::tfl::compileToObjectFiles(module, options.objects,
                                             objects.paths, timing)))
    return mlir::failure();
  llvm::SmallString<128> wrapperPath, wrapperObject, scriptPath;
  if (llvm::sys::fs::createTemporaryFile("tfl-api", "c", wrapperPath) ||
      llvm::sys::fs::createTemporaryFile("tfl-api", "o", wrapperObject) ||
      llvm::sys::fs::createTemporaryFile("tfl-api", "map", scriptPath)) {
    llvm::errs() << "error: cannot create temporary files\n";
    return mlir::failure();
  }
  llvm::FileRemover removeWrapper(wrapperPath),
      removeWrapperObject(wrapperObject), removeScript(scriptPath);
  auto write = [](llvm::StringRef path, const std::string &text) {
    std::error_code ec;
    llvm::raw_fd_ostream os(path, ec);
    if (ec) {
      llvm::errs() << "error: cannot write " << path << ": " << ec.message()
                   << "\n";
      return false;
    }
    os << text;
    return true;
  };
  if (!write(wrapperPath, tfl::exports::wrapperSource(program, prefix)) ||
      !write(scriptPath, tfl::exports::versionScript(prefix)))
    return mlir::failure();
  std::string error;
  mlir::TimingScope linking = timing.nest("the C API's wrapper and linking");
  llvm::SmallVector<llvm::StringRef> inputs = objects.refs();
  inputs.push_back(wrapperObject);
  if (failed(mlir::tfl::compileCSource(wrapperPath, wrapperObject, error)) ||
      (library.staticLibrary
           ? failed(mlir::tfl::archiveStaticLibrary(inputs, libraryPath, error))
           : failed(mlir::tfl::linkSharedLibrary(inputs, libraryPath,
                                                 scriptPath, error)))) {
    llvm::errs() << "error: building " << libraryPath << " failed: " << error
                 << "\n";
    return mlir::failure();
  }
  std::string header = tfl::exports::header(program, prefix, sourceName);
  if (library.staticLibrary)
    header = "/* Link a program with " + libraryName + " " +
             mlir::tfl::staticLinkLine() +
             "\n   (one static TFL library a program: for several, build "
             "them with --shared). */\n" +
             header;
  if (!write(sibling(prefix + ".h"), header))
    return mlir::failure();
  if (withPython && !write(pythonOutput ? out.str() : sibling(prefix + ".py"),
                           tfl::exports::pythonModule(program, prefix,
                                                      libraryName, sourceName)))
    return mlir::failure();
  return mlir::success();
}

} // namespace tfl::build
