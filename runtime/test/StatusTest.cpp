//===- StatusTest.cpp - runtime status tests ------------------------------===//
//
// Part of the ms project.
//
//===----------------------------------------------------------------------===//

#include "ms/runtime/ms_runtime.h"

#include <gtest/gtest.h>

#include <cstring>

TEST(StatusTest, OkIsNull) {
  EXPECT_EQ(ms_status_create(MS_OK, "ignored"), nullptr);
  EXPECT_EQ(ms_status_code(nullptr), MS_OK);
  EXPECT_STREQ(ms_status_message(nullptr), "");
  ms_status_free(nullptr);
}

TEST(StatusTest, CarriesCodeAndMessage) {
  ms_status_t status = ms_status_create(MS_DATA_LOSS, "bad checksum");
  ASSERT_NE(status, nullptr);
  EXPECT_EQ(ms_status_code(status), MS_DATA_LOSS);
  EXPECT_STREQ(ms_status_message(status), "bad checksum");
  ms_status_free(status);
}

TEST(StatusTest, NullMessageIsEmpty) {
  ms_status_t status = ms_status_create(MS_INTERNAL, nullptr);
  ASSERT_NE(status, nullptr);
  EXPECT_STREQ(ms_status_message(status), "");
  ms_status_free(status);
}

TEST(StatusTest, Version) { EXPECT_GT(std::strlen(ms_runtime_version()), 0u); }
