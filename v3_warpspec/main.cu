#include "common/harness/harness.h"
#include "v3_warpspec/matmul.h"

int main(int argc, char** argv) { return matmul::run_cli(v3_warpspec::version, argc, argv); }
