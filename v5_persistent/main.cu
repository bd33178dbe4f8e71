#include "common/harness/harness.h"
#include "v5_persistent/matmul.h"

int main(int argc, char** argv) { return matmul::run_cli(v5_persistent::version, argc, argv); }
