# Fails when a runtime source includes an LLVM or MLIR header.
file(GLOB_RECURSE sources "${RUNTIME_DIR}/*.h" "${RUNTIME_DIR}/*.cpp"
     "${RUNTIME_DIR}/*.c")
foreach(source ${sources})
  file(STRINGS "${source}" hits REGEX "#[ \t]*include[ \t]*[<\"](llvm|mlir|llvm-c|mlir-c)/")
  if(hits)
    message(FATAL_ERROR "runtime must not include LLVM/MLIR headers: ${source}: ${hits}")
  endif()
endforeach()
