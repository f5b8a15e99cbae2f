//===- Flags.h - Command-line flags of TFL programs -------------*- C++ -*-===//
//
// `flag(name, default, help)` in a program declares `--name=value`. The
// program's flags are declared before it starts (from its flag table), then
// the command line is parsed once: `--help` lists them, an unknown flag or a
// bad value is an error. Shared by the eager interpreter and executables.
//
//===----------------------------------------------------------------------===//

#ifndef TFLRT_FLAGS_H
#define TFLRT_FLAGS_H

#include "tflrt/Tensor.h"

#include <functional>
#include <string>
#include <vector>

namespace tflrt {

/// Declares a flag of `dtype` (i64, f32, f64 or bool) with its default
/// written as text.
void declareFlag(const std::string &name, DType dtype,
                 const std::string &defaultText, const std::string &help);

/// The code of a string flag in a program's flag table (where the other
/// flags have their dtype's).
constexpr int kStringFlag = -1;

/// Declares a flag from a program's flag table: `code` is a dtype's, or
/// kStringFlag.
void declareFlag(const std::string &name, int code,
                 const std::string &defaultText, const std::string &help);

/// A string flag's value (its default unless given).
const std::string &flagString(const std::string &name);

/// A file's path as a program writes it: text in which `{name}` stands for
/// the value of string flag `name`, and `{{` and `}}` for braces
/// (`flag("data_dir", ...) + "train.gz"` is "{data_dir}train.gz").
std::string expandPath(const std::string &path);

/// encode(s, size=N): the first N bytes of `text` (a filled-in template)
/// into the 1-D u8 `out` of size N, zero-padded (TF's
/// decode_raw(fixed_length=N)).
void encodeText(const std::string &text, const TensorView &out);

/// Such a template with `value(name)` for each `{name}` (the compiler fills
/// in the flags' defaults with it).
std::string
expandTemplate(const std::string &text,
               const std::function<std::string(const std::string &)> &value);

/// Parses `--name=value` arguments against the declared flags. Returns 0 to
/// run, 1 after printing an error, or 2 after printing `--help`'s text.
int parseFlags(const std::string &program,
               const std::vector<std::string> &args);

/// A flag's value (its default unless given), as a 0-d tensor.
Tensor flagValue(const std::string &name);

/// Forgets every declared flag (between eager runs in one process).
void resetFlags();

} // namespace tflrt

#endif // TFLRT_FLAGS_H
