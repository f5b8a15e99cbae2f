//===- ConvBias.cpp - A convolution's bias inside its oneDNN calls --------===//
//
// On the CPU, after bufferization, a conv layer's bias moves into oneDNN's
// convolution primitives, which handle it as they pass over the data:
//
// - forward: a convolution's fresh result that only one elementwise loop
//   reads, adding a bias over the output channels into a buffer of its
//   own, becomes one `tflrt_conv2d_bias_f32` call that writes that buffer
//   (the intermediate buffer and a pass over it go). A relu after the bias
//   (max with +0.0) folds in too, as `tflrt_conv2d_bias_relu_f32`: TFL's
//   kernels apply it as they store their results, and after oneDNN's
//   kernels libtflrt applies it itself (oneDNN's relu post-op would make
//   NaN 0, where max keeps it).
// - backward: the bias's gradient, a loop summing the result's cotangent
//   dy over N, H and W into a [O] buffer, comes from the filter gradient's
//   call reading the same dy (`tflrt_conv2d_backward_filter_bias_f32`,
//   oneDNN's diff_bias) and is added to that buffer, 16 or so elements,
//   instead of a pass over dy.
//
//===----------------------------------------------------------------------===//

#include "tfl/Codegen/Passes.h"
#include "tfl/Codegen/RuntimeAbi.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

