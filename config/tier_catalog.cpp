#include "config/tier_catalog.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <map>
#include <set>
#include <unordered_map>

namespace diskperf {
namespace embedded {
extern const char* const kTiersCsv;    // config/tiers.csv
extern const char* const kVmSizesCsv;  // config/vm_sizes.csv
}  // namespace embedded

namespace {

constexpr double kMB = 1e6;  // Azure MB/s = 10^6 bytes/s

bool iequals(std::string_view a, std::string_view b) {
  return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
           return std::tolower(static_cast<unsigned char>(x)) == std::tolower(static_cast<unsigned char>(y));
         });
}

std::optional<double> number(const std::string& s) {
  if (s.empty()) return std::nullopt;
  char* end = nullptr;
  double d = std::strtod(s.c_str(), &end);
  if (!end || *end != '\0' || !std::isfinite(d) || d < 0) return std::nullopt;
  return d;
}

// Columns by header name; every row is read through it.
struct Columns {
  std::map<std::string, std::size_t> index;
  std::vector<std::string> errors;
  Columns(const std::vector<std::string>& header, std::initializer_list<const char*> required) {
    for (std::size_t i = 0; i < header.size(); ++i) index[header[i]] = i;
    for (const char* r : required)
      if (!index.count(r)) errors.push_back(std::string("header: missing column ") + r);
  }
  std::string get(const std::vector<std::string>& row, const char* col) const {
    auto it = index.find(col);
    return it == index.end() || it->second >= row.size() ? std::string() : row[it->second];
  }
};

}  // namespace

std::string_view to_string(BurstModel m) {
  switch (m) {
    case BurstModel::credit: return "credit";
    case BurstModel::on_demand: return "on_demand";
    case BurstModel::none: break;
  }
  return "none";
}

std::vector<std::vector<std::string>> split_csv(std::string_view text) {
  std::vector<std::vector<std::string>> rows;
  std::vector<std::string> row;
  std::string field;
  bool quoted = false, any = false;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (quoted) {
      if (c == '"' && i + 1 < text.size() && text[i + 1] == '"') {
        field += '"';
        ++i;
      } else if (c == '"') {
        quoted = false;
      } else {
        field += c;
      }
      continue;
    }
    if (c == '"') {
      quoted = true;
      any = true;
    } else if (c == ',') {
      row.push_back(std::move(field));
      field.clear();
      any = true;
    } else if (c == '\n' || c == '\r') {
      if (c == '\r' && i + 1 < text.size() && text[i + 1] == '\n') ++i;
      if (any || !field.empty()) {
        row.push_back(std::move(field));
        rows.push_back(std::move(row));
      }
      row.clear();
      field.clear();
      any = false;
    } else {
      field += c;
      any = true;
    }
  }
  if (any || !field.empty()) {
    row.push_back(std::move(field));
    rows.push_back(std::move(row));
  }
  return rows;
}

namespace {

// Parses the CSV `text`, checks that its header has the `required` columns,
// and calls row_fn(row, cols, where) for each data row as wide as the
// header; "where" is "line N: ". Table, header and width errors go to `errors`.
template <typename RowFn>
void for_each_csv_row(std::string_view text, std::initializer_list<const char*> required,
                      std::vector<std::string>& errors, RowFn row_fn) {
  auto rows = split_csv(text);
  if (rows.empty()) {
    errors.push_back("empty table");
    return;
  }
  Columns cols(rows[0], required);
  if (!cols.errors.empty()) {
    errors.insert(errors.end(), cols.errors.begin(), cols.errors.end());
    return;
  }
  for (std::size_t r = 1; r < rows.size(); ++r) {
    const auto& row = rows[r];
    const std::string where = "line " + std::to_string(r + 1) + ": ";
    if (row.size() != rows[0].size()) {
      errors.push_back(where + std::to_string(row.size()) + " fields, header has " + std::to_string(rows[0].size()));
      continue;
    }
    row_fn(row, cols, where);
  }
}

}  // namespace

