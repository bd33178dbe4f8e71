#include "common/harness/fp8_cli.h"
#include "v10_fp8/matmul.h"

int main(int argc, char** argv) { return matmul::run_fp8_cli(v10_fp8::version, argc, argv); }
