//===- CheckGrad.cpp - The finite-difference gradient checker -------------===//

#include "CheckGrad.h"

#include "llvm/Support/Casting.h"
#include "llvm/Support/FormatVariadic.h"

#include <vector>

using namespace tfl;
using namespace tfl::ast;

namespace {

/// An argument's shape from its annotation (`f32[3, 4]`, `f64`).
llvm::Expected<std::vector<int64_t>> shapeOf(const Param &p,
                                             llvm::StringRef function) {
  auto fail = [&](llvm::StringRef why) {
    return llvm::createStringError(
        llvm::formatv("check-grad: argument '{0}' of {1}() {2}", p.name,
                      function, why)
            .str());
  };
  if (!p.annotation)
    return fail("needs an annotation giving its shape (e.g. f32[3, 4])");
  const Expr *dtype = p.annotation.get();
  std::vector<int64_t> shape;
  if (auto *sub = llvm::dyn_cast<SubscriptExpr>(dtype)) {
    dtype = sub->value.get();
    for (const ExprPtr &d : sub->indices) {
      auto *i = llvm::dyn_cast<IntExpr>(d.get());
      if (!i)
        return fail("needs integer dims in its annotation");
      shape.push_back(i->value);
    }
  }
  auto *name = llvm::dyn_cast<NameExpr>(dtype);
  if (!name || (name->name != "f32" && name->name != "f64"))
    return fail("must be a float tensor (f32 or f64)");
  return shape;
}

std::string tupleText(const std::vector<int64_t> &shape) {
  std::string s = "(";
  for (int64_t d : shape)
    s += std::to_string(d) + ", ";
  return s + ")";
}

/// Whether a top-level statement only defines something (and is kept).
bool defines(const Stmt *s) {
  if (llvm::isa<FuncDef, ClassDef, ImportStmt, FromImportStmt, PassStmt>(s))
    return true;
  auto *e = llvm::dyn_cast<ExprStmt>(s);
  return e && llvm::isa<StringExpr>(e->value.get());
}

} // namespace

llvm::Expected<std::string> tfl::makeGradCheck(const Module &module,
                                               llvm::StringRef source,
                                               llvm::StringRef function,
                                               int64_t seed, double tolerance) {
  const FuncDef *f = nullptr;
  for (const StmtPtr &s : module.body)
    if (auto *def = llvm::dyn_cast<FuncDef>(s.get());
        def && def->name == function)
      f = def;
  if (!f)
    return llvm::createStringError(
        ("check-grad: no top-level function '" + function + "'").str());
  std::vector<std::vector<int64_t>> shapes;
  for (const Param &p : f->params) {
    llvm::Expected<std::vector<int64_t>> shape = shapeOf(p, function);
    if (!shape)
      return shape.takeError();
    shapes.push_back(*shape);
  }

  // The definitions, with the script's own statements blanked out.
  llvm::SmallVector<llvm::StringRef> lines;
  source.split(lines, '\n');
  std::vector<bool> keep(lines.size(), true);
  for (const StmtPtr &s : module.body)
    if (!defines(s.get()))
      for (size_t l = s->getRange().begin.line; l <= s->getRange().end.line;
           ++l)
        if (l >= 1 && l <= lines.size())
          keep[l - 1] = false;
  std::string text;
  for (size_t i = 0; i < lines.size(); ++i)
    text += (keep[i] ? lines[i].str() : std::string()) + "\n";

  // The driver.
  size_t n = f->params.size();
  std::string args, argnums;
  text += "\n# check-grad\nseed(" + std::to_string(seed) + ")\n";
  for (size_t i = 0; i < n; ++i) {
    text += llvm::formatv("__x{0} = cast(random_normal({1}), f64)\n", i,
                          tupleText(shapes[i]))
                .str();
    args += (i ? ", __x" : "__x") + std::to_string(i);
    argnums += std::to_string(i) + ", ";
  }
  text += llvm::formatv("__g = grad({0}, argnums=({1}))({2})\n", function,
                        argnums, args)
              .str();
  for (size_t i = 0; i < n; ++i) {
    int64_t size = 1;
    for (int64_t d : shapes[i])
      size *= d;
    std::string up, down;
    for (size_t j = 0; j < n; ++j) {
      std::string a = "__x" + std::to_string(j);
      up += (j ? ", " : "") + (j == i ? a + " + 1e-6 * __e" : a);
      down += (j ? ", " : "") + (j == i ? a + " - 1e-6 * __e" : a);
    }
    text += llvm::formatv(
                "__worst = cast(0.0, f64)\n"
                "for __k in range({0}):\n"
                "    __e = reshape(cast(one_hot(__k, {0}), f64), {1})\n"
                "    __fd = ({2}({3}) - {2}({4})) / 2e-6\n"
                "    __worst = maximum(__worst, abs(__fd - sum(__g[{5}] * "
                "__e)))\n"
                "__scale = maximum(cast(1.0, f64), max(abs(__g[{5}])))\n"
                "print(f\"{2}: argument '{6}': max |analytic - numeric| = "
                "{{__worst:.3e} (relative {{__worst / __scale:.3e})\")\n"
                "assert __worst / __scale < {7}, \"the gradient with respect "
                "to '{6}' differs from finite differences\"\n",
                size, tupleText(shapes[i]), function, up, down, i,
                f->params[i].name, llvm::formatv("{0:e}", tolerance).str())
                .str();
  }
  return text;
}