TableParse<DiskTier> parse_tier_csv(std::string_view text) {
  TableParse<DiskTier> out;
  const auto required = {"sku", "family", "size_gib", "iops", "mbps", "burst_iops", "burst_mbps", "burst_model",
                         "burst_duration_min", "source"};
  for_each_csv_row(text, required, out.errors, [&](const auto& row, const Columns& cols, const std::string& where) {
    DiskTier t;
    t.name = cols.get(row, "sku");
    t.family = cols.get(row, "family");
    t.source = cols.get(row, "source");
    t.size_gib = number(cols.get(row, "size_gib"));
    auto iops = number(cols.get(row, "iops"));
    auto mbps = number(cols.get(row, "mbps"));
    if (t.name.empty() || t.family.empty()) out.errors.push_back(where + "empty sku or family");
    if (!iops || !mbps) {
      out.errors.push_back(where + "iops and mbps must be non-negative numbers");
      return;
    }
    t.iops = *iops;
    t.bytes_per_second = *mbps * kMB;
    t.burst_iops = number(cols.get(row, "burst_iops"));
    if (auto b = number(cols.get(row, "burst_mbps"))) t.burst_bytes_per_second = *b * kMB;
    const std::string model = cols.get(row, "burst_model");
    if (model.rfind("credit", 0) == 0) t.burst_model = BurstModel::credit;
    else if (model.rfind("on-demand", 0) == 0) t.burst_model = BurstModel::on_demand;
    else if (model.empty() || model == "none") t.burst_model = BurstModel::none;
    else out.errors.push_back(where + "burst_model '" + model + "' is not credit, on-demand or none");
    if (t.burst_model != BurstModel::none && (!t.burst_iops || !t.burst_bytes_per_second))
      out.errors.push_back(where + "a burst model without burst_iops and burst_mbps");
    if (auto d = number(cols.get(row, "burst_duration_min"))) t.burst_duration_seconds = *d * 60;
    out.rows.push_back(std::move(t));
  });
  return out;
}

namespace {

// Reads the numeric cells of one row: empty is unknown; anything else but a non-negative number
// is an error naming the line and column.
struct CellReader {
  const std::vector<std::string>& row;
  const Columns& cols;
  const std::string& where;
  std::vector<std::string>& errors;

  std::optional<double> num(const char* col, double scale = 1) const {
    const std::string s = cols.get(row, col);
    if (s.empty()) return std::nullopt;
    auto d = number(s);
    if (!d) {
      errors.push_back(where + "column " + col + ": '" + s + "' is not a number");
      return std::nullopt;
    }
    return *d * scale;
  }
  std::optional<unsigned> whole(const char* col) const {
    auto d = num(col);
    if (!d) return std::nullopt;
    if (*d != std::floor(*d) || *d > std::numeric_limits<unsigned>::max()) {
      errors.push_back(where + "column " + col + ": '" + cols.get(row, col) + "' is not a whole number");
      return std::nullopt;
    }
    return static_cast<unsigned>(*d);
  }
};

std::string lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

}  // namespace

TableParse<VmSize> parse_vm_csv(std::string_view text) {
  TableParse<VmSize> out;
  const auto required = {"vm_size", "vcpu", "mem_gib", "max_data_disks", "uncached_iops", "uncached_mbps",
                         "burst_uncached_iops", "burst_uncached_mbps", "cached_iops", "cached_mbps", "cache_gib",
                         "premium_v2_ultra_iops", "premium_v2_ultra_mbps", "disk_controller", "source"};
  std::set<std::string> seen;
  for_each_csv_row(text, required, out.errors, [&](const auto& row, const Columns& cols, const std::string& where) {
    const std::size_t errors_before = out.errors.size();
    const CellReader cell{row, cols, where, out.errors};
    VmSize v;
    v.name = cols.get(row, "vm_size");
    v.source = cols.get(row, "source");
    v.disk_controller = cols.get(row, "disk_controller");
    if (v.name.empty()) out.errors.push_back(where + "empty vm_size");
    else if (!seen.insert(lower(v.name)).second) out.errors.push_back(where + "vm_size '" + v.name + "' given twice");
    if (!v.disk_controller.empty() && v.disk_controller != "NVMe" && v.disk_controller != "SCSI, NVMe")
      out.errors.push_back(where + "disk_controller '" + v.disk_controller + "' is not NVMe, \"SCSI, NVMe\" or empty");
    v.vcpu = cell.whole("vcpu");
    v.mem_gib = cell.num("mem_gib");
    v.max_data_disks = cell.whole("max_data_disks");
    v.uncached_iops = cell.num("uncached_iops");
    v.uncached_bytes_per_second = cell.num("uncached_mbps", kMB);
    v.burst_uncached_iops = cell.num("burst_uncached_iops");
    v.burst_uncached_bytes_per_second = cell.num("burst_uncached_mbps", kMB);
    v.cached_iops = cell.num("cached_iops");
    v.cached_bytes_per_second = cell.num("cached_mbps", kMB);
    v.cache_gib = cell.num("cache_gib");
    v.premium_v2_ultra_iops = cell.num("premium_v2_ultra_iops");
    v.premium_v2_ultra_bytes_per_second = cell.num("premium_v2_ultra_mbps", kMB);
    if (out.errors.size() == errors_before) out.rows.push_back(std::move(v));
  });
  return out;
}

