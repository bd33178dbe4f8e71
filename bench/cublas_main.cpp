#include "common/harness/cublas.h"
#include "common/harness/harness.h"

int main(int argc, char** argv) { return matmul::run_cli(matmul::cublas_version(), argc, argv); }
