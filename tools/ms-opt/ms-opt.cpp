//===- ms-opt.cpp - ms optimizer driver -----------------------------------===//
//
// Part of the ms project.
//
//===----------------------------------------------------------------------===//

#include "ms/Tools/OptMain.h"

int main(int argc, char **argv) { return mlir::ms::msOptMain(argc, argv); }
