/// @file link_order.hpp
/// @brief A stand-in for a course header, for the link-order test: a type with an inline member.
#pragma once

namespace link_order {

/// A course type. `value` is inline but never inlined nor analysed across calls (noipa), so
/// every caller goes through its symbol.
struct Probe {
    /// The course's answer.
    [[gnu::noipa]] int value() const { return 42; }
};

/// Course code that calls Probe::value through its symbol (course_side.cpp).
int course_answer();

/// The "student's" function (student_side.cpp), which also calls Probe::value.
int student_answer();

}  // namespace link_order
