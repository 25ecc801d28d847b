"""The `course` command's implementation (standard library only)."""
