//===- ms-compile.cpp - ms compiler driver --------------------------------===//
//
// Part of the ms project.
//
//===----------------------------------------------------------------------===//

#include "ms/Tools/CompileMain.h"

int main(int argc, char **argv) { return mlir::ms::msCompileMain(argc, argv); }
