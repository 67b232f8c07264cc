//===- CompileMain.h - entry point of ms-compile ----------------*- C++ -*-===//
//
// Part of the ms project.
//
//===----------------------------------------------------------------------===//

#ifndef MS_TOOLS_COMPILEMAIN_H
#define MS_TOOLS_COMPILEMAIN_H

namespace mlir::ms {

/// Runs ms-compile: model file in, module file out. Returns the exit code.
int msCompileMain(int argc, char **argv);

} // namespace mlir::ms

#endif // MS_TOOLS_COMPILEMAIN_H
