#include "cli/cli_main.h"

int main(int argc, char** argv) { return TensortuneMain(argc, argv); }
