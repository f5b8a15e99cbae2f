//===- BufferAliases.cpp - Which memref values name the same buffer -------===//

#include "BufferAliases.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Interfaces/ViewLikeInterface.h"

namespace mlir::tfl {

static bool isMemref(Value v) { return isa<BaseMemRefType>(v.getType()); }

Operation *rootAllocation(Value memref) {
  while (Operation *def = memref.getDefiningOp()) {
    if (isa<memref::AllocaOp, memref::AllocOp>(def))
      return def;
    if (auto meta = dyn_cast<memref::ExtractStridedMetadataOp>(def)) {
      memref = meta.getSource();
      continue;
    }
    if (auto cast = dyn_cast<memref::CastOp>(def)) {
      memref = cast.getSource();
      continue;
    }
    auto view = dyn_cast<ViewLikeOpInterface>(def);
    if (!view)
      return nullptr;
    memref = view.getViewSource();
  }
  return nullptr;
}

Value BufferAliases::find(Value v) const {
  auto it = parent.find(v);
  if (it == parent.end())
    return v;
  Value root = v;
  while (true) {
    auto next = parent.find(root);
    if (next == parent.end() || next->second == root)
      break;
    root = next->second;
  }
  // Path compression.
  while (v != root) {
    Value up = parent[v];
    parent[v] = root;
    v = up;
  }
  return root;
}

void BufferAliases::unite(Value a, Value b) {
  if (!isMemref(a) || !isMemref(b))
    return;
  parent.try_emplace(a, a);
  parent.try_emplace(b, b);
  Value ra = find(a), rb = find(b);
  if (ra != rb)
    parent[rb] = ra;
}

BufferAliases::BufferAliases(func::FuncOp fn) {
  llvm::DenseSet<Value> explained;
  SmallVector<std::pair<Value, Operation *>> rootOf;
  // `defined` (a result or block argument whose origin is `other`) joins
  // other's class.
  auto same = [&](Value defined, Value other) {
    unite(defined, other);
    explained.insert(defined);
  };
  fn.walk([&](Operation *op) {
    if (isa<memref::AllocOp, memref::AllocaOp, memref::GetGlobalOp>(op)) {
      rootOf.push_back({op->getResult(0), op});
      explained.insert(op->getResult(0));
      parent.try_emplace(op->getResult(0), op->getResult(0));
      return;
    }
    if (auto meta = dyn_cast<memref::ExtractStridedMetadataOp>(op)) {
      same(meta.getBaseBuffer(), meta.getSource());
      return;
    }
    if (auto view = dyn_cast<ViewLikeOpInterface>(op)) {
      for (Value r : op->getResults())
        if (isMemref(r))
          same(r, view.getViewSource());
      return;
    }
    if (auto select = dyn_cast<arith::SelectOp>(op)) {
      if (isMemref(select.getResult())) {
        same(select.getResult(), select.getTrueValue());
        same(select.getResult(), select.getFalseValue());
      }
      return;
    }
    if (auto loop = dyn_cast<scf::ForOp>(op)) {
      for (auto [init, arg, result, yielded] :
           llvm::zip(loop.getInitArgs(), loop.getRegionIterArgs(),
                     loop.getResults(), loop.getYieldedValues())) {
        same(arg, init);
        same(result, init);
        unite(init, yielded);
      }
      return;
    }
    if (auto loop = dyn_cast<scf::WhileOp>(op)) {
      for (auto [init, arg] :
           llvm::zip(loop.getInits(), loop.getBeforeArguments()))
        same(arg, init);
      for (auto [yielded, arg] : llvm::zip(loop.getYieldOp().getOperands(),
                                           loop.getBeforeArguments()))
        unite(arg, yielded);
      for (auto [passed, after, result] :
           llvm::zip(loop.getConditionOp().getArgs(), loop.getAfterArguments(),
                     loop.getResults())) {
        same(after, passed);
        same(result, passed);
      }
      return;
    }
    if (auto branch = dyn_cast<scf::IfOp>(op)) {
      for (auto [i, result] : llvm::enumerate(branch.getResults())) {
        for (Region *region :
             {&branch.getThenRegion(), &branch.getElseRegion()})
          if (!region->empty())
            same(result, region->front().getTerminator()->getOperand(i));
      }
      return;
    }
    if (auto sw = dyn_cast<scf::IndexSwitchOp>(op)) {
      for (auto [i, result] : llvm::enumerate(sw.getResults()))
        for (Region &region : sw->getRegions())
          same(result, region.front().getTerminator()->getOperand(i));
      return;
    }
  });

  // Group the classes; every memref value left unexplained opens its class.
  auto record = [&](Value v) {
    if (!isMemref(v))
      return;
    parent.try_emplace(v, v);
  };
  fn.walk([&](Operation *op) {
    for (Value r : op->getResults())
      record(r);
    for (Region &region : op->getRegions())
      for (Block &block : region)
        for (BlockArgument arg : block.getArguments())
          record(arg);
  });
  for (BlockArgument arg : fn.getArguments())
    record(arg);
  SmallVector<Value> all;
  for (auto &entry : parent)
    all.push_back(entry.first);
  for (Value v : all) {
    Class &c = classes[find(v)];
    c.members.push_back(v);
    if (!explained.contains(v))
      c.open = true;
  }
  for (auto [value, op] : rootOf)
    classes[find(value)].roots.push_back(op);
}

Value BufferAliases::leader(Value v) const { return find(v); }

ArrayRef<Value> BufferAliases::members(Value v) const {
  auto it = classes.find(find(v));
  return it == classes.end() ? ArrayRef<Value>() : it->second.members;
}

ArrayRef<Operation *> BufferAliases::roots(Value v) const {
  auto it = classes.find(find(v));
  return it == classes.end() ? ArrayRef<Operation *>() : it->second.roots;
}

bool BufferAliases::isOpen(Value v) const {
  auto it = classes.find(find(v));
  return it == classes.end() || it->second.open;
}

bool BufferAliases::isHost(Value v) const {
  if (isOpen(v))
    return false;
  ArrayRef<Operation *> r = roots(v);
  return !r.empty() && llvm::all_of(r, [](Operation *op) {
    return op->hasAttr(kHostBufferAttr);
  });
}

llvm::DenseSet<Value> BufferAliases::hostValues() const {
  llvm::DenseSet<Value> result;
  for (auto &entry : classes)
    if (isHost(entry.first))
      result.insert(entry.second.members.begin(), entry.second.members.end());
  return result;
}

} // namespace mlir::tfl