std::vector<std::string> validate_configurable_caps(std::string_view family, std::optional<double> size_gib,
                                                    double iops, double mbps) {
  std::vector<std::string> e;
  auto fmt = [](double d) {
    std::string s = std::to_string(d);
    s.erase(s.find_last_not_of('0') + 1);
    if (!s.empty() && s.back() == '.') s.pop_back();
    return s;
  };
  if (family == "premium_ssd_v2") {
    if (size_gib && (*size_gib < 1 || *size_gib > 65536)) e.push_back("size_gib must be 1 to 65536 for premium_ssd_v2");
    const double max_iops = size_gib ? std::min(80000.0, std::max(3000.0, 500.0 * *size_gib)) : 80000.0;
    if (iops < 3000 || iops > max_iops)
      e.push_back("iops " + fmt(iops) + " outside 3000.." + fmt(max_iops) +
                  " (premium_ssd_v2: 3000, +500 per GiB above 6 GiB, at most 80000)");
    const double max_mbps = std::min(2000.0, std::max(125.0, 0.25 * iops));
    if (mbps < 125 || mbps > max_mbps)
      e.push_back("mbps " + fmt(mbps) + " outside 125.." + fmt(max_mbps) +
                  " (premium_ssd_v2: 125, up to 0.25 MB/s per IOPS, at most 2000)");
  } else if (family == "ultra") {
    if (size_gib && (*size_gib < 4 || *size_gib > 65536)) e.push_back("size_gib must be 4 to 65536 for ultra");
    const double max_iops = size_gib ? std::min(400000.0, 1000.0 * *size_gib) : 400000.0;
    if (iops < 100 || iops > max_iops)
      e.push_back("iops " + fmt(iops) + " outside 100.." + fmt(max_iops) +
                  " (ultra: 1000 per GiB, at most 400000)");
    const double max_mbps = std::min(10000.0, 0.25 * iops);
    if (mbps < 1 || mbps > max_mbps)
      e.push_back("mbps " + fmt(mbps) + " outside 1.." + fmt(max_mbps) +
                  " (ultra: up to 0.25 MB/s per IOPS, at most 10000)");
  } else {
    e.push_back("family '" + std::string(family) + "' has no per-disk caps (premium_ssd_v2 or ultra)");
  }
  return e;
}

const std::vector<DiskTier>& builtin_tiers() {
  static const std::vector<DiskTier> tiers = parse_tier_csv(embedded::kTiersCsv).rows;
  return tiers;
}

const std::vector<VmSize>& builtin_vm_sizes() {
  static const std::vector<VmSize> sizes = parse_vm_csv(embedded::kVmSizesCsv).rows;
  return sizes;
}

const DiskTier* find_tier(const std::vector<DiskTier>& tiers, std::string_view name) {
  for (const auto& t : tiers)
    if (iequals(t.name, name)) return &t;
  return nullptr;
}

const VmSize* find_vm_size(const std::vector<VmSize>& sizes, std::string_view name) {
  if (&sizes == &builtin_vm_sizes()) {
    static const auto index = [] {
      std::unordered_map<std::string, const VmSize*> m;
      for (const auto& v : builtin_vm_sizes()) m.emplace(lower(v.name), &v);
      return m;
    }();
    auto it = index.find(lower(name));
    return it == index.end() ? nullptr : it->second;
  }
  for (const auto& v : sizes)
    if (iequals(v.name, name)) return &v;
  return nullptr;
}

namespace {

// Levenshtein distance of two lowercase strings, two rows of the table at a time.
std::size_t edit_distance(const std::string& a, const std::string& b) {
  std::vector<std::size_t> prev(b.size() + 1), cur(b.size() + 1);
  for (std::size_t j = 0; j <= b.size(); ++j) prev[j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    cur[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j)
      cur[j] = std::min({prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1)});
    std::swap(prev, cur);
  }
  return prev[b.size()];
}

}  // namespace

std::vector<std::string> nearest_vm_sizes(const std::vector<VmSize>& sizes, std::string_view name, std::size_t n) {
  constexpr std::size_t kLongestCompared = 128;  // bounds the work for a pasted garbage name
  const std::string want = lower(name.substr(0, kLongestCompared));
  struct Scored {
    std::size_t distance, common_prefix;
    const VmSize* size;
  };
  std::vector<Scored> scored;
  scored.reserve(sizes.size());
  for (const auto& v : sizes) {
    const std::string have = lower(v.name);
    const auto diff = std::mismatch(want.begin(), want.end(), have.begin(), have.end());
    scored.push_back({edit_distance(want, have), static_cast<std::size_t>(diff.first - want.begin()), &v});
  }
  std::stable_sort(scored.begin(), scored.end(), [](const Scored& x, const Scored& y) {
    return x.distance != y.distance ? x.distance < y.distance : x.common_prefix > y.common_prefix;
  });
  std::vector<std::string> out;
  for (std::size_t i = 0; i < scored.size() && i < n; ++i) out.push_back(scored[i].size->name);
  return out;
}

std::vector<const DiskTier*> tiers_with_caps(std::string_view family, double iops, double bytes_per_second) {
  std::vector<const DiskTier*> out;
  for (const auto& t : builtin_tiers())
    if (t.family == family && t.iops == iops && std::fabs(t.bytes_per_second - bytes_per_second) < 0.5)
      out.push_back(&t);
  return out;
}

}  // namespace diskperf
