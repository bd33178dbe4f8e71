#include "common/harness/harness.h"
#include "v6_tma_store/matmul.h"

int main(int argc, char** argv) { return matmul::run_cli(v6_tma_store::version, argc, argv); }
