// Stands in for a student who re-declares a course type with a changed inline
// member: its object carries a weak copy of Probe::value that returns 0. Linked
// after the course, that copy is dropped: neither the course nor the student's
// own function calls it.
namespace link_order {

struct Probe {
    [[gnu::noipa]] int value() const { return 0; }
};

int student_answer() {
    return Probe{}.value();
}

}  // namespace link_order
