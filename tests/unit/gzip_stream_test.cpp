#include <catch2/catch.hpp>

#include <atomic>
#include <string>
#include <thread>
#include <vector>

#include "collectors/metric_families.h"
#include "daemon/exposition.h"
#include "daemon/gzip_stream.h"
#include "test_helpers.h"

using namespace diskperf;
using namespace diskperf::test;

namespace {

// Text of `lines` exposition-like lines, line i ending in `i * step`.
std::string lines_text(const std::string& name, int lines, int step) {
  std::string s;
  for (int i = 0; i < lines; ++i)
    s += name + "{device=\"sd" + std::to_string(i) + "\"} " + std::to_string(i * step) + "\n";
  return s;
}

// One gzip stream of the pieces: ("", text) written, (key, text) written as a kept segment.
// `reused` gets write_segment's answers in order.
std::string stream(const std::vector<std::pair<std::string, std::string>>& pieces, DeflatedSegments& segments,
                   std::vector<bool>* reused = nullptr) {
  std::string out;
  GzipWriter z([&](std::string_view piece) { out.append(piece); });
  for (const auto& [key, text] : pieces) {
    if (key.empty()) {
      z.write(text);
    } else {
      const bool r = z.write_segment(key, text, segments);
      if (reused) reused->push_back(r);
    }
  }
  z.finish();
  return out;
}

std::string joined(const std::vector<std::pair<std::string, std::string>>& pieces) {
  std::string s;
  for (const auto& p : pieces) s += p.second;
  return s;
}

}  // namespace

TEST_CASE("gzip: writes inflate to the text, with the RFC 1952 header and a trailer zlib checks", "[gzip]") {
  const std::string text = lines_text("diskperf_disk_reads_completed_total", 20000, 7);
  std::string out;
  GzipWriter z([&](std::string_view piece) { out.append(piece); });
  for (std::size_t at = 0; at < text.size(); at += 65536) z.write(std::string_view(text).substr(at, 65536));
  z.write("");
  z.finish();
  REQUIRE(out.size() > 18);
  CHECK(out.substr(0, 4) == std::string("\x1f\x8b\x08\x00", 4));
  CHECK(gunzip(out) == text);
  CHECK(out.size() < text.size() / 5);
  CHECK(gunzip(gzip("")).empty());
  CHECK(gunzip(gzip("x")) == "x");
  // A corrupted trailer is caught by the reader (the CRC-32 is checked).
  std::string bad = gzip("some text");
  bad[bad.size() - 8] ^= 1;
  CHECK_THROWS(gunzip(bad));
}

TEST_CASE("gzip: a kept segment is sent again as the same bytes while its text is the same", "[gzip]") {
  DeflatedSegments segments;
  const std::string settings = lines_text("diskperf_disk_nr_requests", 3000, 0);
  const std::string facts = lines_text("diskperf_disk_info", 2000, 0);
  std::vector<std::pair<std::string, std::string>> pieces{
      {"", lines_text("diskperf_disk_reads_completed_total", 3000, 3)},
      {"settings", settings},
      {"", "# a line between two segments\n"},
      {"facts", facts},
      {"facts2", facts},  // the same text under another key: a segment of its own
      {"", lines_text("diskperf_disk_writes_completed_total", 100, 5)},
  };
  std::vector<bool> reused;
  const std::string first = stream(pieces, segments, &reused);
  CHECK(reused == std::vector<bool>{false, false, false});
  CHECK(gunzip(first) == joined(pieces));
  REQUIRE(segments.find("settings"));
  CHECK(segments.find("settings")->size == settings.size());
  CHECK(segments.bytes() > 0);

  // The next stream: other live text around them, the same segments, sent as the kept bytes.
  pieces[0].second = lines_text("diskperf_disk_reads_completed_total", 3000, 4);
  reused.clear();
  const std::string second = stream(pieces, segments, &reused);
  CHECK(reused == std::vector<bool>{true, true, true});
  CHECK(gunzip(second) == joined(pieces));
  CHECK(second.find(segments.find("settings")->deflated) != std::string::npos);
  CHECK(second.find(segments.find("facts")->deflated) != std::string::npos);

  // One value changed, same length: compressed anew, and the new text is what is read.
  std::string changed = settings;
  changed[changed.find("} 0\n") + 2] = '1';
  pieces[1].second = changed;
  reused.clear();
  const std::string third = stream(pieces, segments, &reused);
  CHECK(reused == std::vector<bool>{false, true, true});
  CHECK(gunzip(third) == joined(pieces));
  CHECK(gunzip(third).find(changed) != std::string::npos);

  // Segments first, back to back, last, and an empty one; no plain text at all.
  reused.clear();
  std::vector<std::pair<std::string, std::string>> only{{"facts", facts}, {"settings", changed}, {"empty", ""}};
  const std::string fourth = stream(only, segments, &reused);
  CHECK(reused == std::vector<bool>{true, true, false});
  CHECK(gunzip(fourth) == facts + changed);
}

