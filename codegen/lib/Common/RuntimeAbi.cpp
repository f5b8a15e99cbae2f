//===- RuntimeAbi.cpp - How compiled code calls libtflrt ------------------===//

#include "tfl/Codegen/RuntimeAbi.h"
#include "tfl/Codegen/Passes.h"
#include "tfl/Codegen/RuntimeCallModel.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Interfaces/ViewLikeInterface.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/xxhash.h"

namespace mlir::tfl {

func::FuncOp getOrInsertRuntimeFunction(OpBuilder &builder, ModuleOp module,
                                        StringRef name, FunctionType type) {
  if (auto fn = module.lookupSymbol<func::FuncOp>(name))
    return fn;
  OpBuilder::InsertionGuard guard(builder);
  builder.setInsertionPointToStart(module.getBody());
  auto fn = func::FuncOp::create(builder, module.getLoc(), name, type);
  fn.setPrivate();
  return fn;
}

Value getOrCreateStringPointer(OpBuilder &builder, Location loc,
                               ModuleOp module, StringRef text) {
  std::string name =
      "__tfl_str_" + llvm::utohexstr(llvm::xxh3_64bits(text), true);
  auto global = module.lookupSymbol<LLVM::GlobalOp>(name);
  if (!global) {
    OpBuilder::InsertionGuard guard(builder);
    builder.setInsertionPointToStart(module.getBody());
    std::string data = text.str();
    data.push_back('\0');
    auto type = LLVM::LLVMArrayType::get(builder.getI8Type(), data.size());
    global = LLVM::GlobalOp::create(builder, loc, type, /*isConstant=*/true,
                                    LLVM::Linkage::Internal, name,
                                    builder.getStringAttr(data));
  }
  return LLVM::AddressOfOp::create(builder, loc, global);
}

Value textPointer(OpBuilder &builder, Operation *op, StringRef text) {
  return getOrCreateStringPointer(builder, op->getLoc(),
                                  op->getParentOfType<ModuleOp>(), text);
}

void callRuntime(OpBuilder &builder, Operation *op, StringRef name,
                 ValueRange args) {
  SmallVector<Type> types(args.getTypes());
  func::FuncOp fn =
      getOrInsertRuntimeFunction(builder, op->getParentOfType<ModuleOp>(), name,
                                 builder.getFunctionType(types, {}));
  func::CallOp::create(builder, op->getLoc(), fn, args);
}

FailureOr<SmallVector<Value>>
getBuffers(RewriterBase &rewriter, ValueRange values,
           const bufferization::BufferizationOptions &options,
           bufferization::BufferizationState &state) {
  SmallVector<Value> buffers;
  for (Value v : values) {
    FailureOr<Value> buffer =
        bufferization::getBuffer(rewriter, v, options, state);
    if (failed(buffer))
      return failure();
    buffers.push_back(*buffer);
  }
  return buffers;
}

FailureOr<Value>
allocateBuffer(RewriterBase &rewriter, Location loc, Type type,
               const bufferization::BufferizationOptions &options,
               ValueRange batchFrom) {
  auto tensor = cast<RankedTensorType>(type);
  auto memref = MemRefType::get(tensor.getShape(), tensor.getElementType());
  SmallVector<Value> sizes = dynamicSizes(rewriter, loc, memref, batchFrom);
  if (sizes.size() != memref.getNumDynamicDims())
    return failure();
  return options.createAlloc(rewriter, loc, memref, sizes);
}

LogicalResult
bufferizeAsFilledBuffer(RewriterBase &rewriter, Operation *op,
                        const bufferization::BufferizationOptions &options,
                        StringRef function, ValueRange leading,
                        ValueRange trailing) {
  rewriter.setInsertionPoint(op);
  FailureOr<Value> buffer = allocateBuffer(rewriter, op->getLoc(),
                                           op->getResult(0).getType(), options);
  if (failed(buffer))
    return failure();
  SmallVector<Value> args(leading);
  args.push_back(castToUnranked(rewriter, op->getLoc(), *buffer));
  llvm::append_range(args, trailing);
  callRuntime(rewriter, op, function, args);
  bufferization::replaceOpWithBufferizedValues(rewriter, op, *buffer);
  return success();
}

Value castToUnranked(OpBuilder &builder, Location loc, Value memref) {
  auto type = cast<MemRefType>(memref.getType());
  auto unranked =
      UnrankedMemRefType::get(type.getElementType(), type.getMemorySpace());
  return memref::CastOp::create(builder, loc, unranked, memref);
}

StringRef runtimeTypeSuffix(Type t) {
  if (t.isF32())
    return "f32";
  if (t.isF64())
    return "f64";
  if (t.isBF16())
    return "bf16";
  if (t.isF16())
    return "f16";
  if (t.isInteger(32))
    return "i32";
  if (t.isInteger(64))
    return "i64";
  if (t.isInteger(8))
    return "u8";
  return "bool";
}

std::string locationText(Location loc) {
  if (auto site = dyn_cast<CallSiteLoc>(loc)) {
    std::string caller = locationText(site.getCaller());
    std::string callee = locationText(site.getCallee());
    if (callee.empty() || caller.empty())
      return callee.empty() ? caller : callee;
    size_t end = caller.find('\n');
    return callee + "\n" + caller.substr(0, end) + ": note: called from here" +
           (end == std::string::npos ? "" : caller.substr(end));
  }
  if (auto f = dyn_cast<FileLineColLoc>(loc))
    return (f.getFilename().str() + ":" + std::to_string(f.getLine()) + ":" +
            std::to_string(f.getColumn()));
  if (auto fused = dyn_cast<FusedLoc>(loc))
    for (Location inner : fused.getLocations())
      if (!isa<UnknownLoc>(inner))
        return locationText(inner);
  if (auto name = dyn_cast<NameLoc>(loc))
    return locationText(name.getChildLoc());
  return "";
}

Value viewedBuffer(Value memref) {
  while (true) {
    if (auto cast = memref.getDefiningOp<memref::CastOp>())
      memref = cast.getSource();
    else if (auto view = memref.getDefiningOp<ViewLikeOpInterface>())
      memref = view.getViewSource();
    else
      return memref;
  }
}

linalg::FillOp zeroFillBefore(Operation *product, Value out,
                              ValueRange inputs) {
  while (auto cast = out.getDefiningOp<memref::CastOp>())
    out = cast.getSource();
  // An op kernel's result buffer is fresh too: the interpreter allocates it
  // for the call, apart from the operands' (which the kernel's inputs are).
  auto arg = dyn_cast<BlockArgument>(out);
  bool kernelResult =
      arg && isa<func::FuncOp>(arg.getOwner()->getParentOp()) &&
      arg.getOwner()->getParentOp()->getParentOfType<ModuleOp>()->hasAttr(
          kOpKernelAttrName);
  if (!out.getDefiningOp<memref::AllocOp>() && !kernelResult)
    return {};
  for (Value input : inputs)
    if (viewedBuffer(input) == out)
      return {};
  Operation *prev = product->getPrevNode();
  while (prev && isa<memref::CastOp>(prev))
    prev = prev->getPrevNode();
  auto fill = dyn_cast_or_null<linalg::FillOp>(prev);
  if (!fill || fill.getOutputs().front() != out ||
      !(matchPattern(fill.getInputs().front(), m_PosZeroFloat()) ||
        matchPattern(fill.getInputs().front(), m_Zero())))
    return {};
  return fill;
}

} // namespace mlir::tfl
