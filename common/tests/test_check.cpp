// The check macro: what a failed CUDA call turns into. These run without a GPU,
// since the error codes are fed in directly.
#include <gtest/gtest.h>

#include "streamlab/check.hpp"

namespace {

TEST(Check, SuccessDoesNotThrow) {
    EXPECT_NO_THROW(SL_CHECK(cudaSuccess));
}

TEST(Check, FailureCarriesCodeNameExpressionFileAndLine) {
    const int line = __LINE__ + 2;
    try {
        SL_CHECK(cudaErrorMemoryAllocation);
        FAIL() << "SL_CHECK did not throw";
    } catch (const streamlab::CudaError& error) {
        EXPECT_EQ(error.code(), cudaErrorMemoryAllocation);
        EXPECT_EQ(error.error_name(), "cudaErrorMemoryAllocation");
        EXPECT_FALSE(error.error_string().empty());
        EXPECT_EQ(error.expression(), "cudaErrorMemoryAllocation");
        EXPECT_NE(error.file().find("test_check.cpp"), std::string::npos);
        EXPECT_EQ(error.line(), line);
        const std::string what = error.what();
        EXPECT_NE(what.find("test_check.cpp:" + std::to_string(line)), std::string::npos) << what;
        EXPECT_NE(what.find("cudaErrorMemoryAllocation"), std::string::npos) << what;
        EXPECT_NE(what.find(error.error_string()), std::string::npos) << what;
    }
}

TEST(Check, NoexceptVariantReportsWithoutThrowing) {
    ::testing::internal::CaptureStderr();
    SL_CHECK_NOEXCEPT(cudaErrorInvalidValue);
    const std::string printed = ::testing::internal::GetCapturedStderr();
    EXPECT_NE(printed.find("cudaErrorInvalidValue"), std::string::npos) << printed;
}

}  // namespace