TEST_CASE("gzip: streams sharing kept segments on several threads all inflate to their text", "[gzip]") {
  DeflatedSegments segments;
  const std::vector<std::string> variants{lines_text("a_metric", 500, 1), lines_text("a_metric", 500, 2)};
  std::atomic<int> good{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t)
    threads.emplace_back([&, t] {
      for (int i = 0; i < 50; ++i) {
        std::vector<std::pair<std::string, std::string>> pieces{
            {"", "# stream " + std::to_string(t) + " " + std::to_string(i) + "\n"},
            {"a", variants[(t + i) % 2]},
            {"b", variants[0]},
            {"", "# end\n"}};
        try {
          if (gunzip(stream(pieces, segments)) == joined(pieces)) ++good;
        } catch (const std::exception&) {
        }
      }
    });
  for (auto& th : threads) th.join();
  CHECK(good == 200);
}

TEST_CASE("gzip: write_gzip sends families that seldom change as kept segments, the same text as to_text",
          "[gzip]") {
  auto families = [](double nr_requests, double reads) {
    Families fs;
    fs.reserve(3);  // references to the families are held while more are added
    auto& live = add_family(fs, "diskperf_disk_reads_completed_total", "Reads.", prometheus::MetricType::Counter);
    auto& settings = add_family(fs, "diskperf_disk_nr_requests", "Requests.", prometheus::MetricType::Gauge);
    settings.seldom_changes = true;
    auto& info = add_family(fs, "diskperf_disk_info", "Facts.", prometheus::MetricType::Gauge);
    info.seldom_changes = true;
    for (int i = 0; i < 1000; ++i) {
      const std::string dev = "sd" + std::to_string(i);
      live.add(reads + i, {{"device", dev}});
      settings.add(nr_requests, {{"device", dev}});
      info.add(1, {{"device", dev}, {"model", "Virtual Disk"}});
    }
    return fs;
  };
  DeflatedSegments segments;
  auto gz = [&](const Families& fs, std::size_t* reused) {
    std::string out;
    GzipWriter z([&](std::string_view piece) { out.append(piece); });
    *reused = write_gzip(fs, z, segments, 4096);
    z.finish();
    return out;
  };
  std::size_t reused = 99;
  const Families a = families(254, 10);
  CHECK(gunzip(gz(a, &reused)) == to_text(a));
  CHECK(reused == 0);
  const Families b = families(254, 20);
  CHECK(gunzip(gz(b, &reused)) == to_text(b));
  CHECK(reused == 2);
  const Families c = families(64, 30);  // a setting written by hand
  const std::string text = gunzip(gz(c, &reused));
  CHECK(text == to_text(c));
  CHECK(reused == 1);
  CHECK(text.find("diskperf_disk_nr_requests{device=\"sd999\"} 64\n") != std::string::npos);
}
