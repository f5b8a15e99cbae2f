/* The seed CNN's forward pass on batches of 256 test images, called from C
   through the library examples/mnist_cnn_export.tfl makes (its `logits`
   export), as bench/export_forward.tfl runs it inside a TFL executable.
   Prints the milliseconds per batch last. */
#include "mnist_cnn.h"

#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <zlib.h>

#define BATCH 256
#define ROUNDS 20
#define WARMUP 3

static unsigned char images[ROUNDS + WARMUP][BATCH][28 * 28];
static float c1w[3 * 3 * 16], c1b[16], c2w[3 * 3 * 16 * 16], c2b[16];
static float dw[16 * 10], db[10], logits[BATCH][10];

static double seconds(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

int main(void) {
  gzFile f = gzopen("/usr/share/datasets/fashion-mnist/"
                    "t10k-images-idx3-ubyte.gz",
                    "rb");
  unsigned char header[16];
  if (!f || gzread(f, header, 16) != 16 ||
      gzread(f, images, sizeof images) != (int)sizeof images)
    return 1;
  gzclose(f);
  /* Any parameters do: the work does not depend on their values. */
  float *all[] = {c1w, c1b, c2w, c2b, dw, db};
  int sizes[] = {144, 16, 2304, 16, 160, 10};
  for (int a = 0; a < 6; ++a)
    for (int i = 0; i < sizes[a]; ++i)
      all[a][i] = 0.01f * (float)((i * 7 + a) % 13) - 0.06f;
  static const int64_t c1wShape[] = {3, 3, 1, 16}, c2wShape[] = {3, 3, 16, 16},
                       bShape[] = {16}, dwShape[] = {16, 10}, dbShape[] = {10},
                       xShape[] = {BATCH, 28, 28, 1}, yShape[] = {BATCH, 10};
  mnist_cnn_Model model = {
      .conv1 = {.w = {c1w, 4, c1wShape}, .b = {c1b, 1, bShape}},
      .conv2 = {.w = {c2w, 4, c2wShape}, .b = {c2b, 1, bShape}},
      .dense = {.w = {dw, 2, dwShape}, .b = {db, 1, dbShape}},
  };
  tfl_tensor out = {logits, 2, yShape};
  double total = 0, start = 0;
  for (int r = 0; r < WARMUP + ROUNDS; ++r) {
    if (r == WARMUP)
      start = seconds();
    tfl_tensor x = {images[r], 4, xShape};
    if (mnist_cnn_logits(&model, &x, &out) != 0) {
      fprintf(stderr, "%s\n", mnist_cnn_last_error());
      return 1;
    }
    for (int i = 0; i < BATCH * 10; ++i)
      total += logits[i / 10][i % 10];
  }
  printf("%g\n%.4f\n", total, (seconds() - start) * 1000.0 / ROUNDS);
  return 0;
}
