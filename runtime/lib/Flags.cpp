//===- Flags.cpp - Command-line flags of TFL programs ---------------------===//

#include "tflrt/Flags.h"
#include "tflrt/DataIO.h"

#include <cctype>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <stdexcept>

namespace tflrt {
namespace {

struct Flag {
  DType dtype;
  std::string defaultText, help, value;
  bool isString = false;
};

std::vector<std::string> &order() {
  static std::vector<std::string> names;
  return names;
}

std::map<std::string, Flag> &flags() {
  static std::map<std::string, Flag> table;
  return table;
}

/// Whether `text` is a value of `dtype` (a flag is i64, f32 or f64, or
/// bool): a whole number within i64's range, a float that does not
/// overflow its type, a boolean.
bool valid(const Flag &flag, const std::string &text) {
  if (flag.isString)
    return true;
  DType dtype = flag.dtype;
  if (text.empty() || std::isspace(static_cast<unsigned char>(text[0])))
    return false;
  char *end = nullptr;
  errno = 0;
  switch (dtype) {
  case DType::Bool:
    return text == "true" || text == "false" || text == "True" ||
           text == "False" || text == "1" || text == "0";
  case DType::F32:
    std::strtof(text.c_str(), &end);
    return *end == '\0' && errno != ERANGE;
  case DType::F64:
    std::strtod(text.c_str(), &end);
    return *end == '\0' && errno != ERANGE;
  default:
    std::strtoll(text.c_str(), &end, 10);
    return *end == '\0' && errno != ERANGE;
  }
}

void printHelp(std::FILE *out, const std::string &program) {
  std::fprintf(out, "usage: %s [flags]\n", program.c_str());
  for (const std::string &name : order()) {
    const Flag &f = flags()[name];
    std::fprintf(out, "  --%s=<%s>  %s (default %s)\n", name.c_str(),
                 f.isString ? "str" : dtypeName(f.dtype), f.help.c_str(),
                 f.isString ? ("\"" + f.defaultText + "\"").c_str()
                            : f.defaultText.c_str());
  }
  if (!flags().count("log_dir"))
    std::fprintf(out, "  --log_dir=<dir>  where log_scalar appends to "
                      "scalars.jsonl (default .)\n");
  std::fflush(out);
}

} // namespace

void declareFlag(const std::string &name, DType dtype,
                 const std::string &defaultText, const std::string &help) {
  if (!flags().count(name))
    order().push_back(name);
  flags()[name] = {dtype, defaultText, help, defaultText};
}

void declareFlag(const std::string &name, int code,
                 const std::string &defaultText, const std::string &help) {
  if (code != kStringFlag)
    return declareFlag(name, static_cast<DType>(code), defaultText, help);
  declareFlag(name, DType::U8, defaultText, help);
  flags()[name].isString = true;
}

const std::string &flagString(const std::string &name) {
  auto it = flags().find(name);
  if (it == flags().end() || !it->second.isString)
    throw std::runtime_error("string flag '" + name + "' was not declared");
  return it->second.value;
}

std::string
expandTemplate(const std::string &text,
               const std::function<std::string(const std::string &)> &value) {
  std::string out;
  for (size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    if ((c == '{' || c == '}') && i + 1 < text.size() && text[i + 1] == c) {
      out += c;
      ++i;
      continue;
    }
    size_t close = c == '{' ? text.find('}', i) : std::string::npos;
    if (close == std::string::npos) {
      out += c;
      continue;
    }
    out += value(text.substr(i + 1, close - i - 1));
    i = close;
  }
  return out;
}

std::string expandPath(const std::string &path) {
  return expandTemplate(path, flagString);
}

void encodeText(const std::string &text, const TensorView &out) {
  if (out.dtype != DType::U8 || out.rank() != 1)
    throw std::invalid_argument("encodeText: a 1-D u8 tensor holds the text");
  auto *bytes = static_cast<unsigned char *>(const_cast<void *>(out.data));
  for (int64_t i = 0; i < out.shape[0]; ++i)
    bytes[i * out.strides[0]] =
        i < static_cast<int64_t>(text.size())
            ? static_cast<unsigned char>(text[static_cast<size_t>(i)])
            : 0;
}

int parseFlags(const std::string &program,
               const std::vector<std::string> &args) {
  for (const std::string &arg : args) {
    if (arg == "--help" || arg == "-h") {
      printHelp(stdout, program);
      return 2;
    }
    // The runtime's own flag, unless the program declares one of its name.
    if (arg.rfind("--log_dir=", 0) == 0 && !flags().count("log_dir")) {
      setLogDir(arg.substr(10));
      continue;
    }
    size_t eq = arg.find('=');
    std::string name =
        arg.substr(2, eq == std::string::npos ? std::string::npos : eq - 2);
    auto it = flags().find(name);
    if (arg.rfind("--", 0) != 0 || it == flags().end()) {
      std::fprintf(stderr, "%s: error: unknown flag '%s'\n", program.c_str(),
                   arg.c_str());
      printHelp(stderr, program);
      return 1;
    }
    std::string value =
        eq == std::string::npos
            ? (it->second.dtype == DType::Bool && !it->second.isString ? "true"
                                                                       : "")
            : arg.substr(eq + 1);
    if (!valid(it->second, value)) {
      std::fprintf(stderr,
                   "%s: error: flag --%s takes a value of type %s, got "
                   "'%s'\n",
                   program.c_str(), name.c_str(),
                   it->second.isString ? "str" : dtypeName(it->second.dtype),
                   value.c_str());
      printHelp(stderr, program);
      return 1;
    }
    it->second.value = value;
  }
  return 0;
}

Tensor flagValue(const std::string &name) {
  auto it = flags().find(name);
  if (it == flags().end())
    throw std::runtime_error("flag '" + name + "' was not declared");
  const Flag &f = it->second;
  if (f.isString)
    throw std::runtime_error("flag '" + name + "' is a string");
  Tensor t(f.dtype, {});
  switch (f.dtype) {
  case DType::F32:
    t.data<float>()[0] = std::strtof(f.value.c_str(), nullptr);
    break;
  case DType::F64:
    t.data<double>()[0] = std::strtod(f.value.c_str(), nullptr);
    break;
  case DType::Bool:
    t.data<uint8_t>()[0] =
        f.value == "true" || f.value == "True" || f.value == "1";
    break;
  default:
    t.data<int64_t>()[0] = std::strtoll(f.value.c_str(), nullptr, 10);
  }
  return t;
}

void resetFlags() {
  flags().clear();
  order().clear();
}

} // namespace tflrt
