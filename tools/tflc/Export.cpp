//===- Export.cpp - A library's C API, header and Python module -----------===//

#include "Export.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/Path.h"

#include <functional>

namespace tfl::exports {

using llvm::cast;

namespace {

/// One tensor an export takes or writes.
struct Leaf {
  std::string name;   // in messages and checkpoints: "params.w"
  std::string access; // a C lvalue of type tfl_tensor
  std::string py;     // a Python expression of the value (arguments)
  Type type;
  bool output;
};

std::string fieldName(const ast::ClassDef &cls, size_t i) {
  return cast<ast::NameExpr>(ast::fieldsOf(cls)[i]->target.get())->name;
}

const char *numpyDtype(DType d) {
  switch (d) {
  case DType::F32:
    return "float32";
  case DType::F64:
    return "float64";
  case DType::I32:
    return "int32";
  case DType::I64:
    return "int64";
  case DType::U8:
    return "uint8";
  case DType::Bool:
    return "bool_";
  case DType::BF16:
    return "uint16"; // NumPy has no bfloat16: its bits
  case DType::F16:
    return "float16";
  }
  return "float32";
}

std::vector<const ast::ClassDef *> classesOf(const Program &program) {
  return program.exportedClasses();
}

/// The type of the exports' records of class `cls` (one per class: exports
/// take statically shaped records).
const Type *recordOf(const Program &program, const ast::ClassDef *cls) {
  const Type *record = nullptr;
  std::function<void(const Type &)> find = [&](const Type &t) {
    if (t.kind == Type::Kind::Record && t.cls == cls)
      record = &t;
    for (const Type &e : t.elements)
      find(e);
  };
  for (const Program::Export &e : program.exports) {
    for (const Type &t : e.spec->argTypes)
      find(t);
    find(e.spec->callType());
  }
  return record;
}

/// A struct member of type `t` named `name`.
std::string memberDecl(const Type &t, const std::string &name,
                       llvm::StringRef prefix, const std::string &indent) {
  if (t.isTensor())
    return indent + "tfl_tensor " + name + "; /* " + t.str() + " */\n";
  if (t.kind == Type::Kind::Record)
    return indent + prefix.str() + "_" + t.cls->name + " " + name + ";\n";
  std::string s = indent + "struct {\n";
  for (size_t i = 0; i < t.elements.size(); ++i)
    s += memberDecl(t.elements[i], "_" + std::to_string(i), prefix,
                    indent + "  ");
  return s + indent + "} " + name + ";\n";
}

/// The leaves of a value of type `t` at C lvalue `access`, named `name`,
/// read in Python by `py`.
void leavesOf(const Type &t, const std::string &access, const std::string &name,
              const std::string &py, bool output, std::vector<Leaf> &out) {
  if (t.isTensor()) {
    out.push_back({name, access, py, t, output});
    return;
  }
  for (size_t i = 0; i < t.elements.size(); ++i) {
    std::string member = t.kind == Type::Kind::Record ? fieldName(*t.cls, i)
                                                      : "_" + std::to_string(i);
    std::string key =
        t.kind == Type::Kind::Record ? fieldName(*t.cls, i) : std::to_string(i);
    std::string pyKey = t.kind == Type::Kind::Record ? "\"" + key + "\"" : key;
    leavesOf(t.elements[i], access + "." + member,
             name.empty() ? key : name + "." + key,
             "_field(" + py + ", " + pyKey + ")", output, out);
  }
}

/// A C parameter (or several, for a tuple) for a value of type `t`.
void cParams(const Type &t, const std::string &name, bool output,
             llvm::StringRef prefix, std::vector<std::string> &params,
             std::vector<Leaf> &leaves, const std::string &leafName,
             const std::string &py) {
  std::string constness = output ? "" : "const ";
  if (t.isTensor()) {
    params.push_back(constness + "tfl_tensor *" + name);
    leaves.push_back({leafName, "(*" + name + ")", py, t, output});
    return;
  }
  if (t.kind == Type::Kind::Record) {
    params.push_back(constness + prefix.str() + "_" + t.cls->name + " *" +
                     name);
    leavesOf(t, "(*" + name + ")", leafName, py, output, leaves);
    return;
  }
  for (size_t i = 0; i < t.elements.size(); ++i)
    cParams(t.elements[i], name + "_" + std::to_string(i), output, prefix,
            params, leaves, leafName + "." + std::to_string(i),
            "_field(" + py + ", " + std::to_string(i) + ")");
}

struct Signature {
  std::vector<std::string> params;
  std::vector<Leaf> leaves;
  std::string text; // predict(params: Dense, x: f32[64, 784]) -> f32[64, 10]
};

Signature signatureOf(const Program::Export &e, llvm::StringRef prefix) {
  Signature s;
  const Specialization &spec = *e.spec;
  s.text = e.name + "(";
  for (size_t i = 0; i < spec.argTypes.size(); ++i) {
    cParams(spec.argTypes[i], e.params[i], false, prefix, s.params, s.leaves,
            e.params[i], e.params[i]);
    s.text += (i ? ", " : "") + e.params[i] + ": " + spec.argTypes[i].str();
  }
  s.text += ") -> " + spec.callType().str();
  cParams(spec.callType(), "result", true, prefix, s.params, s.leaves, "result",
          "result");
  return s;
}

/// The dims of `t`, comma-separated; a `?` (kDynamicDim) dim is -1, or
/// `dynamic` when given.
std::string shapeList(const Type &t, const std::string &dynamic = "") {
  std::string s;
  for (size_t i = 0; i < t.shape.size(); ++i)
    s += (i ? ", " : "") + (t.shape[i] == kDynamicDim && !dynamic.empty()
                                ? dynamic
                                : std::to_string(t.shape[i]));
  return s;
}

/// A Python expression building the value of type `t` from `outs[next..]`.
std::string pyResult(const Type &t, size_t &next) {
  if (t.isTensor())
    return "outs[" + std::to_string(next++) + "]";
  std::string s = t.kind == Type::Kind::Record ? "{" : "(";
  for (size_t i = 0; i < t.elements.size(); ++i) {
    if (i)
      s += ", ";
    if (t.kind == Type::Kind::Record)
      s += "\"" + fieldName(*t.cls, i) + "\": ";
    s += pyResult(t.elements[i], next);
  }
  if (t.kind == Type::Kind::Tuple && t.elements.size() == 1)
    s += ",";
  return s + (t.kind == Type::Kind::Record ? "}" : ")");
}

std::string leafTable(const std::string &name,
                      const std::vector<Leaf> &leaves) {
  std::string s;
  for (size_t k = 0; k < leaves.size(); ++k)
    if (!leaves[k].type.shape.empty())
      s += "static const int64_t " + name + "_shape" + std::to_string(k) +
           "[] = {" + shapeList(leaves[k].type) + "};\n";
  s += "static const tflrt_export_leaf " + name + "_leaves[] = {\n";
  for (size_t k = 0; k < leaves.size(); ++k) {
    const Leaf &l = leaves[k];
    s += "    {\"" + l.name + "\", " +
         std::to_string(static_cast<int>(l.type.dtype)) + ", " +
         (l.output ? "1" : "0") + ", " + std::to_string(l.type.rank()) + ", " +
         (l.type.shape.empty() ? std::string("0")
                               : name + "_shape" + std::to_string(k)) +
         "},\n";
  }
  return s + "};\n";
}

} // namespace

std::string prefixFor(llvm::StringRef outputPath) {
  llvm::StringRef stem = llvm::sys::path::filename(outputPath);
  stem = stem.split('.').first;
  if (stem.starts_with("lib") && stem.size() > 3)
    stem = stem.drop_front(3);
  std::string prefix;
  for (char c : stem)
    prefix += llvm::isAlnum(c) ? c : '_';
  if (prefix.empty() || llvm::isDigit(prefix.front()))
    prefix = "m" + prefix;
  return prefix;
}

std::string header(const Program &program, llvm::StringRef prefix,
                   llvm::StringRef sourceName) {
  std::string guard = llvm::StringRef(prefix).upper() + "_H";
  std::string s = "/* " + prefix.str() + ".h: the functions " +
                  sourceName.str() +
                  " exports (made by tflc build --shared; do not edit). */\n"
                  "#ifndef " +
                  guard + "\n#define " + guard + "\n\n#include <stdint.h>\n\n" +
                  "#ifdef __cplusplus\nextern \"C\" {\n#endif\n\n";
  s += "#ifndef TFL_TENSOR_DEFINED\n#define TFL_TENSOR_DEFINED\n"
       "/* A tensor the caller owns: `data` points to its elements, row-major\n"
       "   and contiguous; `shape` to its `rank` sizes. Arguments are read in\n"
       "   place; a result is written into the caller's tensor, whose shape\n"
       "   must be the result's. A `?` dim in a signature is the call's batch\n"
       "   size: any size, the same in each of the call's tensors (results\n"
       "   too). */\n"
       "typedef struct tfl_tensor {\n  void *data;\n  int64_t rank;\n"
       "  const int64_t *shape;\n} tfl_tensor;\n#endif\n\n";
  for (const ast::ClassDef *cls : classesOf(program)) {
    s += "/* class " + cls->name + " */\ntypedef struct " + prefix.str() + "_" +
         cls->name + " {\n";
    std::vector<const ast::AnnAssignStmt *> fields = ast::fieldsOf(*cls);
    const Type *record = recordOf(program, cls);
    for (size_t i = 0; i < fields.size(); ++i)
      s += memberDecl(record->elements[i], fieldName(*cls, i), prefix, "  ");
    s += "} " + prefix.str() + "_" + cls->name + ";\n\n";
  }
  for (const Program::Export &e : program.exports) {
    Signature sig = signatureOf(e, prefix);
    s += "/* " + sig.text + "\n   Returns 0, or 1 with " + prefix.str() +
         "_last_error() saying why. */\n";
    s += "int " + prefix.str() + "_" + e.name + "(" +
         llvm::join(sig.params, ", ") + ");\n\n";
  }
  for (const ast::ClassDef *cls : classesOf(program))
    s += "/* Reads a " + cls->name +
         " from a safetensors checkpoint that save() wrote into `out`'s\n"
         "   tensors: 0, or 1 with the reason in " +
         prefix.str() + "_last_error(). */\nint " + prefix.str() + "_load_" +
         cls->name + "(const char *path, " + prefix.str() + "_" + cls->name +
         " *out);\n\n";
  s += "/* Why this thread's last call failed (\"file.tfl:LINE:COL: error: "
       "...\"). */\nconst char *" +
       prefix.str() + "_last_error(void);\n\n";
  s += "#ifdef __cplusplus\n}\n#endif\n\n#endif /* " + guard + " */\n";
  return s;
}

std::string wrapperSource(const Program &program, llvm::StringRef prefix) {
  std::string p = prefix.str();
  // libtflrt's export ABI, then the header's declarations.
  std::string s =
      "/* The C API of a TFL library (made by tflc build --shared). */\n"
      "#include \"tflrt/CApi.h\"\n\n" +
      header(program, prefix, "the program") + "\n";
  for (const Program::Export &e : program.exports) {
    Signature sig = signatureOf(e, prefix);
    size_t n = sig.leaves.size();
    std::string entry = "_mlir_ciface_tfl_export_" + e.name;
    std::vector<std::string> voids(n, "void *"), uses;
    for (size_t k = 0; k < n; ++k)
      uses.push_back("d[" + std::to_string(k) + "]");
    s += "void " + entry + "(" + llvm::join(voids, ", ") + ");\n";
    s += "static void " + e.name + "_entry(void **d) {\n  " + entry + "(" +
         llvm::join(uses, ", ") + ");\n}\n";
    s += leafTable(e.name, sig.leaves);
    s += "static const tflrt_export " + e.name + "_export = {\"" + e.name +
         "\", " + std::to_string(n) + ", " + e.name + "_leaves, " + e.name +
         "_entry};\n";
    std::vector<std::string> accesses;
    for (const Leaf &l : sig.leaves)
      accesses.push_back("&" + l.access);
    s += "int " + p + "_" + e.name + "(" + llvm::join(sig.params, ", ") +
         ") {\n  const tfl_tensor *tensors[] = {" + llvm::join(accesses, ", ") +
         "};\n  return tflrt_export_call(&" + e.name +
         "_export, tensors);\n}\n";
    s += "int " + p + "_" + e.name +
         "_leaves(const tfl_tensor *const *tensors) {\n  return "
         "tflrt_export_call(&" +
         e.name + "_export, tensors);\n}\n\n";
  }
  for (const ast::ClassDef *cls : classesOf(program)) {
    // The leaves as save() names them: fields by name, tuples by index.
    const Type *record = recordOf(program, cls);
    std::vector<Leaf> leaves;
    leavesOf(*record, "(*out)", "", "", true, leaves);
    std::string name = "load_" + cls->name;
    s += leafTable(name, leaves);
    std::vector<std::string> accesses;
    for (const Leaf &l : leaves)
      accesses.push_back("&" + l.access);
    s += "int " + p + "_" + name + "(const char *path, " + p + "_" + cls->name +
         " *out) {\n  const tfl_tensor *tensors[] = {" +
         llvm::join(accesses, ", ") + "};\n  return tflrt_export_load(path, " +
         std::to_string(leaves.size()) + ", " + name +
         "_leaves, tensors);\n}\n";
    s += "int " + p + "_" + name +
         "_leaves(const char *path, const tfl_tensor *const *tensors) {\n"
         "  return tflrt_export_load(path, " +
         std::to_string(leaves.size()) + ", " + name +
         "_leaves, tensors);\n}\n\n";
  }
  s += "const char *" + p +
       "_last_error(void) { return tflrt_export_last_error(); }\n";
  return s;
}

std::string versionScript(llvm::StringRef prefix) {
  return "{\n  global: " + prefix.str() + "_*;\n  local: *;\n};\n";
}

std::string pythonModule(const Program &program, llvm::StringRef prefix,
                         llvm::StringRef libraryName,
                         llvm::StringRef sourceName) {
  std::string p = prefix.str();
  std::string s =
      "\"\"\"" + p + ": the functions " + sourceName.str() +
      " exports, on NumPy arrays.\n\n"
      "Made by tflc build --shared --python; do not edit. Records are dicts\n"
      "of arrays (any object with the fields as attributes is taken too);\n"
      "arguments are converted to the dtypes the signatures give when NumPy\n"
      "casts them safely; a run-time error raises TFLError with the .tfl\n"
      "line.\n\"\"\"\n\n"
      "import ctypes as _ct\nimport os as _os\n\nimport numpy as _np\n\n"
      "_lib = _ct.CDLL(_os.path.join(_os.path.dirname(_os.path.abspath("
      "__file__)),\n                            \"" +
      libraryName.str() +
      "\"))\n\n\n"
      "class TFLError(RuntimeError):\n"
      "    \"\"\"A run-time error in the library; the message names the "
      ".tfl line.\"\"\"\n\n\n"
      "class _Tensor(_ct.Structure):\n"
      "    _fields_ = [(\"data\", _ct.c_void_p), (\"rank\", _ct.c_int64),\n"
      "                (\"shape\", _ct.POINTER(_ct.c_int64))]\n\n\n"
      "_lib." +
      p +
      "_last_error.restype = _ct.c_char_p\n\n\n"
      "def _field(value, key):\n"
      "    if isinstance(value, dict) or isinstance(key, int):\n"
      "        return value[key]\n"
      "    return getattr(value, key)\n\n\n"
      "def _array(value, dtype, shape, name, fn, typename, batch):\n"
      "    a = _np.asarray(value)\n"
      "    if a.dtype != dtype:\n"
      "        if not _np.can_cast(a.dtype, dtype, casting=\"same_kind\"):\n"
      "            raise TypeError(f\"{fn}(): argument '{name}' is {a.dtype}, "
      "but it is {typename}\")\n"
      "        a = a.astype(dtype)\n"
      "    # A None dim (a ? in the signature) is the call's batch size: the\n"
      "    # first argument with one gives it, the others agree.\n"
      "    if len(a.shape) == len(shape):\n"
      "        for i, d in enumerate(shape):\n"
      "            if d is None and batch[0] is None:\n"
      "                batch[:] = [a.shape[i], name]\n"
      "        shape = tuple(batch[0] if d is None else d for d in shape)\n"
      "    if a.shape != shape:\n"
      "        also = \"\" if batch[0] is None or batch[1] == name else (\n"
      "            f\", with ? the batch size {batch[0]} that argument \"\n"
      "            f\"'{batch[1]}' gives\")\n"
      "        raise ValueError(f\"{fn}(): argument '{name}' has shape \"\n"
      "                         f\"{a.shape}, but it is {typename}{also}\")\n"
      "    if not a.flags.c_contiguous:\n"
      "        a = _np.array(a, order=\"C\")  # (0-d arrays stay 0-d)\n"
      "    return a\n\n\n"
      "def _tensors(arrays):\n"
      "    n = len(arrays)\n"
      "    tensors = (_Tensor * n)()\n"
      "    shapes = []\n"
      "    for k, a in enumerate(arrays):\n"
      "        shape = (_ct.c_int64 * max(a.ndim, 1))(*a.shape)\n"
      "        shapes.append(shape)\n"
      "        tensors[k].data = a.ctypes.data\n"
      "        tensors[k].rank = a.ndim\n"
      "        tensors[k].shape = shape\n"
      "    base = _ct.addressof(tensors)\n"
      "    size = _ct.sizeof(_Tensor)\n"
      "    pointers = (_ct.c_void_p * n)(*[base + k * size for k in "
      "range(n)])\n"
      "    return pointers, (tensors, shapes, arrays)\n\n\n"
      "def _call(function, arrays, *first):\n"
      "    pointers, keep = _tensors(arrays)\n"
      "    if function(*first, pointers) != 0:\n"
      "        raise TFLError(_lib." +
      p + "_last_error().decode())\n\n";
  for (const Program::Export &e : program.exports) {
    Signature sig = signatureOf(e, prefix);
    std::string fn = p + "_" + e.name + "_leaves";
    s += "\n_lib." + fn + ".argtypes = [_ct.c_void_p]\n\n\n";
    s += "def " + e.name + "(" + llvm::join(e.params, ", ") + "):\n";
    s += "    \"\"\"" + sig.text + "\"\"\"\n";
    s += "    batch = [None, None]\n    args = [\n";
    std::vector<std::string> outs;
    for (const Leaf &l : sig.leaves) {
      std::string tail = l.type.rank() == 1 ? ",)" : ")";
      if (l.output) {
        outs.push_back("_np.empty((" + shapeList(l.type, "batch[0]") + tail +
                       ", _np." + numpyDtype(l.type.dtype) + ")");
        continue;
      }
      s += "        _array(" + l.py + ", _np." + numpyDtype(l.type.dtype) +
           ", (" + shapeList(l.type, "None") + tail + ", \"" + l.name +
           "\", \"" + e.name + "\", \"" + l.type.str() + "\", batch),\n";
    }
    s += "    ]\n    outs = [" + llvm::join(outs, ", ") + "]\n";
    s += "    _call(_lib." + fn + ", args + outs)\n";
    size_t next = 0;
    s += "    return " + pyResult(e.spec->callType(), next) + "\n\n";
  }
  for (const ast::ClassDef *cls : classesOf(program)) {
    const Type *record = recordOf(program, cls);
    std::vector<Leaf> leaves;
    leavesOf(*record, "(*out)", "", "", true, leaves);
    std::string fn = p + "_load_" + cls->name + "_leaves";
    s += "\n_lib." + fn + ".argtypes = [_ct.c_char_p, _ct.c_void_p]\n\n\n";
    s += "def load_" + cls->name + "(path):\n";
    s += "    \"\"\"A " + cls->name +
         " (a dict of arrays) read from a safetensors checkpoint that "
         "save() wrote.\"\"\"\n";
    std::vector<std::string> outs;
    for (const Leaf &l : leaves)
      outs.push_back("_np.empty((" + shapeList(l.type) +
                     (l.type.rank() == 1 ? ",)" : ")") + ", _np." +
                     numpyDtype(l.type.dtype) + ")");
    s += "    outs = [" + llvm::join(outs, ", ") + "]\n";
    s += "    _call(_lib." + fn + ", outs, _os.fsencode(path))\n";
    size_t next = 0;
    s += "    return " + pyResult(*record, next) + "\n\n";
  }
  return s;
}

} // namespace tfl::exports
