//===- NpyTest.cpp - .npy reader and writer tests -------------------------===//
//
// Part of the ms project.
//
//===----------------------------------------------------------------------===//

#include "ms/runtime/Npy.h"
#include "ModuleBuilder.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <cstring>
#include <random>

using namespace ms::rt;
using namespace ms::test;

namespace {
/// Builds a .npy image of `version` with the header dict `dict` (padded and
/// terminated here) followed by `data`.
std::vector<uint8_t> npyImage(int version, const std::string &dict,
                              const std::vector<uint8_t> &data) {
  std::string header = dict;
  size_t prefix = version == 1 ? 10 : 12;
  while ((prefix + header.size() + 1) % 64 != 0)
    header += ' ';
  header += '\n';
  std::vector<uint8_t> bytes = {0x93, 'N', 'U', 'M', 'P', 'Y', uint8_t(version),
                                0};
  size_t length = header.size();
  for (size_t i = 0; i < prefix - 8; ++i)
    bytes.push_back(uint8_t(length >> (8 * i)));
  bytes.insert(bytes.end(), header.begin(), header.end());
  bytes.insert(bytes.end(), data.begin(), data.end());
  return bytes;
}

/// Parses `bytes`, expecting failure with `text` in the message.
void expectBad(const std::vector<uint8_t> &bytes, const std::string &text) {
  NpyArray array;
  Status status = parseNpy(bytes.data(), bytes.size(), "t.npy", array);
  ASSERT_FALSE(status.ok()) << "expected failure: " << text;
  std::string message = status.message();
  EXPECT_NE(message.find("t.npy"), std::string::npos) << message;
  EXPECT_NE(message.find(text), std::string::npos)
      << "expected \"" << text << "\" in: " << message;
}

TEST(NpyTest, RoundTripsEveryDtype) {
  TempDir dir;
  ASSERT_FALSE(dir.path.empty());
  const ms_dtype_t dtypes[] = {MS_DTYPE_F16,  MS_DTYPE_F32, MS_DTYPE_F64,
                               MS_DTYPE_BOOL, MS_DTYPE_I8,  MS_DTYPE_I16,
                               MS_DTYPE_I32,  MS_DTYPE_I64, MS_DTYPE_U8,
                               MS_DTYPE_U16,  MS_DTYPE_U32, MS_DTYPE_U64};
  const std::vector<std::vector<int64_t>> shapes = {
      {}, {5}, {2, 3}, {0, 4}, {1, 2, 1, 3}};
  for (ms_dtype_t dtype : dtypes) {
    for (const std::vector<int64_t> &shape : shapes) {
      size_t count = 1;
      for (int64_t dim : shape)
        count *= size_t(dim);
      std::vector<uint8_t> data(count * ms_dtype_size(dtype));
      for (size_t i = 0; i < data.size(); ++i)
        data[i] = uint8_t(i * 7 + 1);
      if (dtype == MS_DTYPE_BOOL)
        for (uint8_t &byte : data)
          byte &= 1;
      std::string path = dir.file("a.npy");
      Status status = writeNpy(path, dtype, shape.data(), shape.size(),
                               data.data(), data.size());
      ASSERT_TRUE(status.ok()) << status.message();
      std::vector<uint8_t> file = readFile(path);
      ASSERT_GE(file.size(), 64u);
      EXPECT_EQ((file.size() - data.size()) % 64, 0u) << "data is aligned";
      NpyArray array;
      status = readNpy(path, array);
      ASSERT_TRUE(status.ok()) << status.message();
      EXPECT_EQ(array.dtype, dtype);
      EXPECT_EQ(array.shape, shape);
      EXPECT_EQ(array.data, data);
    }
  }
}

TEST(NpyTest, WritesTheNumpyHeader) {
  std::vector<uint8_t> bytes;
  int64_t shape[1] = {3};
  float data[3] = {1, 2, 3};
  ASSERT_TRUE(encodeNpy(MS_DTYPE_F32, shape, 1, data, 12, bytes).ok());
  std::string header(bytes.begin() + 10, bytes.end() - 12);
  EXPECT_EQ(header.rfind("{'descr': '<f4', 'fortran_order': False, "
                         "'shape': (3,), }",
                         0),
            0u)
      << header;
  EXPECT_EQ(header.back(), '\n');
  EXPECT_EQ(bytes[6], 1);
  EXPECT_EQ(bytes[7], 0);
}

TEST(NpyTest, ReadsVersions2And3) {
  std::vector<uint8_t> data = {1, 0, 2, 0};
  for (int version : {2, 3}) {
    std::vector<uint8_t> bytes = npyImage(
        version, "{'descr': '<i2', 'fortran_order': False, 'shape': (2,), }",
        data);
    NpyArray array;
    Status status = parseNpy(bytes.data(), bytes.size(), "v.npy", array);
    ASSERT_TRUE(status.ok()) << status.message();
    EXPECT_EQ(array.dtype, MS_DTYPE_I16);
    EXPECT_EQ(array.data, data);
  }
}

TEST(NpyTest, AcceptsHeaderVariants) {
  // Double quotes, key order, no trailing comma, '=' and '|' byte orders,
  // Python 2 longs.
  std::vector<uint8_t> data(8, 0);
  for (const char *dict :
       {"{\"shape\": (2,), \"fortran_order\": False, \"descr\": \"<f4\"}",
        "{'descr':'=f4','fortran_order':False,'shape':(2L,)}",
        "{'descr': '|u1', 'fortran_order': False, 'shape': (8,)}"}) {
    NpyArray array;
    std::vector<uint8_t> bytes = npyImage(1, dict, data);
    Status status = parseNpy(bytes.data(), bytes.size(), "v.npy", array);
    EXPECT_TRUE(status.ok()) << dict << ": " << status.message();
  }
}

TEST(NpyTest, RejectsFortranOrder) {
  expectBad(npyImage(1,
                     "{'descr': '<f4', 'fortran_order': True, "
                     "'shape': (1,), }",
                     std::vector<uint8_t>(4)),
            "Fortran-order arrays are not supported");
}

TEST(NpyTest, RejectsBigEndianAndUnsupportedDtypes) {
  expectBad(npyImage(1,
                     "{'descr': '>f4', 'fortran_order': False, "
                     "'shape': (1,), }",
                     std::vector<uint8_t>(4)),
            "big-endian dtype '>f4'");
  expectBad(npyImage(1,
                     "{'descr': '<c8', 'fortran_order': False, "
                     "'shape': (1,), }",
                     std::vector<uint8_t>(8)),
            "unsupported dtype '<c8'");
  expectBad(npyImage(1,
                     "{'descr': [('a', '<f4')], 'fortran_order': False, "
                     "'shape': (1,), }",
                     std::vector<uint8_t>(4)),
            "structured dtypes are not supported");
}

TEST(NpyTest, RejectsBf16OnWrite) {
  std::vector<uint8_t> bytes;
  int64_t shape[1] = {1};
  uint16_t value = 0;
  Status status = encodeNpy(MS_DTYPE_BF16, shape, 1, &value, 2, bytes);
  EXPECT_EQ(status.code(), MS_INVALID_ARGUMENT);
  EXPECT_NE(std::string(status.message()).find("bf16 has no NumPy"),
            std::string::npos);
  EXPECT_EQ(encodeNpy(MS_DTYPE_F32, shape, 1, &value, 2, bytes).code(),
            MS_INVALID_ARGUMENT);
}

TEST(NpyTest, RejectsCorruptFiles) {
  std::string dict = "{'descr': '<f4', 'fortran_order': False, "
                     "'shape': (2,), }";
  std::vector<uint8_t> good = npyImage(1, dict, std::vector<uint8_t>(8));

  expectBad({}, "bad magic");
  expectBad({'P', 'K', 3, 4, 0, 0, 0, 0, 0, 0, 0, 0}, "bad magic");
  std::vector<uint8_t> version = good;
  version[6] = 4;
  expectBad(version, "unsupported .npy version 4.0");
  std::vector<uint8_t> length = good;
  length[8] = 0xff;
  length[9] = 0xff;
  expectBad(length, "exceeds the file");
  std::vector<uint8_t> shortData = good;
  shortData.resize(shortData.size() - 1);
  expectBad(shortData, ".npy data is 7 bytes, expected 8");
  std::vector<uint8_t> longData = good;
  longData.push_back(0);
  expectBad(longData, ".npy data is 9 bytes, expected 8");
  std::vector<uint8_t> headerOnly(good.begin(), good.begin() + 9);
  expectBad(headerOnly, "bad magic");

  const char *badDicts[] = {
      "",
      "[]",
      "{'descr': '<f4', 'fortran_order': False}",
      "{'descr': '<f4', 'fortran_order': False, 'shape': (2,), 'x': 1}",
      "{'descr': '<f4', 'fortran_order': Maybe, 'shape': (2,)}",
      "{'descr': '<f4', 'fortran_order': False, 'shape': (-2,)}",
      "{'descr': '<f4', 'fortran_order': False, 'shape': (2,,)}",
      "{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3",
      "{'descr': '<f4, 'fortran_order': False, 'shape': (2,)}",
      "{'descr': '<f4' 'fortran_order': False, 'shape': (2,)}",
      "{'descr': '<f4', 'fortran_order': False, 'shape': (2,)} extra",
      "{'descr': '<f4', 'fortran_order': False, "
      "'shape': (99999999999999999999,)}",
      "{'descr': '<f4', 'fortran_order': False, "
      "'shape': (4294967296, 4294967296, 4294967296)}",
  };
  for (const char *dict : badDicts) {
    SCOPED_TRACE(dict);
    expectBad(npyImage(1, dict, std::vector<uint8_t>(8)), "");
  }
}

TEST(NpyTest, SurvivesRandomCorruption) {
  int64_t shape[2] = {3, 5};
  std::vector<uint8_t> data(3 * 5 * 8, 1), good;
  ASSERT_TRUE(
      encodeNpy(MS_DTYPE_I64, shape, 2, data.data(), data.size(), good).ok());
  std::mt19937 random(99);
  for (int i = 0; i < 2000; ++i) {
    std::vector<uint8_t> bytes = good;
    for (int flips = 0; flips < 1 + i % 3; ++flips)
      bytes[random() % 128] = uint8_t(random());
    if (i % 5 == 0)
      bytes.resize(random() % bytes.size());
    NpyArray array;
    Status status = parseNpy(bytes.data(), bytes.size(), "f.npy", array);
    (void)status;
  }
}

TEST(NpyTest, ReportsFileErrors) {
  TempDir dir;
  NpyArray array;
  Status status = readNpy(dir.file("missing.npy"), array);
  EXPECT_EQ(status.code(), MS_NOT_FOUND);
  EXPECT_NE(std::string(status.message()).find("missing.npy"),
            std::string::npos);
  EXPECT_EQ(readNpy(dir.path, array).code(), MS_INVALID_ARGUMENT);
  float value = 1;
  int64_t shape[1] = {1};
  status =
      writeNpy(dir.file("no/such/dir.npy"), MS_DTYPE_F32, shape, 1, &value, 4);
  EXPECT_EQ(status.code(), MS_UNAVAILABLE);
  EXPECT_NE(std::string(status.message()).find("cannot create"),
            std::string::npos);
}

TEST(NpyTest, NumpyLoadsWrittenFiles) {
  if (std::system("/usr/bin/python3 -c 'import numpy' >/dev/null 2>&1") != 0)
    GTEST_SKIP() << "python3 with numpy is not installed";
  TempDir dir;
  int64_t shape[2] = {2, 3};
  float f32[6] = {1.5f, -2, 3, 4, 5, 6.25f};
  int16_t i16[6] = {-1, 2, -3, 4, -5, 6};
  uint8_t flags[6] = {1, 0, 1, 1, 0, 0};
  ASSERT_TRUE(
      writeNpy(dir.file("f.npy"), MS_DTYPE_F32, shape, 2, f32, 24).ok());
  ASSERT_TRUE(
      writeNpy(dir.file("i.npy"), MS_DTYPE_I16, shape, 2, i16, 12).ok());
  ASSERT_TRUE(
      writeNpy(dir.file("b.npy"), MS_DTYPE_BOOL, shape, 2, flags, 6).ok());
  ASSERT_TRUE(writeNpy(dir.file("s.npy"), MS_DTYPE_F64, nullptr, 0,
                       "\0\0\0\0\0\0\xf0\x3f", 8)
                  .ok());
  std::string script =
      "import numpy as n, sys; d = sys.argv[1];"
      "f = n.load(d + '/f.npy'); i = n.load(d + '/i.npy');"
      "b = n.load(d + '/b.npy'); s = n.load(d + '/s.npy');"
      "ok = (f.dtype == n.float32 and f.shape == (2, 3) and f[1, 2] == 6.25"
      " and i.dtype == n.int16 and i[1, 1] == -5 and b.dtype == n.bool_"
      " and b.tolist() == [[1, 0, 1], [1, 0, 0]] and s.shape == ()"
      " and s == 1.0);"
      "n.save(d + '/out.npy', n.arange(6, dtype=n.uint32).reshape(3, 2));"
      "sys.exit(0 if ok else 1)";
  std::string command = "/usr/bin/python3 -c \"" + script + "\" " + dir.path;
  ASSERT_EQ(std::system(command.c_str()), 0) << command;
  NpyArray array;
  Status status = readNpy(dir.file("out.npy"), array);
  ASSERT_TRUE(status.ok()) << status.message();
  EXPECT_EQ(array.dtype, MS_DTYPE_U32);
  EXPECT_EQ(array.shape, (std::vector<int64_t>{3, 2}));
  EXPECT_EQ(reinterpret_cast<const uint32_t *>(array.data.data())[5], 5u);
}
} // namespace

