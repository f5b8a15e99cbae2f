//===- TflDialect.h - The tfl dialect ---------------------------*- C++ -*-===//

#ifndef TFL_IR_TFLDIALECT_H
#define TFL_IR_TFLDIALECT_H

#include "mlir/IR/Dialect.h"

#include "tfl/IR/TflDialect.h.inc"

#endif // TFL_IR_TFLDIALECT_H
