#pragma once
// The tensortune command line: parses argv, runs the command and returns the exit code.
int TensortuneMain(int argc, char** argv);
