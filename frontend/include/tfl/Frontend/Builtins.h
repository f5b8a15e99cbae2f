//===- Builtins.h - The built-in functions ----------------------*- C++ -*-===//
//
// The built-ins of Builtins.def as values: a family and one enum per
// family (MathBuiltin, ShapeBuiltin, ...), so that each family's code
// switches over exactly its members.
//
//===----------------------------------------------------------------------===//

#ifndef TFL_FRONTEND_BUILTINS_H
#define TFL_FRONTEND_BUILTINS_H

#include "llvm/ADT/StringRef.h"

#include <cassert>
#include <cstdint>
#include <optional>

namespace tfl {

enum class BuiltinFamily : uint8_t {
#define TFL_FAMILY(Family) Family,
#include "tfl/Frontend/Builtins.def"
};

#define TFL_FAMILY(Family) enum class Family##Builtin : uint8_t {
#define TFL_BUILTIN(Family, Name, Spelling) Name,
#define TFL_FAMILY_END(Family)                                                 \
  }                                                                            \
  ;
#include "tfl/Frontend/Builtins.def"

/// The family of a family's enum.
template <typename E> struct FamilyOf;
#define TFL_FAMILY(Family)                                                     \
  template <> struct FamilyOf<Family##Builtin> {                               \
    static constexpr BuiltinFamily value = BuiltinFamily::Family;              \
  };
#include "tfl/Frontend/Builtins.def"

/// One built-in function.
class Builtin {
public:
  template <typename E>
  Builtin(E member) // NOLINT: each family's enum converts
      : family_(FamilyOf<E>::value), member_(static_cast<uint8_t>(member)) {}

  /// The built-in spelled `name`, if there is one.
  static std::optional<Builtin> named(llvm::StringRef name);

  BuiltinFamily family() const { return family_; }
  /// This built-in as a member of its family's enum E.
  template <typename E> E as() const {
    assert(FamilyOf<E>::value == family_ && "a built-in of another family");
    return static_cast<E>(member_);
  }
  /// Whether this is `member`.
  template <typename E> bool is(E member) const {
    return FamilyOf<E>::value == family_ &&
           static_cast<uint8_t>(member) == member_;
  }
  /// Whether this is one of `members`.
  template <typename... E> bool isAny(E... members) const {
    return (is(members) || ...);
  }
  llvm::StringRef name() const;
  /// Whether its argument must be a float (TFL_FLOAT_BUILTIN).
  bool takesFloats() const;
  /// Whether its result holds values known when compiling, which a
  /// variable bound to it keeps (shape, size, world_size, len, zip,
  /// enumerate).
  bool givesKnownValues() const {
    return isAny(ShapeBuiltin::ShapeOf, ShapeBuiltin::Size,
                 ParallelBuiltin::WorldSize, SequenceBuiltin::Len,
                 SequenceBuiltin::Zip, SequenceBuiltin::Enumerate);
  }

  bool operator==(const Builtin &o) const {
    return family_ == o.family_ && member_ == o.member_;
  }

private:
  BuiltinFamily family_;
  uint8_t member_;
};

} // namespace tfl

#endif // TFL_FRONTEND_BUILTINS_H
