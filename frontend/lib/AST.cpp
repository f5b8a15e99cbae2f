//===- AST.cpp - The TFL abstract syntax tree -----------------------------===//
//
// Operator spellings and the `tflc emit ast` dump: one node per line,
// indented by depth, each with its source position.
//
//===----------------------------------------------------------------------===//

#include "tfl/Frontend/AST.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringSwitch.h"

#include "llvm/Support/Casting.h"
#include "llvm/Support/Format.h"

#include <charconv>

using llvm::cast;
using llvm::dyn_cast;
using llvm::isa;

namespace tfl::ast {

LambdaExpr::LambdaExpr(SourceRange r, std::unique_ptr<FuncDef> def)
    : ExprBase(r), def(std::move(def)) {}
LambdaExpr::~LambdaExpr() = default;

llvm::StringRef spelling(UnaryOp op) { return op == UnaryOp::Plus ? "+" : "-"; }

llvm::StringRef spelling(BinaryOp op) {
  switch (op) {
  case BinaryOp::Add:
    return "+";
  case BinaryOp::Sub:
    return "-";
  case BinaryOp::Mul:
    return "*";
  case BinaryOp::Div:
    return "/";
  case BinaryOp::FloorDiv:
    return "//";
  case BinaryOp::Mod:
    return "%";
  case BinaryOp::Pow:
    return "**";
  case BinaryOp::MatMul:
    return "@";
  }
  return "?";
}

llvm::StringRef spelling(CompareOp op) {
  switch (op) {
  case CompareOp::Lt:
    return "<";
  case CompareOp::Le:
    return "<=";
  case CompareOp::Gt:
    return ">";
  case CompareOp::Ge:
    return ">=";
  case CompareOp::Eq:
    return "==";
  case CompareOp::Ne:
    return "!=";
  case CompareOp::In:
    return "in";
  case CompareOp::NotIn:
    return "not in";
  }
  return "?";
}

static bool anyInLoop(const Block &block, bool breakOnly) {
  for (const StmtPtr &s : block) {
    if (isa<BreakStmt>(s.get()) || (!breakOnly && isa<ContinueStmt>(s.get())))
      return true;
    if (auto *i = dyn_cast<IfStmt>(s.get()))
      if (anyInLoop(i->body, breakOnly) || anyInLoop(i->orelse, breakOnly))
        return true;
    if (auto *w = dyn_cast<WithStmt>(s.get()))
      if (anyInLoop(w->body, breakOnly))
        return true;
  }
  return false;
}

static bool anyReturn(const Block &block) {
  for (const StmtPtr &s : block) {
    if (isa<ReturnStmt>(s.get()))
      return true;
    if (auto *i = dyn_cast<IfStmt>(s.get()))
      if (anyReturn(i->body) || anyReturn(i->orelse))
        return true;
    if (auto *f = dyn_cast<ForStmt>(s.get()))
      if (anyReturn(f->body))
        return true;
    if (auto *w = dyn_cast<WhileStmt>(s.get()))
      if (anyReturn(w->body))
        return true;
    if (auto *w = dyn_cast<WithStmt>(s.get()))
      if (anyReturn(w->body))
        return true;
  }
  return false;
}

std::optional<int64_t> intLiteral(const Expr *e) {
  if (auto *i = dyn_cast<IntExpr>(e))
    return i->value;
  if (auto *u = dyn_cast<UnaryExpr>(e))
    if (auto *i = dyn_cast<IntExpr>(u->operand.get()))
      return u->op == UnaryOp::Minus ? -i->value : i->value;
  return std::nullopt;
}

bool isLiteral(const Expr *e) {
  if (isa<IntExpr, FloatExpr, BoolExpr, StringExpr>(e))
    return true;
  if (auto *u = dyn_cast<UnaryExpr>(e))
    return isa<IntExpr, FloatExpr>(u->operand.get());
  if (auto *l = dyn_cast<ListExpr>(e))
    return llvm::all_of(l->elements,
                        [](const ExprPtr &x) { return isLiteral(x.get()); });
  if (auto *t = dyn_cast<TupleExpr>(e))
    return llvm::all_of(t->elements,
                        [](const ExprPtr &x) { return isLiteral(x.get()); });
  return false;
}

void collectTargetNames(const Expr *target, llvm::StringSet<> &out) {
  if (auto *name = dyn_cast<NameExpr>(target))
    out.insert(name->name);
  else if (auto *s = dyn_cast<StarredExpr>(target))
    collectTargetNames(s->value.get(), out);
  else if (auto *tuple = dyn_cast<TupleExpr>(target))
    for (const ExprPtr &e : tuple->elements)
      collectTargetNames(e.get(), out);
}

void collectAssigned(const Stmt *s, llvm::StringSet<> &out) {
  if (auto *a = dyn_cast<AssignStmt>(s)) {
    for (const ExprPtr &t : a->targets)
      collectTargetNames(t.get(), out);
  } else if (auto *a = dyn_cast<AugAssignStmt>(s)) {
    collectTargetNames(a->target.get(), out);
  } else if (auto *i = dyn_cast<IfStmt>(s)) {
    collectAssigned(i->body, out);
    collectAssigned(i->orelse, out);
  } else if (auto *f = dyn_cast<ForStmt>(s)) {
    collectTargetNames(f->target.get(), out);
    collectAssigned(f->body, out);
  } else if (auto *w = dyn_cast<WhileStmt>(s)) {
    collectAssigned(w->body, out);
  } else if (auto *w = dyn_cast<WithStmt>(s)) {
    collectAssigned(w->body, out);
  }
}

void collectAssigned(const Block &block, llvm::StringSet<> &out) {
  for (const StmtPtr &s : block)
    collectAssigned(s.get(), out);
}

bool namesParameter(llvm::StringRef keyword, llvm::StringRef param) {
  if (keyword == param)
    return true;
  return llvm::StringSwitch<llvm::StringRef>(param)
             .Case("axis", "dim")
             .Case("keepdims", "keepdim")
             .Case("ddof", "correction")
             .Default("") == keyword;
}

const Expr *argument(const CallExpr *call, size_t index, llvm::StringRef name) {
  if (index < call->args.size())
    return call->args[index].get();
  for (const Keyword &kw : call->keywords)
    if (namesParameter(kw.name, name))
      return kw.value.get();
  return nullptr;
}

BorrowedCall::BorrowedCall(const CallExpr &method, const Expr &receiver,
                           llvm::StringRef builtin, bool pack,
                           std::vector<ExprPtr> extra) {
  auto borrow = [&](const Expr *e) {
    borrowed.push_back(e);
    return ExprPtr(const_cast<Expr *>(e));
  };
  std::vector<ExprPtr> args;
  args.push_back(borrow(&receiver));
  if (pack && !method.args.empty()) {
    std::vector<ExprPtr> elements;
    for (const ExprPtr &a : method.args)
      elements.push_back(borrow(a.get()));
    SourceRange r{method.args.front()->getRange().begin,
                  method.args.back()->getRange().end};
    args.push_back(std::make_unique<TupleExpr>(r, std::move(elements)));
  } else {
    for (const ExprPtr &a : method.args)
      args.push_back(borrow(a.get()));
  }
  for (ExprPtr &e : extra)
    args.push_back(std::move(e));
  std::vector<Keyword> keywords;
  for (const Keyword &kw : method.keywords)
    keywords.push_back({kw.name, borrow(kw.value.get()), kw.range});
  call = std::make_unique<CallExpr>(
      method.getRange(),
      std::make_unique<NameExpr>(method.callee->getRange(), builtin.str()),
      std::move(args), std::move(keywords));
}

BorrowedCall::~BorrowedCall() {
  // Gives the borrowed nodes back before the call's own nodes go.
  auto giveBack = [&](ExprPtr &e) {
    if (llvm::is_contained(borrowed, e.get()))
      (void)e.release();
  };
  for (ExprPtr &a : call->args) {
    if (auto *tuple = dyn_cast<TupleExpr>(a.get());
        tuple && !llvm::is_contained(borrowed, a.get()))
      for (ExprPtr &e : tuple->elements)
        giveBack(e);
    giveBack(a);
  }
  for (Keyword &kw : call->keywords)
    giveBack(kw.value);
}

std::vector<const AnnAssignStmt *> fieldsOf(const ClassDef &cls) {
  std::vector<const AnnAssignStmt *> fields;
  for (const StmtPtr &s : cls.body)
    if (auto *field = dyn_cast<AnnAssignStmt>(s.get()))
      if (isa<NameExpr>(field->target.get()))
        fields.push_back(field);
  return fields;
}

const FuncDef *methodOf(const ClassDef &cls, llvm::StringRef name) {
  for (const StmtPtr &s : cls.body)
    if (auto *def = dyn_cast<FuncDef>(s.get()))
      if (def->name == name)
        return def;
  return nullptr;
}

bool mayExitLoop(const Stmt *stmt) {
  if (isa<BreakStmt, ContinueStmt, ReturnStmt>(stmt))
    return true;
  if (auto *i = dyn_cast<IfStmt>(stmt))
    return anyInLoop(i->body, false) || anyInLoop(i->orelse, false) ||
           anyReturn(i->body) || anyReturn(i->orelse);
  if (auto *w = dyn_cast<WithStmt>(stmt))
    return anyInLoop(w->body, false) || anyReturn(w->body);
  return false;
}

bool hasBreak(const Block &body) {
  return anyInLoop(body, true) || anyReturn(body);
}

bool mayReturn(const Stmt *stmt) {
  if (auto *i = dyn_cast<IfStmt>(stmt))
    return anyReturn(i->body) || anyReturn(i->orelse);
  if (auto *f = dyn_cast<ForStmt>(stmt))
    return anyReturn(f->body);
  if (auto *w = dyn_cast<WhileStmt>(stmt))
    return anyReturn(w->body);
  if (auto *w = dyn_cast<WithStmt>(stmt))
    return anyReturn(w->body);
  return false;
}

bool hasNestedReturn(const Block &body) {
  for (const StmtPtr &s : body)
    if (mayReturn(s.get()))
      return true;
  return false;
}

namespace {

/// The shortest decimal that reads back as `v` (Python's repr of a float).
std::string shortest(double v) {
  char buf[64];
  std::to_chars_result r = std::to_chars(buf, buf + sizeof(buf), v);
  return std::string(buf, r.ptr);
}

class Dumper {
public:
  explicit Dumper(llvm::raw_ostream &os) : os(os) {}

