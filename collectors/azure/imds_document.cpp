#include "collectors/azure/imds_document.h"

#include <charconv>
#include <cmath>
#include <limits>

#include <nlohmann/json.hpp>

namespace diskperf {
namespace {

using nlohmann::json;

// The bad value as an error shows it: strings quoted and escaped (the text came from the network
// and goes to a log), long ones cut; other values by their kind.
std::string describe(const json& v) {
  switch (v.type()) {
    case json::value_t::object: return "an object";
    case json::value_t::array: return "an array";
    case json::value_t::string: {
      std::string s = json(v.get_ref<const std::string&>()).dump(-1, ' ', true, json::error_handler_t::replace);
      s = s.substr(1, s.size() - 2);
      if (s.size() > 64) s = s.substr(0, 64) + "...";
      return "'" + s + "'";
    }
    default: return v.dump();
  }
}

// Larger than any disk size in GB, IOPS or bytes/s a disk can have: a value above is garbage.
constexpr double kMaxQuantity = 1e15;

// Reads the fields of one JSON object; the first error found stays in `error`.
struct Reader {
  std::string error;

  bool fail(const std::string& path, const json& v, const char* what) {
    if (error.empty()) error = path + ": " + describe(v) + " " + what;
    return false;
  }
  static const json* member(const json& obj, const char* key) {
    auto it = obj.find(key);
    return it == obj.end() || it->is_null() ? nullptr : &*it;
  }

  bool text(const json& obj, const char* key, const std::string& path, std::string& out) {
    const json* v = member(obj, key);
    if (!v) return true;
    if (v->is_string()) out = v->get_ref<const std::string&>();
    else if (v->is_boolean()) out = v->get<bool>() ? "true" : "false";
    else if (v->is_number_unsigned()) out = std::to_string(v->get<std::uint64_t>());
    else if (v->is_number_integer()) out = std::to_string(v->get<std::int64_t>());
    else if (v->is_number_float() && std::isfinite(v->get<double>())) out = v->dump();
    else return fail(path, *v, "is not a string");
    return true;
  }

  // A finite number >= 0, as a string or a JSON number; "" is no value.
  bool number(const json& obj, const char* key, const std::string& path, std::optional<double>& out) {
    const json* v = member(obj, key);
    if (!v) return true;
    double d = 0;
    if (v->is_number()) {
      d = v->get<double>();
    } else if (v->is_string()) {
      const std::string& s = v->get_ref<const std::string&>();
      if (s.empty()) return true;
      auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), d);
      if (end != s.data() + s.size() || (ec != std::errc() && ec != std::errc::result_out_of_range))
        return fail(path, *v, "is not a number");
      if (ec == std::errc::result_out_of_range) return fail(path, *v, "is not a finite number >= 0");
    } else {
      return fail(path, *v, "is not a number");
    }
    if (!std::isfinite(d) || d < 0) return fail(path, *v, "is not a finite number >= 0");
    if (d > kMaxQuantity) return fail(path, *v, "is out of range");
    out = d;
    return true;
  }

  bool flag(const json& obj, const char* key, const std::string& path, bool& out) {
    const json* v = member(obj, key);
    if (!v) return true;
    std::string s;
    if (v->is_boolean()) s = v->get<bool>() ? "true" : "false";
    else if (v->is_number_unsigned() && v->get<std::uint64_t>() <= 1) s = v->get<std::uint64_t>() ? "true" : "false";
    else if (v->is_string()) s = v->get<std::string>();
    for (char& c : s) c = static_cast<char>(c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c);
    if (s == "true" || s == "false" || (s.empty() && v->is_string())) {
      out = s == "true";
      return true;
    }
    return fail(path, *v, "is not true or false");
  }

