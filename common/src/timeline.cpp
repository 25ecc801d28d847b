#include "streamlab/timeline.hpp"

#include <array>
#include <nlohmann/json.hpp>
#include <string>
#include <utility>

#include "streamlab/trace_format_error.hpp"

namespace streamlab {

namespace {

// Each enum's spellings live in one table, so to_string and its parser can never disagree.
constexpr std::array<std::pair<OpKind, const char*>, 7> kOpKindNames{{
    {OpKind::Kernel, "kernel"},
    {OpKind::MemcpyH2D, "memcpy_h2d"},
    {OpKind::MemcpyD2H, "memcpy_d2h"},
    {OpKind::MemcpyD2D, "memcpy_d2d"},
    {OpKind::MemcpyP2P, "memcpy_p2p"},
    {OpKind::MemcpyOther, "memcpy_other"},
    {OpKind::Memset, "memset"},
}};

constexpr std::array<std::pair<HostMemory, const char*>, 6> kHostMemoryNames{{
    {HostMemory::NotApplicable, "not_applicable"},
    {HostMemory::Pageable, "pageable"},
    {HostMemory::Pinned, "pinned"},
    {HostMemory::Managed, "managed"},
    {HostMemory::Device, "device"},
    {HostMemory::Unknown, "unknown"},
}};

constexpr std::array<std::pair<StreamKind, const char*>, 3> kStreamKindNames{{
    {StreamKind::Created, "created"},
    {StreamKind::LegacyNull, "legacy_null"},
    {StreamKind::PerThreadDefault, "per_thread_default"},
}};

template <typename Enum, std::size_t N>
const char* name_of(Enum value, const std::array<std::pair<Enum, const char*>, N>& names) {
    for (const auto& [candidate, name] : names) {
        if (candidate == value) {
            return name;
        }
    }
    return "invalid";  // only reachable with a value cast from an out-of-range integer
}

template <typename Enum, std::size_t N>
Enum value_of(const std::string& text, const std::array<std::pair<Enum, const char*>, N>& names, const char* what) {
    for (const auto& [value, name] : names) {
        if (text == name) {
            return value;
        }
    }
    std::string known;
    for (const auto& entry : names) {
        known += known.empty() ? "" : ", ";
        known += entry.second;
    }
    // dump() quotes and escapes the text, so the message stays on one line whatever it holds.
    const std::string quoted = nlohmann::json(text).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
    throw TraceFormatError("unknown " + std::string(what) + " " + quoted + " (known: " + known + ")");
}

}  // namespace

const char* to_string(OpKind kind) {
    return name_of(kind, kOpKindNames);
}
const char* to_string(HostMemory memory) {
    return name_of(memory, kHostMemoryNames);
}
const char* to_string(StreamKind kind) {
    return name_of(kind, kStreamKindNames);
}

OpKind op_kind_from_string(const std::string& text) {
    return value_of(text, kOpKindNames, "op kind");
}

HostMemory host_memory_from_string(const std::string& text) {
    return value_of(text, kHostMemoryNames, "host memory kind");
}

StreamKind stream_kind_from_string(const std::string& text) {
    return value_of(text, kStreamKindNames, "stream kind");
}

const char* op_base_name(OpKind kind) {
    switch (kind) {
        case OpKind::MemcpyH2D:
            return "H2D";
        case OpKind::MemcpyD2H:
            return "D2H";
        case OpKind::MemcpyD2D:
            return "D2D";
        case OpKind::MemcpyP2P:
            return "P2P";
        case OpKind::MemcpyOther:
            return "memcpy";
        case OpKind::Memset:
            return "memset";
        case OpKind::Kernel:
            break;
    }
    return "kernel";
}

}  // namespace streamlab
