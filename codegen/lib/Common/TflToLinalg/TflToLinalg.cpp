//===- TflToLinalg.cpp - The tfl-to-linalg conversion pass ----------------===//
//
// Applies every op family's patterns; tfl is illegal afterwards (but for
// tfl.print, lowered by bufferization), so an op without a lowering is
// reported at its `.tfl` location.
//
//===----------------------------------------------------------------------===//

#include "tfl/Codegen/Passes.h"
#include "tfl/Codegen/RuntimeAbi.h"
#include "tfl/IR/TflOps.h"

#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Transforms/DialectConversion.h"

namespace mlir::tfl {

#define GEN_PASS_DEF_CONVERTTFLTOLINALG
#include "tfl/Codegen/Passes.h.inc"

namespace {

struct ConvertTflToLinalgPass
    : impl::ConvertTflToLinalgBase<ConvertTflToLinalgPass> {
  /// At the start of the entry function: declare each flag of the module's
  /// `tfl.flags` table, then parse the command line once.
  void declareFlags() {
    ModuleOp module = getOperation();
    auto table = module->getAttrOfType<ArrayAttr>("tfl.flags");
    auto entry = module.lookupSymbol<func::FuncOp>("tfl_main");
    if (!table || !entry || entry.isExternal())
      return;
    OpBuilder b(entry.getBody());
    Location loc = entry.getLoc();
    auto ptr = LLVM::LLVMPointerType::get(&getContext());
    func::FuncOp declare = getOrInsertRuntimeFunction(
        b, module, "tflrt_declare_flag",
        b.getFunctionType({ptr, b.getI32Type(), ptr, ptr}, {}));
    func::FuncOp parse = getOrInsertRuntimeFunction(
        b, module, "tflrt_parse_flags", b.getFunctionType({}, {}));
    b.setInsertionPointToStart(&entry.getBody().front());
    for (auto flag : table.getAsRange<DictionaryAttr>()) {
      auto text = [&](StringRef key) {
        return getOrCreateStringPointer(
            b, loc, module, cast<StringAttr>(flag.get(key)).getValue());
      };
      Value dtype = arith::ConstantOp::create(
          b, loc,
          b.getI32IntegerAttr(cast<IntegerAttr>(flag.get("dtype")).getInt()));
      func::CallOp::create(
          b, loc, declare,
          ValueRange{text("name"), dtype, text("default"), text("help")});
    }
    func::CallOp::create(b, loc, parse, ValueRange{});
  }

  void runOnOperation() override {
    MLIRContext *ctx = &getContext();
    RewritePatternSet patterns(ctx);
    populateTflToLinalgPatterns(patterns);

    ConversionTarget target(*ctx);
    target.addIllegalDialect<TflDialect>();
    // Lowered during bufferization to runtime calls (PrintBufferization.cpp,
    // RandomBufferization.cpp, DataBufferization.cpp,
    // ConvBufferization.cpp, CollectiveBufferization.cpp), or, a barrier,
    // to its operands' buffers (BarrierBufferization.cpp).
    target.addLegalOp<
        PrintOp, PrintTemplateOp, RandomUniformOp, RandomNormalOp,
        ShuffleIndicesOp, LoadDataOp, EncodeTextOp, LoadOp, SaveNpyOp, SaveOp,
        Conv2DOp, Conv2DBackwardInputOp, Conv2DBackwardFilterOp, MaxPool2DOp,
        AvgPool2DOp, MaxPool2DBackwardOp, AvgPool2DBackwardOp,
        MaxPool2DGatherOp, AttentionOp, AttentionBackwardOp, ScatterAddOp,
        TapePushOp, TapeWriteOp, TapeAddOp, TapeReadOp, TapeAccumulatedOp,
        AllReduceOp, BroadcastOp, ReduceToRootOp, AllGatherOp, AllReduceStartOp,
        AllReduceWaitOp, OptimizationBarrierOp>();
    target.addLegalDialect<
        arith::ArithDialect, bufferization::BufferizationDialect,
        func::FuncDialect, linalg::LinalgDialect, LLVM::LLVMDialect,
        math::MathDialect, memref::MemRefDialect, tensor::TensorDialect>();
    if (failed(applyPartialConversion(getOperation(), target,
                                      std::move(patterns))))
      return signalPassFailure();
    declareFlags();
  }
};

} // namespace

void populateTflToLinalgPatterns(RewritePatternSet &patterns) {
  populateTflElementwiseToLinalgPatterns(patterns);
  populateTflLinearToLinalgPatterns(patterns);
  populateTflReductionToLinalgPatterns(patterns);
  populateTflDataMovementToLinalgPatterns(patterns);
  populateTflRuntimeOpsToLinalgPatterns(patterns);
}

} // namespace mlir::tfl