  bool lun(const json& obj, const std::string& path, std::optional<unsigned>& out) {
    const json* v = member(obj, "lun");
    const std::string p = path + ".lun";
    if (!v || (v->is_string() && v->get_ref<const std::string&>().empty())) {
      if (error.empty()) error = p + ": missing";
      return false;
    }
    constexpr double kMax = std::numeric_limits<unsigned>::max();
    if (v->is_string()) {
      const std::string& s = v->get_ref<const std::string&>();
      unsigned n = 0;
      auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), n);
      if (ec == std::errc::result_out_of_range) return fail(p, *v, "is not a whole number >= 0");
      if (ec != std::errc() || end != s.data() + s.size()) return fail(p, *v, "is not a number");
      out = n;
      return true;
    }
    if (!v->is_number()) return fail(p, *v, "is not a number");
    const double d = v->get<double>();
    if (!(d >= 0 && d <= kMax && std::floor(d) == d)) return fail(p, *v, "is not a whole number >= 0");
    out = static_cast<unsigned>(d);
    return true;
  }

  // obj[key] as an object: nullptr when absent or null, or (error set) when not an object.
  const json* object(const json& obj, const char* key, const std::string& path) {
    const json* v = member(obj, key);
    if (v && !v->is_object()) {
      fail(path, *v, "is not an object");
      return nullptr;
    }
    return v;
  }

  bool disk(const json& d, const std::string& path, ImdsDisk& out) {
    const json* managed = object(d, "managedDisk", path + ".managedDisk");
    if (!error.empty()) return false;
    return text(d, "name", path + ".name", out.name) && text(d, "caching", path + ".caching", out.caching) &&
           number(d, "diskSizeGB", path + ".diskSizeGB", out.disk_size_gb) &&
           (!managed || text(*managed, "storageAccountType", path + ".managedDisk.storageAccountType",
                             out.storage_account_type)) &&
           flag(d, "writeAcceleratorEnabled", path + ".writeAcceleratorEnabled", out.write_accelerator) &&
           number(d, "opsPerSecondThrottle", path + ".opsPerSecondThrottle", out.ops_per_second_throttle) &&
           number(d, "bytesPerSecondThrottle", path + ".bytesPerSecondThrottle", out.bytes_per_second_throttle);
  }

  bool storage(const json& compute, ImdsCompute& out) {
    const json* sp = object(compute, "storageProfile", "storageProfile");
    // Every VM has an OS disk: a document without its storage profile is not a good answer.
    if (!sp && error.empty()) error = "storageProfile: missing";
    if (!sp) return error.empty();
    if (const json* os = object(*sp, "osDisk", "storageProfile.osDisk")) {
      if (!disk(*os, "storageProfile.osDisk", out.os_disk.emplace())) return false;
    }
    if (!error.empty()) return false;
    const json* data = member(*sp, "dataDisks");
    if (!data) return true;
    if (!data->is_array()) return fail("storageProfile.dataDisks", *data, "is not an array");
    if (data->size() > kImdsMaxDataDisks) {
      error = "storageProfile.dataDisks: " + std::to_string(data->size()) + " disks, more than " +
              std::to_string(kImdsMaxDataDisks);
      return false;
    }
    out.data_disks.reserve(data->size());
    for (std::size_t i = 0; i < data->size(); ++i) {
      const std::string path = "storageProfile.dataDisks[" + std::to_string(i) + "]";
      const json& d = (*data)[i];
      if (!d.is_object()) return fail(path, d, "is not an object");
      ImdsDisk& disk_out = out.data_disks.emplace_back();
      if (!lun(d, path, disk_out.lun) || !disk(d, path, disk_out)) return false;
    }
    return true;
  }
};

}  // namespace

std::string log_text(std::string_view s) {
  std::string out(s.substr(0, 80));
  for (char& c : out)
    if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) c = '?';
  return out;
}

ImdsParse parse_imds_compute(std::string_view text) {
  ImdsParse out;
  const json doc = json::parse(text.begin(), text.end(), nullptr, false);
  if (doc.is_discarded()) {
    out.error = text.empty() ? "empty document" : "not JSON (" + std::to_string(text.size()) + " bytes)";
    return out;
  }
  if (!doc.is_object()) {
    out.error = "not a JSON object (" + describe(doc) + ")";
    return out;
  }
  // The whole /metadata/instance document carries the compute one under "compute".
  const json* compute = &doc;
  if (auto it = doc.find("compute"); !doc.contains("vmSize") && it != doc.end() && it->is_object()) compute = &*it;

  Reader r;
  ImdsCompute c;
  bool ok = r.text(*compute, "vmSize", "vmSize", c.vm_size) &&
            r.text(*compute, "location", "location", c.location) &&
            r.text(*compute, "name", "name", c.name) && r.text(*compute, "zone", "zone", c.zone) &&
            r.text(*compute, "resourceId", "resourceId", c.resource_id);
  if (ok && c.vm_size.empty()) {
    r.error = "vmSize: missing";
    ok = false;
  }
  ok = ok && r.storage(*compute, c);
  if (!ok) {
    out.error = r.error;
    return out;
  }
  out.compute = std::move(c);
  return out;
}

}  // namespace diskperf