  void block(const Block &b, unsigned depth) {
    for (const StmtPtr &s : b)
      stmt(s.get(), depth);
  }

private:
  llvm::raw_ostream &line(unsigned depth, llvm::StringRef what, Position p) {
    os.indent(2 * depth) << what << " @" << p.line << ":" << p.col;
    return os;
  }

  void optExpr(const char *label, const ExprPtr &e, unsigned depth) {
    if (!e)
      return;
    os.indent(2 * depth) << label << ":\n";
    expr(e.get(), depth + 1);
  }

  void stmt(const Stmt *s, unsigned d) {
    Position p = s->getBegin();
    switch (s->getKind()) {
    case Stmt::Kind::Expr:
      line(d, "ExprStmt", p) << "\n";
      expr(cast<ExprStmt>(s)->value.get(), d + 1);
      return;
    case Stmt::Kind::Assign: {
      auto *a = cast<AssignStmt>(s);
      line(d, "Assign", p) << "\n";
      for (const ExprPtr &t : a->targets)
        optExpr("target", t, d + 1);
      optExpr("value", a->value, d + 1);
      return;
    }
    case Stmt::Kind::AnnAssign: {
      auto *a = cast<AnnAssignStmt>(s);
      line(d, "AnnAssign", p) << "\n";
      optExpr("target", a->target, d + 1);
      optExpr("annotation", a->annotation, d + 1);
      optExpr("value", a->value, d + 1);
      return;
    }
    case Stmt::Kind::AugAssign: {
      auto *a = cast<AugAssignStmt>(s);
      line(d, "AugAssign", p) << " " << spelling(a->op) << "=\n";
      optExpr("target", a->target, d + 1);
      optExpr("value", a->value, d + 1);
      return;
    }
    case Stmt::Kind::Return:
      line(d, "Return", p) << "\n";
      optExpr("value", cast<ReturnStmt>(s)->value, d + 1);
      return;
    case Stmt::Kind::Pass:
      line(d, "Pass", p) << "\n";
      return;
    case Stmt::Kind::Break:
      line(d, "Break", p) << "\n";
      return;
    case Stmt::Kind::Continue:
      line(d, "Continue", p) << "\n";
      return;
    case Stmt::Kind::Import:
      line(d, "Import", p);
      for (const ImportName &n : cast<ImportStmt>(s)->names)
        os << " " << n.name << (n.alias.empty() ? "" : " as " + n.alias);
      os << "\n";
      return;
    case Stmt::Kind::FromImport: {
      auto *f = cast<FromImportStmt>(s);
      line(d, "FromImport", p) << " " << f->module << ":";
      for (const ImportName &n : f->names)
        os << " " << n.name << (n.alias.empty() ? "" : " as " + n.alias);
      os << "\n";
      return;
    }
    case Stmt::Kind::Assert: {
      auto *a = cast<AssertStmt>(s);
      line(d, "Assert", p) << "\n";
      optExpr("cond", a->cond, d + 1);
      optExpr("message", a->message, d + 1);
      return;
    }
    case Stmt::Kind::If: {
      auto *i = cast<IfStmt>(s);
      line(d, "If", p) << "\n";
      optExpr("cond", i->cond, d + 1);
      os.indent(2 * (d + 1)) << "then:\n";
      block(i->body, d + 2);
      if (!i->orelse.empty()) {
        os.indent(2 * (d + 1)) << "else:\n";
        block(i->orelse, d + 2);
      }
      return;
    }
    case Stmt::Kind::While: {
      auto *w = cast<WhileStmt>(s);
      line(d, "While", p) << "\n";
      optExpr("cond", w->cond, d + 1);
      block(w->body, d + 1);
      return;
    }
    case Stmt::Kind::For: {
      auto *f = cast<ForStmt>(s);
      line(d, "For", p) << "\n";
      optExpr("target", f->target, d + 1);
      optExpr("iter", f->iter, d + 1);
      block(f->body, d + 1);
      return;
    }
    case Stmt::Kind::With: {
      auto *w = cast<WithStmt>(s);
      line(d, "With", p) << "\n";
      optExpr("context", w->context, d + 1);
      block(w->body, d + 1);
      return;
    }
    case Stmt::Kind::FuncDef: {
      auto *f = cast<FuncDef>(s);
      line(d, "FuncDef", p) << " " << f->name << "(";
      for (size_t i = 0; i < f->params.size(); ++i)
        os << (i ? ", " : "") << f->params[i].name;
      os << ")";
      for (const Decorator &dec : f->decorators)
        os << " @" << dec.name;
      os << "\n";
      for (const Param &param : f->params) {
        optExpr(("annotation of " + param.name).c_str(), param.annotation,
                d + 1);
        optExpr(("default of " + param.name).c_str(), param.defaultValue,
                d + 1);
      }
      optExpr("returns", f->returns, d + 1);
      block(f->body, d + 1);
      return;
    }
    case Stmt::Kind::ClassDef: {
      auto *c = cast<ClassDef>(s);
      line(d, "ClassDef", p) << " " << c->name << "\n";
      block(c->body, d + 1);
      return;
    }
    }
  }

