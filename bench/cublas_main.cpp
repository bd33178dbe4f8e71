#include "common/bench.h"
#include "common/cublas.h"

int main(int argc, char** argv) { return matmul::run_cli(matmul::cublas_version(), argc, argv); }
