//===- FuzzerMain.cpp - replay driver for builds without libFuzzer --------===//
//
// Part of the ms project.
//
//===----------------------------------------------------------------------===//
//
// Without -fsanitize=fuzzer a fuzz target links this main instead: it runs
// LLVMFuzzerTestOneInput once on every file named on the command line (and
// every file under a named directory), as libFuzzer does when given files.
// The ordinary build uses it to replay the seed corpora and the saved
// crashers as regression tests.
//
//===----------------------------------------------------------------------===//

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
extern "C" __attribute__((weak)) int LLVMFuzzerInitialize(int *argc,
                                                           char ***argv);

static int runFile(const std::filesystem::path &path) {
  // MS_FUZZ_TRACE=1 names each input first, to find the one that crashes.
  static const bool trace = std::getenv("MS_FUZZ_TRACE") != nullptr;
  if (trace)
    std::fprintf(stderr, "input %s\n", path.c_str());
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    std::fprintf(stderr, "cannot read %s\n", path.c_str());
    return 1;
  }
  std::vector<char> bytes((std::istreambuf_iterator<char>(in)),
                          std::istreambuf_iterator<char>());
  LLVMFuzzerTestOneInput(reinterpret_cast<const uint8_t *>(bytes.data()),
                         bytes.size());
  return 0;
}

int main(int argc, char **argv) {
  if (LLVMFuzzerInitialize)
    LLVMFuzzerInitialize(&argc, &argv);
  int failures = 0, runs = 0;
  for (int i = 1; i < argc; ++i) {
    std::filesystem::path path(argv[i]);
    if (std::filesystem::is_directory(path)) {
      std::vector<std::filesystem::path> files;
      for (const auto &entry :
           std::filesystem::recursive_directory_iterator(path))
        if (entry.is_regular_file())
          files.push_back(entry.path());
      std::sort(files.begin(), files.end());
      for (const auto &file : files) {
        failures += runFile(file);
        ++runs;
      }
      continue;
    }
    failures += runFile(path);
    ++runs;
  }
  std::printf("ran %d inputs\n", runs);
  return failures ? 1 : 0;
}
