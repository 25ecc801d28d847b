/// @file handles.hpp
/// @brief Owning, move-only handles for CUDA streams, events and memory.
///
/// Each handle frees what it owns when it goes out of scope, so an exception
/// thrown half-way through a lab leaks nothing. Handles cannot be copied (two
/// owners would free twice) but can be moved. A default-constructed or
/// moved-from handle is *empty*: it owns nothing, touches no device, and its
/// destructor and reset() do nothing.
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <memory>
#include <type_traits>
#include <utility>

#include "streamlab/check.hpp"

namespace streamlab {

namespace detail {
/// The deleter of Owned: hands the raw handle to the CUDA call that frees it.
template <typename Raw, cudaError_t (*release)(Raw)>
struct Release {
    /// Frees `raw` (never null: unique_ptr does not call a deleter on an empty pointer).
    void operator()(Raw raw) const noexcept { SL_CHECK_NOEXCEPT(release(raw)); }
};

/// The one owning handle behind Stream, Event and HostRegistration: a unique_ptr
/// to what the raw CUDA handle points at, freed by `release`. Moves, the empty
/// state and reset() are unique_ptr's own.
template <typename Raw, cudaError_t (*release)(Raw)>
using Owned = std::unique_ptr<std::remove_pointer_t<Raw>, Release<Raw, release>>;

/// Throws std::logic_error: `get()` was called on an empty Stream.
[[noreturn]] void throw_empty_stream();
}  // namespace detail

/// A stream created with `cudaStreamCreateWithFlags`.
///
/// CUDA reads a null `cudaStream_t` as the NULL stream, so an empty Stream must
/// never hand one out: its get() throws instead of silently queuing work in the
/// NULL stream, and no constructor takes a `cudaStream_t` (nor `nullptr`). To use the NULL
/// stream, say so: pass `nullptr` (or `cudaStreamLegacy`) to the CUDA call.
class Stream {
public:
    /// Empty: owns no stream, and get() throws.
    Stream() noexcept = default;
    /// Creates a stream. `cudaStreamDefault` streams are *blocking*: they
    /// synchronize with the legacy NULL stream. `cudaStreamNonBlocking` ones do not.
    explicit Stream(unsigned int flags) : owned_(create(flags)) {}
    /// Creates a stream of scheduling `priority` (`cudaStreamCreateWithPriority`):
    /// lower numbers are greater priorities; cudaDeviceGetStreamPriorityRange says
    /// which the device offers (a value outside is clamped to the range).
    Stream(unsigned int flags, int priority) : owned_(create(flags, priority)) {}

    /// The raw stream, for CUDA calls. Throws std::logic_error when empty
    /// (default-constructed, moved from or reset), which would be the NULL stream.
    [[nodiscard]] cudaStream_t get() const {
        if (!owned_) {
            detail::throw_empty_stream();
        }
        return owned_.get();
    }
    /// Whether the handle owns a stream.
    [[nodiscard]] explicit operator bool() const noexcept { return static_cast<bool>(owned_); }
    /// Blocks the host until all work queued in this stream has finished.
    void synchronize() const { SL_CHECK(cudaStreamSynchronize(get())); }
    /// Destroys the stream now (if any); the handle is then empty.
    void reset() noexcept { owned_.reset(); }

private:
    static cudaStream_t create(unsigned int flags) {
        cudaStream_t stream = nullptr;
        SL_CHECK(cudaStreamCreateWithFlags(&stream, flags));
        return stream;
    }
    static cudaStream_t create(unsigned int flags, int priority) {
        cudaStream_t stream = nullptr;
        SL_CHECK(cudaStreamCreateWithPriority(&stream, flags, priority));
        return stream;
    }
    detail::Owned<cudaStream_t, cudaStreamDestroy> owned_;
};

/// An event created with `cudaEventCreateWithFlags`.
class Event {
public:
    /// Empty: owns no event (CUDA refuses a null event with an error).
    Event() noexcept = default;
    /// Creates an event; `cudaEventDefault` records timing, `cudaEventDisableTiming` does not.
    explicit Event(unsigned int flags) : owned_(create(flags)) {}