namespace {
/// A string tensor view over `strings`.
std::vector<ms_string_t> views(const std::vector<std::string> &strings) {
  std::vector<ms_string_t> out;
  for (const std::string &s : strings)
    out.push_back(ms_string_t{s.data(), s.size()});
  return out;
}
} // namespace

TEST(NpyTest, RoundTripsStrings) {
  // UTF-8 of 1 to 4 bytes per code point, an empty string, a trailing NUL
  // that NumPy (and so the reader) drops.
  std::vector<std::string> strings = {"monday", "", "Stra\xc3\x9f" "e",
                                      "\xe2\x82\xac\xf0\x9f\x98\x80", "a"};
  std::vector<ms_string_t> elements = views(strings);
  int64_t shape[2] = {1, 5};
  std::vector<uint8_t> bytes;
  Status status = encodeNpy(MS_DTYPE_STRING, shape, 2, elements.data(),
                            elements.size() * sizeof(ms_string_t), bytes);
  ASSERT_TRUE(status.ok()) << status.message();
  ASSERT_EQ(bytes.size(), 128u + 5 * 6 * 4);
  std::string header(bytes.begin() + 10, bytes.begin() + 128);
  // The widest element has 6 code points.
  EXPECT_NE(header.find("'descr': '<U6'"), std::string::npos) << header;
  NpyArray array;
  status = parseNpy(bytes.data(), bytes.size(), "t.npy", array);
  ASSERT_TRUE(status.ok()) << status.message();
  EXPECT_EQ(array.dtype, MS_DTYPE_STRING);
  EXPECT_EQ(array.shape, (std::vector<int64_t>{1, 5}));
  EXPECT_EQ(array.strings, strings);
  EXPECT_TRUE(array.data.empty());
}

