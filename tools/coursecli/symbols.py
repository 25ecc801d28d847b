"""What graded code may define and call, by symbol name (objcheck.py reads an object's symbols against it).

Names are demangled (`nm`, then `c++filt`) and reduced to the entity they name
(`lab05::run_pipeline`, `std::vector<int>::push_back`, `exit`): see `entity`.
An undefined symbol is checked against FORBIDDEN first, whose entries carry the
sentence a student reads, then against ALLOWED (fnmatch patterns), which a lab
widens with allow_symbols in its lab.json. What an object runs before or
after main is checked apart, on its sections (objcheck.py).
"""

from __future__ import annotations

from fnmatch import fnmatchcase

END_PROCESS = "graded code may not end the process: use SL_CHECK, which throws"
# (fnmatch patterns separated by white space, what a student reads when one of them is used)
FORBIDDEN: list[tuple[str, str]] = [
    ("exit _exit _Exit quick_exit std::exit std::quick_exit abort std::abort", END_PROCESS),
    (
        """at_quick_exit on_exit std::at_quick_exit __cxa_thread_atexit __cxa_thread_atexit_impl
        std::set_terminate std::set_unexpected std::set_new_handler""",
        "graded code runs only inside the lab's functions: it may not register code to run when the program "
        "ends or fails",
    ),
    ("kill killpg tgkill tkill sigqueue pthread_kill raise", "graded code may not send signals"),
    (
        """fork vfork clone clone3 execl execle execlp execv execve execvp execvpe fexecve system popen
        posix_spawn posix_spawnp daemon""",
        "graded code may not start other programs",
    ),
    (
        """setsid setpgid setpgrp setuid setgid seteuid setegid setreuid setresuid setrlimit prlimit prlimit64
        prctl ptrace signal sigaction sigprocmask pthread_sigmask chdir fchdir chroot unshare setns umask
        setenv putenv unsetenv clearenv""",
        "graded code may not change its own process",
    ),
    ("dlopen dlmopen dlsym dlvsym", "graded code may not load code while it runs"),
    (
        """write read pread* pwrite* readv writev preadv* pwritev* __write __read __read_chk __pread*_chk
        dprintf vdprintf __dprintf_chk __vdprintf_chk send sendto sendmsg sendmmsg recv* sendfile* splice tee
        vmsplice copy_file_range dup dup2 dup3 pipe pipe2 close fcntl fcntl64 ioctl lseek* fstat* fsync
        fdatasync ftruncate* isatty poll select epoll_* memfd_create eventfd
        __gnu_cxx::stdio_filebuf<* __gnu_cxx::stdio_sync_filebuf<* std::__basic_file<*""",
        "graded code may not use file descriptors: print with printf or std::cout",
    ),
    (
        """fprintf vfprintf __fprintf_chk __vfprintf_chk fputs fputc putc fwrite fflush fread fgets fgetc getc
        fscanf *_unlocked fileno setvbuf setbuf setlinebuf fclose fmemopen open_memstream fopencookie perror
        stdin stdout stderr _IO_* __overflow __uflow""",
        "graded code may not use C's FILE streams: print with printf or std::cout",
    ),
    ("syscall", "graded code may not make raw system calls"),
    (
        """fopen fopen64 freopen freopen64 fdopen open open64 openat openat64 creat creat64 __open_2
        __open64_2 __openat_2 opendir mkfifo socket unlink remove rename mmap std::basic_*fstream<*
        std::basic_filebuf<* std::filesystem::* std::__cxx11::basic_*fstream<* streamlab::write_*
        streamlab::read_* streamlab::report_timeline streamlab::run_lab_program""",
        "graded code may not open files",
    ),
    (
        """streamlab::TimelineUnavailable* streamlab::Tracer::* streamlab::grading::* testing::*
        streamlab::measure_tracer_overhead streamlab::detail::turn_tracing_off
        streamlab::detail::start_environment __wrap_* __real_*""",
        "graded code may not use the grader's own tools (the tracer, its errors, the test framework)",
    ),
    (
        """streamlab::recording::* streamlab::record::* streamlab::answers::* streamlab::detail::ActivityRecorder*
        streamlab::detail::mark_now streamlab::detail::enable_activity_records_only
        streamlab::detail::warm_up_recording streamlab::detail::exchange_thread_label
        streamlab::detail::write_*""",
        "graded code may not use the course's recording machinery (the record, its writer, the tracer's state)",
    ),
]