    /// The raw event, for CUDA calls.
    [[nodiscard]] cudaEvent_t get() const noexcept { return owned_.get(); }
    /// Whether the handle owns an event.
    [[nodiscard]] explicit operator bool() const noexcept { return static_cast<bool>(owned_); }
    /// Records the event in `stream` (the NULL stream by default).
    void record(cudaStream_t stream = nullptr) const { SL_CHECK(cudaEventRecord(get(), stream)); }
    /// Blocks the host until the event has happened.
    void synchronize() const { SL_CHECK(cudaEventSynchronize(get())); }
    /// Destroys the event now (if any); the handle is then empty.
    void reset() noexcept { owned_.reset(); }

private:
    static cudaEvent_t create(unsigned int flags) {
        cudaEvent_t event = nullptr;
        SL_CHECK(cudaEventCreateWithFlags(&event, flags));
        return event;
    }
    detail::Owned<cudaEvent_t, cudaEventDestroy> owned_;
};

/// Milliseconds between two recorded events (both must have completed).
[[nodiscard]] inline float elapsed_ms(const Event& start, const Event& stop) {
    float ms = 0.0F;
    SL_CHECK(cudaEventElapsedTime(&ms, start.get(), stop.get()));
    return ms;
}

namespace detail {
/// The memory shared by all buffer handles: a typed pointer and a count that
/// a `Free` policy releases. The policies below hold the CUDA calls.
template <typename T, typename Free>
class Buffer {
public:
    /// Owns nothing.
    Buffer() noexcept = default;
    /// Releases the memory (if any).
    ~Buffer() { reset(); }
    /// Takes over `other`'s memory; `other` then owns nothing.
    Buffer(Buffer&& other) noexcept
        : data_(std::exchange(other.data_, nullptr)),
          count_(std::exchange(other.count_, 0)),
          free_(std::move(other.free_)) {}
    /// Releases this handle's memory (if any) and takes over `other`'s.
    Buffer& operator=(Buffer&& other) noexcept {
        if (this != &other) {
            reset();
            data_ = std::exchange(other.data_, nullptr);
            count_ = std::exchange(other.count_, 0);
            free_ = std::move(other.free_);
        }
        return *this;
    }
    Buffer(const Buffer&) = delete;
    Buffer& operator=(const Buffer&) = delete;

    /// First element.
    [[nodiscard]] T* data() const noexcept { return data_; }
    /// Number of elements.
    [[nodiscard]] std::size_t size() const noexcept { return count_; }
    /// Size in bytes.
    [[nodiscard]] std::size_t bytes() const noexcept { return count_ * sizeof(T); }
    /// Whether the handle owns memory.
    [[nodiscard]] explicit operator bool() const noexcept { return data_ != nullptr; }
    /// Releases the memory now (if any).
    void reset() noexcept {
        if (data_ != nullptr) {
            free_(data_);
            data_ = nullptr;
            count_ = 0;
        }
    }

protected:
    /// Owns `count` elements at `data`, which `free` releases; for the handles' constructors.
    Buffer(T* data, std::size_t count, Free free) noexcept : data_(data), count_(count), free_(std::move(free)) {}

private:
    T* data_ = nullptr;
    std::size_t count_ = 0;
    Free free_{};
};

/// Releases memory from cudaMallocHost.
struct FreeHost {
    /// Frees `p` with cudaFreeHost.
    void operator()(void* p) const noexcept { SL_CHECK_NOEXCEPT(cudaFreeHost(p)); }
};
/// Releases memory from cudaMalloc.
struct FreeDevice {
    /// Frees `p` with cudaFree.
    void operator()(void* p) const noexcept { SL_CHECK_NOEXCEPT(cudaFree(p)); }
};
/// Releases memory from cudaMallocAsync, in the stream it belongs to.
struct FreeDeviceAsync {
    cudaStream_t stream = nullptr;  ///< The stream the free is ordered in.
    /// Queues the free of `p` in `stream` with cudaFreeAsync.
    void operator()(void* p) const noexcept { SL_CHECK_NOEXCEPT(cudaFreeAsync(p, stream)); }
};
}  // namespace detail

/// Page-locked (pinned) host memory from `cudaMallocHost`: the copy engines
/// read and write it directly, so copies from it are fast and can overlap.
template <typename T>
class PinnedBuffer : public detail::Buffer<T, detail::FreeHost> {
public:
    /// Owns nothing.
    PinnedBuffer() noexcept = default;
    /// Allocates `count` elements of pinned host memory (uninitialised).
    explicit PinnedBuffer(std::size_t count) : detail::Buffer<T, detail::FreeHost>(allocate(count), count, {}) {}

