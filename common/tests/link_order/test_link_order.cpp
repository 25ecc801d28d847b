// The course's code comes first on the link line (streamlab_link_graded_code):
// a weak symbol that the student's object also defines resolves to the course's.
#include <gtest/gtest.h>

#include "link_order.hpp"

TEST(LinkOrder, TheCoursesInlineMemberWinsOverAStudentsChangedCopy) {
    EXPECT_EQ(link_order::course_answer(), 42) << "course code called the student's copy of Probe::value";
    EXPECT_EQ(link_order::student_answer(), 42) << "the student's copy of Probe::value was linked in";
}
