//===- Export.h - A library's C API, header and Python module ---*- C++ -*-===//
//
// `tflc build --shared` compiles a program's exports (Program::exports:
// `tfl_export_NAME`, taking a buffer per leaf of the arguments and of the
// result) and writes, for a library whose API prefix is PREFIX:
//   - PREFIX.h: a struct per record class, `int PREFIX_NAME(...)` per
//     export (tensors as caller-owned (data, rank, shape) views, the result
//     written into the caller's), `PREFIX_load_CLASS(path, &record)`, and
//     `PREFIX_last_error()`;
//   - the C source of those functions (compiled into the library): each
//     hands its tensors to libtflrt's tflrt_export_call with the export's
//     signature;
//   - with --python, PREFIX.py: the same API on NumPy arrays (records as
//     dicts), through ctypes.
//
//===----------------------------------------------------------------------===//

#ifndef TFL_TOOLS_TFLC_EXPORT_H
#define TFL_TOOLS_TFLC_EXPORT_H

#include "tfl/Frontend/Sema.h"

#include <string>

namespace tfl::exports {

/// The API's prefix for a library written to `outputPath` (`libmodel.so`,
/// `model.py`: "model"), a C identifier.
std::string prefixFor(llvm::StringRef outputPath);

/// The C header of the library's API.
std::string header(const Program &program, llvm::StringRef prefix,
                   llvm::StringRef sourceName);
/// The C source of the API's functions.
std::string wrapperSource(const Program &program, llvm::StringRef prefix);
/// The ld version script exporting only the API.
std::string versionScript(llvm::StringRef prefix);
/// The Python module that loads `libraryName` (next to it) with ctypes.
std::string pythonModule(const Program &program, llvm::StringRef prefix,
                         llvm::StringRef libraryName,
                         llvm::StringRef sourceName);

} // namespace tfl::exports

#endif // TFL_TOOLS_TFLC_EXPORT_H