  void expr(const Expr *e, unsigned d) {
    Position p = e->getBegin();
    switch (e->getKind()) {
    case Expr::Kind::Int:
      line(d, "Int", p) << " " << cast<IntExpr>(e)->value << "\n";
      return;
    case Expr::Kind::Float:
      line(d, "Float", p) << " " << shortest(cast<FloatExpr>(e)->value) << "\n";
      return;
    case Expr::Kind::Bool:
      line(d, "Bool", p) << (cast<BoolExpr>(e)->value ? " True" : " False")
                         << "\n";
      return;
    case Expr::Kind::None:
      line(d, "None", p) << "\n";
      return;
    case Expr::Kind::Ellipsis:
      line(d, "Ellipsis", p) << "\n";
      return;
    case Expr::Kind::String:
      line(d, "String", p) << " \"";
      os.write_escaped(cast<StringExpr>(e)->value) << "\"\n";
      return;
    case Expr::Kind::FString:
      line(d, "FString", p) << "\n";
      for (const FStringExpr::Part &part : cast<FStringExpr>(e)->parts) {
        if (!part.expr) {
          os.indent(2 * (d + 1)) << "text \"";
          os.write_escaped(part.text) << "\"\n";
          continue;
        }
        os.indent(2 * (d + 1))
            << "field" << (part.spec.empty() ? "" : " :") << part.spec << "\n";
        expr(part.expr.get(), d + 2);
      }
      return;
    case Expr::Kind::Name:
      line(d, "Name", p) << " " << cast<NameExpr>(e)->name << "\n";
      return;
    case Expr::Kind::List:
      line(d, "List", p) << "\n";
      for (const ExprPtr &c : cast<ListExpr>(e)->elements)
        expr(c.get(), d + 1);
      return;
    case Expr::Kind::Tuple:
      line(d, "Tuple", p) << "\n";
      for (const ExprPtr &c : cast<TupleExpr>(e)->elements)
        expr(c.get(), d + 1);
      return;
    case Expr::Kind::Unary:
      line(d, "Unary", p) << " " << spelling(cast<UnaryExpr>(e)->op) << "\n";
      expr(cast<UnaryExpr>(e)->operand.get(), d + 1);
      return;
    case Expr::Kind::Binary: {
      auto *b = cast<BinaryExpr>(e);
      line(d, "Binary", p) << " " << spelling(b->op) << "\n";
      expr(b->lhs.get(), d + 1);
      expr(b->rhs.get(), d + 1);
      return;
    }
    case Expr::Kind::Compare: {
      auto *c = cast<CompareExpr>(e);
      line(d, "Compare", p);
      for (CompareOp op : c->ops)
        os << " " << spelling(op);
      os << "\n";
      for (const ExprPtr &o : c->operands)
        expr(o.get(), d + 1);
      return;
    }
    case Expr::Kind::Not:
      line(d, "Not", p) << "\n";
      expr(cast<NotExpr>(e)->operand.get(), d + 1);
      return;
    case Expr::Kind::BoolOp: {
      auto *b = cast<BoolOpExpr>(e);
      line(d, "BoolOp", p) << (b->isAnd ? " and" : " or") << "\n";
      expr(b->lhs.get(), d + 1);
      expr(b->rhs.get(), d + 1);
      return;
    }
    case Expr::Kind::Cond: {
      auto *c = cast<CondExpr>(e);
      line(d, "Cond", p) << "\n";
      optExpr("cond", c->cond, d + 1);
      optExpr("then", c->thenExpr, d + 1);
      optExpr("else", c->elseExpr, d + 1);
      return;
    }
    case Expr::Kind::Call: {
      auto *c = cast<CallExpr>(e);
      line(d, "Call", p) << "\n";
      optExpr("callee", c->callee, d + 1);
      for (const ExprPtr &a : c->args)
        expr(a.get(), d + 1);
      for (const Keyword &kw : c->keywords)
        optExpr(kw.name.c_str(), kw.value, d + 1);
      return;
    }
    case Expr::Kind::Attribute:
      line(d, "Attribute", p) << " ." << cast<AttributeExpr>(e)->attr << "\n";
      expr(cast<AttributeExpr>(e)->value.get(), d + 1);
      return;
    case Expr::Kind::Subscript:
      line(d, "Subscript", p) << "\n";
      expr(cast<SubscriptExpr>(e)->value.get(), d + 1);
      for (const ExprPtr &i : cast<SubscriptExpr>(e)->indices)
        expr(i.get(), d + 1);
      return;
    case Expr::Kind::Slice: {
      auto *s = cast<SliceExpr>(e);
      line(d, "Slice", p) << "\n";
      optExpr("lo", s->lo, d + 1);
      optExpr("hi", s->hi, d + 1);
      optExpr("step", s->step, d + 1);
      return;
    }
    case Expr::Kind::Starred:
      line(d, "Starred", p) << "\n";
      expr(cast<StarredExpr>(e)->value.get(), d + 1);
      return;
    case Expr::Kind::Comprehension: {
      auto *c = cast<ComprehensionExpr>(e);
      line(d, "Comprehension", p) << "\n";
      expr(c->element.get(), d + 1);
      expr(c->target.get(), d + 1);
      expr(c->iter.get(), d + 1);
      return;
    }
    case Expr::Kind::Lambda: {
      auto *l = cast<LambdaExpr>(e);
      line(d, "Lambda", p);
      for (const Param &param : l->def->params)
        os << " " << param.name;
      os << "\n";
      block(l->def->body, d + 1);
      return;
    }
    }
  }

  llvm::raw_ostream &os;
};

} // namespace

void dump(const Module &module, llvm::raw_ostream &os) {
  os << "Module " << module.fileName << "\n";
  Dumper(os).block(module.body, 1);
}

} // namespace tfl::ast
