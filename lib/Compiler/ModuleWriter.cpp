//===- ModuleWriter.cpp - serialize a compiled module ---------------------===//
//
// Part of the ms project.
//
//===----------------------------------------------------------------------===//

#include "ms/Compiler/ModuleWriter.h"

#include "ms/runtime/ModuleFormat.h"

#include <cstring>

using namespace mlir::ms;
namespace fmt = ::ms::format;

std::string mlir::ms::writeModuleFile(const ExecutionPlan &plan,
                                      llvm::StringRef cpuElf) {
  std::string meta;
  {
    llvm::raw_string_ostream os(meta);
    plan.writeJson(os);
  }
  struct Section {
    fmt::SectionKind kind;
    llvm::StringRef bytes;
  };
  std::vector<Section> sections = {{fmt::SectionKind::Meta, meta},
                                   {fmt::SectionKind::Weights, plan.weights},
                                   {fmt::SectionKind::CpuElf, cpuElf}};

  uint64_t tableEnd = sizeof(fmt::Header) +
                      sections.size() * sizeof(fmt::SectionEntry);
  std::vector<fmt::SectionEntry> entries;
  uint64_t offset = fmt::alignUp(tableEnd);
  for (const Section &s : sections) {
    fmt::SectionEntry entry = {};
    entry.kind = static_cast<uint32_t>(s.kind);
    entry.offset = offset;
    entry.size = s.bytes.size();
    entry.checksum = fmt::fnv1a64(s.bytes.data(), s.bytes.size());
    entries.push_back(entry);
    offset = fmt::alignUp(offset + s.bytes.size());
  }
  uint64_t fileSize = entries.back().offset + entries.back().size;

  std::string file(fileSize, '\0');
  fmt::Header header = {};
  std::memcpy(header.magic, fmt::kMagic, sizeof(header.magic));
  header.version = fmt::kVersion;
  header.sectionCount = sections.size();
  header.fileSize = fileSize;
  header.sectionTableOffset = sizeof(fmt::Header);
  header.headerChecksum =
      fmt::fnv1a64(&header, offsetof(fmt::Header, headerChecksum));
  std::memcpy(file.data(), &header, sizeof(header));
  std::memcpy(file.data() + sizeof(header), entries.data(),
              entries.size() * sizeof(fmt::SectionEntry));
  for (auto [s, entry] : llvm::zip_equal(sections, entries))
    if (!s.bytes.empty())
      std::memcpy(file.data() + entry.offset, s.bytes.data(), s.bytes.size());
  return file;
}
