//===- Builtins.cpp - The built-in functions ------------------------------===//

#include "tfl/Frontend/Builtins.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringMap.h"

using namespace tfl;

namespace {

struct Entry {
  llvm::StringLiteral spelling;
  Builtin builtin;
  bool takesFloats;
};

const Entry kBuiltins[] = {
#define TFL_BUILTIN(Family, Name, Spelling)                                    \
  {Spelling, Family##Builtin::Name, false},
#define TFL_FLOAT_BUILTIN(Family, Name, Spelling)                              \
  {Spelling, Family##Builtin::Name, true},
#include "tfl/Frontend/Builtins.def"
};

const Entry &entryOf(const Builtin &b) {
  const Entry *e = llvm::find_if(
      kBuiltins, [&](const Entry &entry) { return entry.builtin == b; });
  assert(e != std::end(kBuiltins) && "a built-in of Builtins.def");
  return *e;
}

} // namespace

std::optional<Builtin> Builtin::named(llvm::StringRef name) {
  static const llvm::StringMap<Builtin> byName = [] {
    llvm::StringMap<Builtin> map;
    for (const Entry &e : kBuiltins)
      map.try_emplace(e.spelling, e.builtin);
    return map;
  }();
  auto it = byName.find(name);
  if (it == byName.end())
    return std::nullopt;
  return it->second;
}

llvm::StringRef Builtin::name() const { return entryOf(*this).spelling; }

bool Builtin::takesFloats() const { return entryOf(*this).takesFloats; }
