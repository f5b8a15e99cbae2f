//===- Main.cpp - The entry point of native TFL executables ---------------===//
//
// Linked into every executable `tflc build` makes: sets up the runtime and
// calls the program's compiled body, `tfl_main`.
//
//===----------------------------------------------------------------------===//

#include "tflrt/CApi.h"

extern "C" void tfl_main(void);

int main(int argc, char **argv) {
  tflrt_init(argc, argv);
  tfl_main();
  tflrt_finish();
  return 0;
}
