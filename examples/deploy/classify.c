/* Classifies Fashion-MNIST test images with the seed CNN, from C: the
   library mnist_cnn_export.tfl makes, with the parameters mnist_cnn.tfl
   trained and saved (docs/deploy.md): the first COUNT test images, in
   batches of at most BATCH (the export takes a batch of any size).

     cc classify.c -I. -L. -lmnist_cnn -lz -Wl,-rpath,. -o classify
     ./classify mnist_cnn.safetensors */
#include "mnist_cnn.h"

#include <stdio.h>
#include <zlib.h>

#define COUNT 1000
#define BATCH 256
#define DATA "/usr/share/datasets/fashion-mnist/"

/* The first `n` bytes after an IDX file's `header` bytes. */
static int readIdx(const char *path, int header, unsigned char *out, int n) {
  gzFile f = gzopen(path, "rb");
  unsigned char skip[16];
  int ok = f && gzread(f, skip, header) == header && gzread(f, out, n) == n;
  if (f)
    gzclose(f);
  return ok;
}

static unsigned char images[COUNT][28][28][1], labels[COUNT];
/* The model's parameters: the shapes of examples/cnn.tfl's new_model(). */
static float c1w[3][3][1][16], c1b[16], c2w[3][3][16][16], c2b[16];
static float dw[16][10], db[10];

int main(int argc, char **argv) {
  if (argc != 2) {
    fprintf(stderr, "usage: %s CHECKPOINT\n", argv[0]);
    return 2;
  }
  if (!readIdx(DATA "t10k-images-idx3-ubyte.gz", 16, &images[0][0][0][0],
               sizeof images) ||
      !readIdx(DATA "t10k-labels-idx1-ubyte.gz", 8, labels, sizeof labels)) {
    fprintf(stderr, "cannot read the test set in " DATA "\n");
    return 1;
  }
  static const int64_t c1wShape[] = {3, 3, 1, 16}, c2wShape[] = {3, 3, 16, 16},
                       biasShape[] = {16}, dwShape[] = {16, 10},
                       dbShape[] = {10};
  mnist_cnn_Model model = {
      .conv1 = {.w = {c1w, 4, c1wShape}, .b = {c1b, 1, biasShape}},
      .conv2 = {.w = {c2w, 4, c2wShape}, .b = {c2b, 1, biasShape}},
      .dense = {.w = {dw, 2, dwShape}, .b = {db, 1, dbShape}},
  };
  if (mnist_cnn_load_Model(argv[1], &model) != 0) {
    fprintf(stderr, "%s\n", mnist_cnn_last_error());
    return 1;
  }
  int correct = 0;
  for (int start = 0; start < COUNT; start += BATCH) {
    /* The last batch is smaller: the `?` of the signature. */
    int64_t n = COUNT - start < BATCH ? COUNT - start : BATCH;
    int64_t classes[BATCH];
    const int64_t imagesShape[] = {n, 28, 28, 1}, classesShape[] = {n};
    tfl_tensor in = {images[start], 4, imagesShape},
               out = {classes, 1, classesShape};
    if (mnist_cnn_classify(&model, &in, &out) != 0) {
      fprintf(stderr, "%s\n", mnist_cnn_last_error());
      return 1;
    }
    for (int i = 0; i < n; ++i)
      correct += classes[i] == labels[start + i];
  }
  printf("%d of %d test images classified right\n", correct, COUNT);
  return 0;
}
