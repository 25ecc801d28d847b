/// @file lab04_record.hpp
/// @brief Lab 04 in the record: the batches record_lab04.cpp runs, which the judges
/// of test_lab04.cpp expect in its record. Header only.
#pragma once

#include <cstddef>

namespace lab04::course {

/// Three batches of about 16 MiB each.
inline constexpr int kBatches = 3;

/// A batch's usual floats: each batch holds a little fewer, bound to the run's job
/// salt (recording::Session::salted_elements, record::salted_elements).
inline constexpr std::size_t kElements = std::size_t{4} << 20;

}  // namespace lab04::course