TEST(NpyTest, ReadsByteStrings) {
  std::vector<uint8_t> data = {'a', 'b', 0, 'x', 'y', 'z'};
  NpyArray array;
  std::vector<uint8_t> bytes = npyImage(
      1, "{'descr': '|S3', 'fortran_order': False, 'shape': (2,), }", data);
  Status status = parseNpy(bytes.data(), bytes.size(), "t.npy", array);
  ASSERT_TRUE(status.ok()) << status.message();
  EXPECT_EQ(array.strings, (std::vector<std::string>{"ab", "xyz"}));
}

TEST(NpyTest, RejectsBadStrings) {
  // A surrogate is no code point; big-endian UTF-32 is not read.
  expectBad(npyImage(1,
                     "{'descr': '<U1', 'fortran_order': False, "
                     "'shape': (1,), }",
                     {0x00, 0xD8, 0x00, 0x00}),
            "element 0 holds an invalid code point");
  expectBad(npyImage(1,
                     "{'descr': '>U1', 'fortran_order': False, "
                     "'shape': (1,), }",
                     {0, 0, 0, 'a'}),
            "big-endian dtype '>U1'");
  expectBad(npyImage(1,
                     "{'descr': '<U2', 'fortran_order': False, "
                     "'shape': (1,), }",
                     {'a', 0, 0, 0}),
            ".npy data is 4 bytes, expected 8");
  // Writing invalid UTF-8 fails and names the element.
  std::vector<std::string> strings = {"ok", "\xff"};
  std::vector<ms_string_t> elements = views(strings);
  int64_t shape[1] = {2};
  std::vector<uint8_t> bytes;
  Status status = encodeNpy(MS_DTYPE_STRING, shape, 1, elements.data(),
                            elements.size() * sizeof(ms_string_t), bytes);
  ASSERT_FALSE(status.ok());
  EXPECT_NE(std::string(status.message()).find("string element 1 is not valid "
                                               "UTF-8 at byte 0"),
            std::string::npos)
      << status.message();
}