# What the labs need: the CUDA runtime, the course's library, the C++ standard library and runtime, and
# the C library's memory, string, math, time and thread functions, and console output through printf, puts,
# putchar and std::cout; no C FILE stream, no raw file descriptor, nothing of the course's recording
# machinery. atexit is here for nvcc's registration of an object's kernels; objcheck.py refuses it anywhere else.
ALLOWED: tuple[str, ...] = (
    "operator new*",
    "operator delete*",
    *"""
    cuda* __cuda* __nv_* __fatbinwrap* streamlab::*
    std::* __gnu_cxx::* __cxxabiv1::* __cxa_* __gxx_personality_v0 _Unwind_Resume __dso_handle
    DW.ref.__gxx_personality_v0 __stack_chk_fail __stack_chk_guard __assert_fail atexit __tls_get_addr
    _GLOBAL_OFFSET_TABLE_ __gmon_start__ __libc_single_threaded __errno_location __ctype_*
    memcpy memmove memset memcmp memchr str* wcs* wmem* __isoc23_strto* __isoc23_wcsto*
    sscanf __isoc99_sscanf __isoc23_sscanf __mem*_chk __str*_chk __stp*_chk __wmem*_chk __wcs*_chk __*printf_chk
    malloc calloc realloc free aligned_alloc posix_memalign
    abs labs llabs div ldiv qsort bsearch rand srand rand_r ato* tolower toupper is*
    printf vprintf puts putchar sprintf snprintf vsprintf vsnprintf
    clock clock_gettime time gettimeofday nanosleep usleep sleep sched_yield
    pthread_self pthread_equal pthread_once pthread_create pthread_join pthread_detach pthread_attr_*
    pthread_mutex_* pthread_mutexattr_* pthread_cond_* pthread_condattr_* pthread_rwlock_* pthread_spin_*
    pthread_barrier_* __pthread_key_create
    sin* cos* tan* asin* acos* atan* exp* log* pow* sqrt* cbrt* fabs* floor* ceil* round* lround* llround*
    trunc* fmod* fmin* fmax* fma* hypot* erf* tgamma* lgamma* frexp* ldexp* modf* nan* remainder* copysign*
    nearbyint* rint* lrint* llrint* __isnan* __isinf* __finite* __fpclassify*
    """.split(),
)

ANONYMOUS = "(anonymous namespace)"
_ANONYMOUS_WORD = "{anonymous_namespace}"
# Names of the entity a symbol defines for the special symbols the compiler makes.
_SPECIAL_PREFIXES = (
    "typeinfo name for ",
    "typeinfo for ",
    "vtable for ",
    "VTT for ",
    "construction vtable for ",
    "guard variable for ",
    "TLS init function for ",
    "TLS wrapper function for ",
    "non-virtual thunk to ",
    "virtual thunk to ",
    "covariant return thunk to ",
)


def entity(demangled: str) -> str:
    """The qualified name a demangled symbol stands for, without return type or parameters.

    "void std::vector<int>::f<int>(int&&)" -> "std::vector<int>::f<int>";
    "typeinfo for streamlab::CudaError" -> "streamlab::CudaError"; "exit" -> "exit".
    """
    name = demangled
    for prefix in _SPECIAL_PREFIXES:
        if name.startswith(prefix):
            name = name[len(prefix) :]
            break
    name = name.replace(ANONYMOUS, _ANONYMOUS_WORD)  # its space and parentheses would end the scan
    depth, start, i = 0, 0, 0
    while i < len(name):
        if depth == 0 and name.startswith("operator", i) and (i == 0 or name[i - 1] in ": "):
            end = i + len("operator") + (2 if name.startswith("()", i + len("operator")) else 0)
            while end < len(name) and name[end] != "(":
                end += 1
            return name[start:end].replace(_ANONYMOUS_WORD, ANONYMOUS)
        char = name[i]
        if char == "<":
            depth += 1
        elif char == ">":
            depth -= 1
        elif char == "(" and depth == 0:
            return name[start:i].replace(_ANONYMOUS_WORD, ANONYMOUS)
        elif char == " " and depth == 0:
            start = i + 1  # what came before was a return type
        i += 1
    return name[start:].replace(_ANONYMOUS_WORD, ANONYMOUS)


def forbidden_reason(name: str) -> str | None:
    """Why graded code may not use `name` (an entity), or None when FORBIDDEN does not name it."""
    for patterns, reason in FORBIDDEN:
        if any(fnmatchcase(name, pattern) for pattern in patterns.split()):
            return reason
    return None


def allowed(name: str, lab_namespaces: set[str], extra: list[str]) -> bool:
    """True when graded code may use `name`: an ordinary function, the lab's own, or one the lab allows."""
    if any(name == ns or name.startswith(ns + "::") for ns in lab_namespaces):
        return True
    return any(fnmatchcase(name, pattern) for pattern in (*ALLOWED, *extra))
