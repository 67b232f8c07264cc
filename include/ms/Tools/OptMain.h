//===- OptMain.h - entry point of ms-opt ------------------------*- C++ -*-===//
//
// Part of the ms project.
//
//===----------------------------------------------------------------------===//

#ifndef MS_TOOLS_OPTMAIN_H
#define MS_TOOLS_OPTMAIN_H

namespace mlir::ms {

/// Runs ms-opt: parses MLIR, runs the requested passes and prints the
/// result, with every ms and upstream dialect and pass registered. Returns
/// the process exit code.
int msOptMain(int argc, char **argv);

} // namespace mlir::ms

#endif // MS_TOOLS_OPTMAIN_H
