#include "json_file.hpp"

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <system_error>

namespace streamlab::detail {

namespace {

/// `value` as one line of JSON; text that is not valid UTF-8 is replaced, never thrown on.
std::string one_line(const nlohmann::ordered_json& value) {
    return value.dump(-1, ' ', false, nlohmann::ordered_json::error_handler_t::replace);
}

}  // namespace

nlohmann::ordered_json metadata_block(const char* format, const std::string& program, const std::string& date,
                                      const DeviceFacts& device) {
    return nlohmann::ordered_json{
        {"format", format},
        {"version", kFileFormatVersion},
        {"program", program},
        {"date", date},
        {"device",
         {
             {"name", device.name},
             {"compute_capability", device.compute_capability()},
             {"sm_count", device.sm_count},
             {"copy_engines", device.copy_engines},
             {"concurrent_kernels", device.concurrent_kernels},
             {"total_memory_bytes", device.total_memory_bytes},
             {"driver_version", format_cuda_version(device.driver_version)},
             {"runtime_version", format_cuda_version(device.runtime_version)},
         }},
    };
}

std::string json_file_text(const nlohmann::ordered_json& metadata, const std::vector<FileSection>& sections) {
    std::string text = "{\n  \"otherData\": " + one_line(metadata);
    for (const auto& [key, value] : sections) {
        text += ",\n  " + one_line(key) + ": ";
        if (!value.is_array()) {
            text += one_line(value);
            continue;
        }
        text += "[";
        for (std::size_t i = 0; i < value.size(); ++i) {
            text += (i == 0 ? "\n    " : ",\n    ") + one_line(value[i]);
        }
        text += value.empty() ? "]" : "\n  ]";
    }
    return text + "\n}\n";
}

void write_file_atomically(const std::string& path, const std::string& text, const std::string& what) {
    namespace fs = std::filesystem;
    const fs::path target(path);
    std::error_code error;
    if (target.has_parent_path()) {
        fs::create_directories(target.parent_path(), error);  // a failure shows up when opening below
    }
    // The process id keeps two programs writing the same file from sharing a temporary file.
    const fs::path temporary(path + ".tmp-" + std::to_string(::getpid()));
    {
        std::ofstream out(temporary, std::ios::binary | std::ios::trunc);
        out << text;
        out.close();
        if (!out) {
            fs::remove(temporary, error);
            throw std::runtime_error("cannot write " + what + " " + path + " (writing " + temporary.string() +
                                     " failed)");
        }
    }
    // rename() replaces the target in one step: a reader sees the old file or the new one.
    fs::rename(temporary, target, error);
    if (error) {
        fs::remove(temporary, error);
        throw std::runtime_error("cannot rename " + temporary.string() + " to " + path + ": " + error.message());
    }
}

}  // namespace streamlab::detail