namespace mlir::tfl {

#define GEN_PASS_DEF_CONVBIAS
#include "tfl/Codegen/Passes.h.inc"

namespace {

/// The value under casts (to the unranked memrefs of calls).
Value uncast(Value v) {
  while (auto cast = v.getDefiningOp<memref::CastOp>())
    v = cast.getSource();
  return v;
}

/// The map of a bias over the channels of a 4-D loop: (n, h, w, c) -> (c).
AffineMap channelMap(MLIRContext *ctx) {
  return AffineMap::get(4, 0, getAffineDimExpr(3, ctx));
}

bool isF32Vector(Value v) {
  auto type = dyn_cast<MemRefType>(v.getType());
  return type && type.getRank() == 1 && type.getElementType().isF32();
}

/// Whether `v` is addf(a, b), in either order.
bool isAddOf(Value v, Value a, Value b) {
  auto add = v.getDefiningOp<arith::AddFOp>();
  return add && ((add.getLhs() == a && add.getRhs() == b) ||
                 (add.getLhs() == b && add.getRhs() == a));
}

/// The value the body of `generic` yields.
Value yielded(linalg::GenericOp generic) {
  return cast<linalg::YieldOp>(generic.getRegion().front().getTerminator())
      .getValues()[0];
}

/// Whether the body of `generic` is `yield addf(a, b)` of its block
/// arguments `a` and `b` (in either order) and nothing else.
bool isSumOf(linalg::GenericOp generic, Value a, Value b) {
  return generic.getRegion().front().getOperations().size() == 2 &&
         isAddOf(yielded(generic), a, b);
}

/// The loop that alone reads the convolution's fresh result `alloc`
/// (besides `call`, through casts only it uses, and deallocations).
linalg::GenericOp soleReader(memref::AllocOp alloc, func::CallOp call) {
  linalg::GenericOp reader;
  for (Operation *user : alloc->getUsers()) {
    if (isa<memref::DeallocOp>(user))
      continue;
    if (auto cast = dyn_cast<memref::CastOp>(user)) {
      for (Operation *castUser : cast->getUsers())
        if (castUser != call.getOperation())
          return {};
      continue;
    }
    auto generic = dyn_cast<linalg::GenericOp>(user);
    if (!generic || reader)
      return {};
    reader = generic;
  }
  return reader;
}

/// Whether the body of `generic` yields addf(a, b) of its block arguments
/// `a` and `b` (in either order), or relu of that sum (arith.maximumf with
/// +0.0, setting `relu`), and computes nothing else.
bool isBiasAdd(linalg::GenericOp generic, Value a, Value b, bool &relu) {
  Value sum = yielded(generic);
  auto max = sum.getDefiningOp<arith::MaximumFOp>();
  relu = false;
  if (max) {
    if (matchPattern(max.getRhs(), m_PosZeroFloat()))
      sum = max.getLhs();
    else if (matchPattern(max.getLhs(), m_PosZeroFloat()))
      sum = max.getRhs();
    else
      return false;
    relu = true;
  }
  if (!isAddOf(sum, a, b))
    return false;
  for (Operation &op : generic.getRegion().front().without_terminator())
    if (&op != sum.getDefiningOp() && &op != max.getOperation() &&
        !isa<arith::ConstantOp>(op))
      return false;
  return true;
}

/// The bias buffer when `generic` computes out = conv + bias[c] (then
/// relu, setting `relu`) into a buffer other than `conv`, or null.
Value addedBias(linalg::GenericOp generic, Value conv, bool &relu) {
  if (generic.getNumDpsInits() != 1 || generic.getNumDpsInputs() != 2 ||
      generic.getNumLoops() != 4 ||
      generic.getNumParallelLoops() != generic.getNumLoops())
    return {};
  OpOperand *out = generic.getDpsInitOperand(0);
  OpOperand *in0 = generic.getDpsInputOperand(0);
  OpOperand *in1 = generic.getDpsInputOperand(1);
  if (in1->get() == conv)
    std::swap(in0, in1);
  MLIRContext *ctx = generic.getContext();
  if (in0->get() != conv || uncast(out->get()) == conv ||
      !generic.getMatchingIndexingMap(in0).isIdentity() ||
      !generic.getMatchingIndexingMap(out).isIdentity() ||
      generic.getMatchingIndexingMap(in1) != channelMap(ctx) ||
      !isF32Vector(in1->get()))
    return {};
  if (!isBiasAdd(generic, generic.getMatchingBlockArgument(in0),
                 generic.getMatchingBlockArgument(in1), relu))
    return {};
  return in1->get();
}

/// Whether work may move from `a` to `b` (one block, either order): the
/// ops strictly between leave the buffers `live` allocated and unwritten
/// and do not touch `untouched`. Allowed are allocations, casts, ops
/// without effects, deallocations of other buffers, and the backward-data
/// convolution, which writes only its result.
bool movableAcross(Operation *a, Operation *b, ArrayRef<Value> live,
                   ArrayRef<Value> untouched) {
  if (a->getBlock() != b->getBlock())
    return false;
  if (b->isBeforeInBlock(a))
    std::swap(a, b);
  auto isAny = [](Value v, ArrayRef<Value> buffers) {
    return llvm::any_of(
        buffers, [&](Value b) { return viewedBuffer(v) == viewedBuffer(b); });
  };
  for (Operation *op = a->getNextNode(); op != b; op = op->getNextNode()) {
    if (isa<memref::AllocOp, memref::CastOp>(op) || isMemoryEffectFree(op))
      continue;
    for (Value operand : op->getOperands())
      if (isAny(uncast(operand), untouched))
        return false;
    if (auto dealloc = dyn_cast<memref::DeallocOp>(op)) {
      if (isAny(dealloc.getMemref(), live))
        return false;
      continue;
    }
    auto call = dyn_cast<func::CallOp>(op);
    if (call && call.getCallee() == "tflrt_conv2d_backward_input_f32" &&
        !isAny(uncast(call.getOperand(2)), live))
      continue;
    return false;
  }
  return true;
}

/// The loop that sums `dy` over N, H and W into a [O] buffer, near `call`
/// in its block, with nothing between that stops it from running at the
/// call; or null.
linalg::GenericOp biasGradient(func::CallOp call, Value dy) {
  MLIRContext *ctx = call.getContext();
  for (Operation &op : *call->getBlock()) {
    auto generic = dyn_cast<linalg::GenericOp>(&op);
    if (!generic || generic.getNumDpsInputs() != 1 ||
        generic.getNumDpsInits() != 1 || generic.getNumLoops() != 4 ||
        generic.getNumReductionLoops() != 3 ||
        generic.getIteratorTypesArray()[3] != utils::IteratorType::parallel)
      continue;
    OpOperand *in = generic.getDpsInputOperand(0);
    OpOperand *out = generic.getDpsInitOperand(0);
    if (in->get() != dy || !generic.getMatchingIndexingMap(in).isIdentity() ||
        generic.getMatchingIndexingMap(out) != channelMap(ctx) ||
        !isF32Vector(out->get()) ||
        !isSumOf(generic, generic.getMatchingBlockArgument(in),
                 generic.getMatchingBlockArgument(out)) ||
        !movableAcross(generic, call, {dy}, {out->get()}))
      continue;
    return generic;
  }
  return {};
}

func::CallOp callRuntime(OpBuilder &builder, Location loc, ModuleOp module,
                         StringRef name, ArrayRef<Value> args) {
  SmallVector<Type> types;
  for (Value arg : args)
    types.push_back(arg.getType());
  func::FuncOp fn = getOrInsertRuntimeFunction(
      builder, module, name, builder.getFunctionType(types, {}));
  return func::CallOp::create(builder, loc, fn, args);
}

struct ConvBiasPass : impl::ConvBiasBase<ConvBiasPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    SmallVector<func::CallOp> forwards, filters;
    module.walk([&](func::CallOp call) {
      if (call.getCallee() == "tflrt_conv2d_f32")
        forwards.push_back(call);
      if (call.getCallee() == "tflrt_conv2d_backward_filter_f32")
        filters.push_back(call);
    });
    OpBuilder builder(&getContext());
    for (func::CallOp call : forwards) {
      auto alloc = uncast(call.getOperand(2)).getDefiningOp<memref::AllocOp>();
      linalg::GenericOp loop = alloc ? soleReader(alloc, call) : nullptr;
      bool relu = false;
      Value bias = loop ? addedBias(loop, alloc.getResult(), relu) : nullptr;
      // The call moves to the loop: only allocations come between.
      if (!bias)
        continue;
      Value res = loop.getDpsInitOperand(0)->get();
      if (!movableAcross(
              call, loop,
              {uncast(call.getOperand(0)), uncast(call.getOperand(1)), bias},
              {res}))
        continue;
      builder.setInsertionPoint(loop);
      Location loc = call.getLoc();
      SmallVector<Value> args = {
          call.getOperand(0), call.getOperand(1),
          castToUnranked(builder, loc, bias),
          castToUnranked(builder, loc, loop.getDpsInitOperand(0)->get())};
      llvm::append_range(args, call.getOperands().drop_front(3));
      callRuntime(builder, loc, module,
                  relu ? "tflrt_conv2d_bias_relu_f32" : "tflrt_conv2d_bias_f32",
                  args);
      loop.erase();
      call.erase();
      for (Operation *user : llvm::make_early_inc_range(alloc->getUsers()))
        user->erase();
      alloc.erase();
    }
    for (func::CallOp call : filters) {
      Value dy = uncast(call.getOperand(1));
      linalg::GenericOp loop = biasGradient(call, dy);
      if (!loop)
        continue;
      // db = oneDNN's sum of dy; the loop's buffer += db.
      builder.setInsertionPoint(call);
      Location loc = loop.getLoc();
      Value acc = loop.getDpsInitOperand(0)->get();
      auto type = MemRefType::get(cast<MemRefType>(acc.getType()).getShape(),
                                  builder.getF32Type());
      Value db = memref::AllocOp::create(builder, loc, type);
      SmallVector<Value> args(call.getOperands().take_front(3));
      args.push_back(castToUnranked(builder, loc, db));
      llvm::append_range(args, call.getOperands().drop_front(3));
      callRuntime(builder, call.getLoc(), module,
                  "tflrt_conv2d_backward_filter_bias_f32", args);
      AffineMap id = builder.getMultiDimIdentityMap(1);
      linalg::GenericOp::create(
          builder, loc, ValueRange{db}, ValueRange{acc},
          ArrayRef<AffineMap>{id, id},
          ArrayRef<utils::IteratorType>{utils::IteratorType::parallel},
          [](OpBuilder &b, Location l, ValueRange args) {
            Value sum = arith::AddFOp::create(b, l, args[1], args[0]);
            linalg::YieldOp::create(b, l, sum);
          });
      memref::DeallocOp::create(builder, loc, db);
      call.erase();
      loop.erase();
    }
  }
};

} // namespace
} // namespace mlir::tfl
