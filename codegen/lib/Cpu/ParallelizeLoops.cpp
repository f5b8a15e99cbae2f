//===- ParallelizeLoops.cpp - Marked loops onto OpenMP's threads ----------===//
//
// An scf.for marked `tfl.parallel` by tfl-vectorize-loops (its iterations
// are independent) becomes an outlined function over a range of its
// iterations and one call of `tflrt_parallel_for`, which splits the range
// among OpenMP's threads. The values the body uses from outside are stored
// in a stack struct in their LLVM form: a memref crosses as its descriptor
// struct through `builtin.unrealized_conversion_cast`, which the memref
// and func lowerings to LLVM pair with their own casts and
// reconcile-unrealized-casts removes.
//
//===----------------------------------------------------------------------===//

#include "tfl/Codegen/Passes.h"
#include "tfl/Codegen/RuntimeAbi.h"
#include "tfl/IR/TflOps.h"

#include "mlir/Conversion/LLVMCommon/TypeConverter.h"
#include "mlir/Dialect/UB/IR/UBOps.h"
#include "mlir/Transforms/RegionUtils.h"

namespace mlir::tfl {

#define GEN_PASS_DEF_PARALLELIZELOOPS
#include "tfl/Codegen/Passes.h.inc"

namespace {

/// Values cloned into the outlined function rather than passed.
bool isClonable(Value v) {
  Operation *def = v.getDefiningOp();
  return def && (def->hasTrait<mlir::OpTrait::ConstantLike>() ||
                 isa<ub::PoisonOp>(def));
}

/// The type a captured value has in the context struct, or null when it
/// cannot travel there.
Type fieldType(const LLVMTypeConverter &converter, Type type) {
  if (auto memref = dyn_cast<MemRefType>(type))
    return memref.getLayout().isIdentity() ||
                   isa<StridedLayoutAttr>(memref.getLayout())
               ? converter.convertType(type)
               : Type();
  if (auto vector = dyn_cast<VectorType>(type))
    return vector.getRank() == 1 && !vector.isScalable() ? type : Type();
  if (isa<IndexType, IntegerType, FloatType>(type))
    return converter.convertType(type);
  return Type();
}

/// `value` as `type`, through an unrealized cast when they differ.
Value castTo(OpBuilder &b, Location loc, Type type, Value value) {
  if (value.getType() == type)
    return value;
  return UnrealizedConversionCastOp::create(b, loc, type, value).getResult(0);
}

Value toI64(OpBuilder &b, Location loc, Value index) {
  return arith::IndexCastOp::create(b, loc, b.getI64Type(), index);
}

/// Outlines `loop` as `@name` and replaces it by a tflrt_parallel_for call;
/// false (the loop untouched) when a value it uses cannot be passed.
bool outline(scf::ForOp loop, StringRef name,
             const LLVMTypeConverter &converter) {
  MLIRContext *ctx = loop.getContext();
  Location loc = loop.getLoc();
  SetVector<Value> used;
  getUsedValuesDefinedAbove(loop.getRegion(), used);
  used.insert(loop.getStep());
  SmallVector<Value> fields, clones;
  SmallVector<Type> fieldTypes;
  for (Value v : used) {
    if (isClonable(v)) {
      clones.push_back(v);
      continue;
    }
    Type type = fieldType(converter, v.getType());
    if (!type)
      return false;
    fields.push_back(v);
    fieldTypes.push_back(type);
  }
  auto structType = LLVM::LLVMStructType::getLiteral(ctx, fieldTypes);
  auto ptrType = LLVM::LLVMPointerType::get(ctx);
  OpBuilder b(ctx);
  auto i64 = b.getI64Type();

  // The outlined function: unpack the context, run the loop over
  // [begin, end).
  auto module = loop->getParentOfType<ModuleOp>();
  b.setInsertionPointToEnd(module.getBody());
  auto fnType = b.getFunctionType({ptrType, i64, i64}, {});
  auto fn = func::FuncOp::create(b, loc, name, fnType);
  fn.setPrivate();
  Block *entry = fn.addEntryBlock();
  b.setInsertionPointToStart(entry);
  IRMapping mapping;
  for (Value v : clones)
    mapping.map(v, b.clone(*v.getDefiningOp())->getResult(0));
  for (auto [k, v] : llvm::enumerate(fields)) {
    Value address =
        LLVM::GEPOp::create(b, loc, ptrType, structType, entry->getArgument(0),
                            ArrayRef<LLVM::GEPArg>{0, static_cast<int32_t>(k)});
    Value field = LLVM::LoadOp::create(b, loc, fieldTypes[k], address);
    mapping.map(v, castTo(b, loc, v.getType(), field));
  }
  auto body = cast<scf::ForOp>(b.clone(*loop, mapping));
  body->removeAttr(kParallelLoopAttr);
  Type index = b.getIndexType();
  b.setInsertionPoint(body);
  body.setLowerBound(
      arith::IndexCastOp::create(b, loc, index, entry->getArgument(1)));
  body.setUpperBound(
      arith::IndexCastOp::create(b, loc, index, entry->getArgument(2)));
  b.setInsertionPointToEnd(entry);
  func::ReturnOp::create(b, loc);

  // The caller: the context struct on the stack (allocated once, in the
  // entry block, as the loop may itself be in a loop), then the call.
  auto caller = loop->getParentOfType<FunctionOpInterface>();
  b.setInsertionPointToStart(&caller.getFunctionBody().front());
  Value one = LLVM::ConstantOp::create(b, loc, i64, b.getI64IntegerAttr(1));
  Value context = LLVM::AllocaOp::create(b, loc, ptrType, structType, one);
  b.setInsertionPoint(loop);
  for (auto [k, v] : llvm::enumerate(fields)) {
    Value address =
        LLVM::GEPOp::create(b, loc, ptrType, structType, context,
                            ArrayRef<LLVM::GEPArg>{0, static_cast<int32_t>(k)});
    LLVM::StoreOp::create(b, loc, castTo(b, loc, fieldTypes[k], v), address);
  }
  Value fnRef =
      func::ConstantOp::create(b, loc, fnType, FlatSymbolRefAttr::get(fn));
  callRuntime(b, loop, "tflrt_parallel_for",
              {fnRef, context, toI64(b, loc, loop.getLowerBound()),
               toI64(b, loc, loop.getUpperBound()),
               toI64(b, loc, loop.getStep())});
  loop.erase();
  return true;
}

/// A hash of `fn`'s type and body (ops, attributes, types; not locations
/// or SSA names): equal for bodies isRegionEquivalentTo may call equal.
llvm::hash_code bodyHash(func::FuncOp fn) {
  llvm::hash_code hash = hash_value(fn.getFunctionType());
  fn.getBody().walk([&](Operation *op) {
    hash =
        llvm::hash_combine(hash, OperationEquivalence::computeHash(
                                     op, OperationEquivalence::ignoreHashValue,
                                     OperationEquivalence::ignoreHashValue,
                                     OperationEquivalence::IgnoreLocations));
  });
  return hash;
}

/// Outlined loops alike in every op (a model's layers repeat the same
/// kernels on the same shapes, forward and backward) become one function:
/// each duplicate's calls take the first, and the duplicate goes, so the
/// lowerings and LLVM compile each kernel once.
void mergeDuplicates(ModuleOp module, ArrayRef<func::FuncOp> outlined) {
  DenseMap<llvm::hash_code, SmallVector<func::FuncOp>> byHash;
  DenseMap<StringAttr, FlatSymbolRefAttr> replacement;
  for (func::FuncOp fn : outlined) {
    SmallVector<func::FuncOp> &alike = byHash[bodyHash(fn)];
    func::FuncOp *same = llvm::find_if(alike, [&](func::FuncOp other) {
      return other.getFunctionType() == fn.getFunctionType() &&
             OperationEquivalence::isRegionEquivalentTo(
                 &other.getBody(), &fn.getBody(),
                 OperationEquivalence::IgnoreLocations);
    });
    if (same == alike.end()) {
      alike.push_back(fn);
      continue;
    }
    replacement[fn.getSymNameAttr()] = FlatSymbolRefAttr::get(*same);
    fn.erase();
  }
  if (replacement.empty())
    return;
  module.walk([&](func::ConstantOp ref) {
    auto it = replacement.find(ref.getValueAttr().getAttr());
    if (it != replacement.end())
      ref.setValueAttr(it->second);
  });
}

struct ParallelizeLoopsPass : impl::ParallelizeLoopsBase<ParallelizeLoopsPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    SmallVector<scf::ForOp> loops;
    module.walk<WalkOrder::PreOrder>([&](scf::ForOp loop) {
      if (!loop->hasAttr(kParallelLoopAttr))
        return WalkResult::advance();
      loops.push_back(loop);
      return WalkResult::skip(); // one level of parallelism
    });
    LLVMTypeConverter converter(&getContext());
    unsigned counter = 0;
    SmallVector<func::FuncOp> outlined;
    for (scf::ForOp loop : loops) {
      loop->removeAttr(kParallelLoopAttr);
      if (loop.getNumResults() != 0)
        continue;
      std::string name;
      do
        name = "__tfl_parallel_" + std::to_string(counter++);
      while (module.lookupSymbol(name));
      auto parent = loop->getParentOfType<func::FuncOp>();
      if (!outline(loop, name, converter))
        continue;
      auto fn = module.lookupSymbol<func::FuncOp>(name);
      // Work placed on the CPU in a GPU program stays host code.
      if (Attribute device = parent->getAttr(kDeviceAttrName))
        fn->setAttr(kDeviceAttrName, device);
      outlined.push_back(fn);
    }
    mergeDuplicates(module, outlined);
  }
};

} // namespace

} // namespace mlir::tfl
