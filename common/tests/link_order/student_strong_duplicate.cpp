// Stands in for a student who defines a course function again (strong): the
// link must fail with "multiple definition", never pick one of the two.
namespace link_order {

int course_answer() {
    return 0;
}
int student_answer() {
    return 0;
}

}  // namespace link_order
