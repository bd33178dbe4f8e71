#include "common/harness/harness.h"
#include "v8_deferred_store/matmul.h"

int main(int argc, char** argv) { return matmul::run_cli(v8_deferred_store::version, argc, argv); }
