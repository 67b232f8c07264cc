//===- ModuleFuzzer.cpp - fuzz the runtime's module-file parser -----------===//
//
// Part of the ms project.
//
//===----------------------------------------------------------------------===//
//
// Parses and validates a module file image (header, section table,
// checksums, the meta JSON and the plan checked against it). Checksums are
// recomputed first so that mutations reach the meta validation.
//
//===----------------------------------------------------------------------===//

#include "core/Module.h"

#include "ms/runtime/ModuleFormat.h"

#include <cstddef>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

namespace fmt = ms::format;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  std::vector<uint8_t> bytes(data, data + size);
  // Make the checksums right, so mutations get past them.
  if (size >= sizeof(fmt::Header)) {
    fmt::Header header;
    std::memcpy(&header, bytes.data(), sizeof(header));
    uint64_t table = header.sectionTableOffset;
    for (uint64_t i = 0; i < header.sectionCount && i < 64; ++i) {
      uint64_t at = table + i * sizeof(fmt::SectionEntry);
      if (at < table || at > size || size - at < sizeof(fmt::SectionEntry))
        break;
      fmt::SectionEntry entry;
      std::memcpy(&entry, bytes.data() + at, sizeof(entry));
      if (entry.offset > size || entry.size > size - entry.offset)
        continue;
      const uint8_t *section = bytes.data() + entry.offset;
      entry.checksum = entry.flags & fmt::kWordChecksum
                           ? fmt::fnv1a64Words(section, entry.size)
                           : fmt::fnv1a64(section, entry.size);
      std::memcpy(bytes.data() + at, &entry, sizeof(entry));
    }
    header.headerChecksum =
        fmt::fnv1a64(bytes.data(), offsetof(fmt::Header, headerChecksum));
    std::memcpy(bytes.data(), &header, sizeof(header));
  }
  ms::rt::impl::ModuleImage image;
  ms::rt::Status status =
      ms::rt::impl::parseModule(bytes.data(), bytes.size(), "fuzz.msm", image);
  // MS_FUZZ_DIAGNOSTICS=1 prints the rejections (to see what inputs reach).
  static const bool print = std::getenv("MS_FUZZ_DIAGNOSTICS") != nullptr;
  if (print && !status.ok())
    std::fprintf(stderr, "%s\n", status.message());
  return 0;
}