    /// Element access on the host.
    T& operator[](std::size_t i) const noexcept { return this->data()[i]; }

private:
    static T* allocate(std::size_t count) {
        void* p = nullptr;
        SL_CHECK(cudaMallocHost(&p, count * sizeof(T)));
        return static_cast<T*>(p);
    }
};

/// Device memory from `cudaMalloc`.
template <typename T>
class DeviceBuffer : public detail::Buffer<T, detail::FreeDevice> {
public:
    /// Owns nothing.
    DeviceBuffer() noexcept = default;
    /// Allocates `count` elements of device memory (uninitialised).
    explicit DeviceBuffer(std::size_t count) : detail::Buffer<T, detail::FreeDevice>(allocate(count), count, {}) {}

private:
    static T* allocate(std::size_t count) {
        void* p = nullptr;
        SL_CHECK(cudaMalloc(&p, count * sizeof(T)));
        return static_cast<T*>(p);
    }
};

/// Device memory from the stream-ordered allocator (`cudaMallocAsync`): the
/// allocation and the free are queued in a stream like any other work.
/// This is *device* memory; it pins nothing on the host.
template <typename T>
class StreamOrderedBuffer : public detail::Buffer<T, detail::FreeDeviceAsync> {
public:
    /// Owns nothing.
    StreamOrderedBuffer() noexcept = default;
    /// Queues an allocation of `count` elements in `stream`; the free is queued there too.
    StreamOrderedBuffer(std::size_t count, cudaStream_t stream)
        : detail::Buffer<T, detail::FreeDeviceAsync>(allocate(count, stream), count, detail::FreeDeviceAsync{stream}) {}

private:
    static T* allocate(std::size_t count, cudaStream_t stream) {
        void* p = nullptr;
        SL_CHECK(cudaMallocAsync(&p, count * sizeof(T), stream));
        return static_cast<T*>(p);
    }
};

/// Page-locks an existing host range with `cudaHostRegister` for as long as
/// the handle lives (`cudaHostUnregister` on destruction).
class HostRegistration {
public:
    /// Empty: registers nothing.
    HostRegistration() noexcept = default;
    /// Pins `bytes` bytes at `data` (flags: `cudaHostRegisterDefault` usually).
    HostRegistration(void* data, std::size_t bytes, unsigned int flags = cudaHostRegisterDefault)
        : owned_(register_range(data, bytes, flags)) {}

    /// Whether a range is registered.
    [[nodiscard]] explicit operator bool() const noexcept { return static_cast<bool>(owned_); }
    /// Unregisters now (if registered); the handle is then empty.
    void reset() noexcept { owned_.reset(); }

private:
    static void* register_range(void* data, std::size_t bytes, unsigned int flags) {
        SL_CHECK(cudaHostRegister(data, bytes, flags));
        return data;
    }
    detail::Owned<void*, cudaHostUnregister> owned_;
};

}  // namespace streamlab
