#include <catch2/catch.hpp>

#include "collectors/queue_parser.h"

using namespace diskperf;

TEST_CASE("active scheduler is the bracketed entry of queue/scheduler", "[queue]") {
  CHECK(parse_active_scheduler("none [mq-deadline] kyber bfq \n") == "mq-deadline");
  CHECK(parse_active_scheduler("[none] mq-deadline kyber bfq \n") == "none");
  CHECK(parse_active_scheduler("none\n") == "none");  // bio-based devices: one entry, no brackets
  CHECK(parse_active_scheduler("[bfq]") == "bfq");
  CHECK_FALSE(parse_active_scheduler(""));
  CHECK_FALSE(parse_active_scheduler("\n"));
  CHECK_FALSE(parse_active_scheduler("none [mq-deadline kyber"));  // unbalanced
  CHECK_FALSE(parse_active_scheduler("[none] [kyber]"));           // two active
  CHECK_FALSE(parse_active_scheduler("none kyber"));               // none active
  CHECK_FALSE(parse_active_scheduler("[]"));
  CHECK_FALSE(parse_active_scheduler("no]ne"));
}

TEST_CASE("integer attributes: whole decimal numbers only", "[queue]") {
  CHECK(parse_u64("2048\n") == 2048u);
  CHECK(parse_u64("  0 ") == 0u);
  CHECK(parse_u64("18446744073709551615") == 18446744073709551615ull);
  CHECK_FALSE(parse_u64("18446744073709551616"));
  CHECK_FALSE(parse_u64(""));
  CHECK_FALSE(parse_u64("-1"));
  CHECK_FALSE(parse_u64("+1"));
  CHECK_FALSE(parse_u64("12 34"));
  CHECK_FALSE(parse_u64("0x10"));
  CHECK_FALSE(parse_u64("garbage"));
  CHECK(scale_u64(parse_u64("128"), 1024) == 131072u);
  CHECK_FALSE(scale_u64(parse_u64("18014398509481984"), 1024));  // 2^54 KiB overflows
  CHECK_FALSE(scale_u64(std::nullopt, 512));
}

TEST_CASE("inflight is two counts, reads then writes", "[queue]") {
  auto f = parse_inflight("       3        1\n");
  REQUIRE(f);
  CHECK(f->reads == 3);
  CHECK(f->writes == 1);
  CHECK_FALSE(parse_inflight("1"));
  CHECK_FALSE(parse_inflight("1 2 3"));
  CHECK_FALSE(parse_inflight("a b"));
  CHECK_FALSE(parse_inflight(""));
}

TEST_CASE("Azure LUN link names and /dev link targets", "[queue]") {
  CHECK(parse_azure_lun("lun0") == 0u);
  CHECK(parse_azure_lun("lun12") == 12u);
  CHECK_FALSE(parse_azure_lun("lun0-part1"));
  CHECK_FALSE(parse_azure_lun("lun"));
  CHECK_FALSE(parse_azure_lun("root"));
  CHECK_FALSE(parse_azure_lun("lunx"));
  CHECK(link_target_name("../../../sdc") == "sdc");
  CHECK(link_target_name("../../sdc") == "sdc");
  CHECK(link_target_name("sdc") == "sdc");
  CHECK(link_target_name("../dm-0/") == "dm-0");
  CHECK(link_target_name("") == "");
  CHECK(trim_attr("Virtual Disk    \n") == "Virtual Disk");
}

TEST_CASE("queue settings in base units from raw attribute texts", "[queue]") {
  SysfsAttrs a{{"device/queue_depth", "254\n"},
               {"queue/nr_requests", "256\n"},
               {"queue/max_sectors_kb", "1280\n"},
               {"queue/max_hw_sectors_kb", "2048\n"},
               {"queue/read_ahead_kb", "4096\n"},
               {"queue/logical_block_size", "512\n"},
               {"queue/physical_block_size", "4096\n"},
               {"queue/minimum_io_size", "65536\n"},
               {"queue/optimal_io_size", "196608\n"},
               {"queue/rotational", "1\n"},
               {"size", "4294967296\n"},
               {"inflight", "       3        1\n"},
               {"queue/scheduler", "none [mq-deadline] kyber bfq \n"},
               {"queue/write_cache", "write back\n"},
               {"device/model", "Virtual Disk    \n"},
               {"device/vendor", "Msft    \n"},
               {"device/wwid", "naa.60022480a7f3d2e1c0b9a8f7e6d5c4b3\n"}};
  QueueSettings q = parse_queue_settings(a);
  CHECK(q.queue_depth == 254u);
  CHECK(q.nr_requests == 256u);
  CHECK(q.max_sectors_bytes == 1280u * 1024);
  CHECK(q.max_hw_sectors_bytes == 2048u * 1024);
  CHECK(q.read_ahead_bytes == 4096u * 1024);
  CHECK(q.logical_block_size == 512u);
  CHECK(q.physical_block_size == 4096u);
  CHECK(q.minimum_io_size == 65536u);
  CHECK(q.optimal_io_size == 196608u);
  CHECK(q.rotational == 1u);
  CHECK(q.size_bytes == 4294967296ull * 512);
  REQUIRE(q.inflight);
  CHECK(q.inflight->reads == 3);
  CHECK(q.scheduler == "mq-deadline");
  CHECK(q.write_cache == "write back");
  CHECK(q.model == "Virtual Disk");
  CHECK(q.vendor == "Msft");
  CHECK(q.wwid == "naa.60022480a7f3d2e1c0b9a8f7e6d5c4b3");
  // The namespace's own wwid (NVMe) wins over device/wwid.
  a["wwid"] = "eui.3a7b0c1d2e3f4050\n";
  CHECK(parse_queue_settings(a).wwid == "eui.3a7b0c1d2e3f4050");
}

TEST_CASE("queue settings: absent or garbage attributes leave fields empty, never 0", "[queue]") {
  QueueSettings none = parse_queue_settings({});
  CHECK_FALSE(none.queue_depth);
  CHECK_FALSE(none.size_bytes);
  CHECK_FALSE(none.inflight);
  CHECK_FALSE(none.scheduler);
  CHECK_FALSE(none.model);
  SysfsAttrs bad{{"device/queue_depth", ""},       {"queue/nr_requests", "garbage"},
                 {"queue/rotational", "7"},         {"queue/max_sectors_kb", "99999999999999999999"},
                 {"queue/read_ahead_kb", "-128"},  {"size", "18446744073709551615"},
                 {"inflight", "1"},                 {"queue/scheduler", "none [mq-deadline kyber"},
                 {"device/model", "   \n"},         {"queue/logical_block_size", "512\n"}};
  QueueSettings q = parse_queue_settings(bad);
  CHECK_FALSE(q.queue_depth);
  CHECK_FALSE(q.nr_requests);
  CHECK_FALSE(q.rotational);
  CHECK_FALSE(q.max_sectors_bytes);
  CHECK_FALSE(q.read_ahead_bytes);
  CHECK_FALSE(q.size_bytes);  // x 512 overflows
  CHECK_FALSE(q.inflight);
  CHECK_FALSE(q.scheduler);
  CHECK_FALSE(q.model);
  CHECK(q.logical_block_size == 512u);
}

TEST_CASE("queue parser: one attribute at a time gives what the map gives", "[queue]") {
  QueueSettings q;
  parse_queue_attr("queue/max_sectors_kb", "1280\n", q);
  parse_queue_attr("size", "2147483648\n", q);
  parse_queue_attr("queue/rotational", "2\n", q);  // not 0 or 1: empty
  parse_queue_attr("queue/scheduler", "[mq-deadline] none\n", q);
  parse_queue_attr("inflight", "       3        1\n", q);
  parse_queue_attr("queue/nr_requests", "garbage\n", q);
  parse_queue_attr("queue/unknown", "7\n", q);
  CHECK(q.max_sectors_bytes == 1280u * 1024);
  CHECK(q.size_bytes == 2147483648ull * 512);
  CHECK_FALSE(q.rotational);
  CHECK(q.scheduler == "mq-deadline");
  CHECK(q.inflight->reads == 3);
  CHECK(q.inflight->writes == 1);
  CHECK_FALSE(q.nr_requests);
  // wwid wins over device/wwid in either order; a blank wwid does not erase device/wwid.
  QueueSettings a, b, c;
  parse_queue_attr("wwid", "eui.1\n", a);
  parse_queue_attr("device/wwid", "naa.2\n", a);
  parse_queue_attr("device/wwid", "naa.2\n", b);
  parse_queue_attr("wwid", "eui.1\n", b);
  parse_queue_attr("device/wwid", "naa.2\n", c);
  parse_queue_attr("wwid", "  \n", c);
  CHECK(a.wwid == "eui.1");
  CHECK(b.wwid == "eui.1");
  CHECK(c.wwid == "naa.2");
}

TEST_CASE("parse_queue_attr: garbage empties the field it names", "[queue]") {
  QueueSettings q;
  q.size_bytes = 5;
  q.nr_requests = 7;
  parse_queue_attr("size", "junk\n", q);
  CHECK_FALSE(q.size_bytes);
  CHECK(q.nr_requests == 7u);  // other fields untouched
  parse_queue_attr("device/wwid", "naa.1\n", q);
  parse_queue_attr("wwid", "  \n", q);
  CHECK(q.wwid == "naa.1");
}

TEST_CASE("/proc/partitions: name and size in KiB of each line; header, blank and malformed lines skipped",
          "[queue]") {
  const std::string text =
      "major minor  #blocks  name\n"
      "\n"
      " 254        0   31457280 vda\n"
      " 254        1   31336431 vda1\n"
      "   7       64      65536 loop64\n"
      "   8       16 garbage sdb\n"
      "   8       17 1 2 sdb1\n"
      "   x        0        10 sdz\n"
      " 259        0 18446744073709551615 nvme0n1";  // no final newline
  auto parts = parse_proc_partitions(text);
  REQUIRE(parts.size() == 4);
  CHECK(parts[0].name == "vda");
  CHECK(parts[0].kib == 31457280);
  CHECK(parts[1].name == "vda1");
  CHECK(parts[1].kib == 31336431);
  CHECK(parts[2].name == "loop64");
  CHECK(parts[3].name == "nvme0n1");
  CHECK(parts[3].kib == 18446744073709551615ULL);
  CHECK(parse_proc_partitions("").empty());
  CHECK(parse_proc_partitions("major minor  #blocks  name\n").empty());
}

TEST_CASE("text: next_line takes one line and says whether it ended in a newline", "[text]") {
  std::string_view text = "a b\n\nlast";
  bool terminated = false;
  CHECK(next_line(text, &terminated) == "a b");
  CHECK(terminated);
  CHECK(next_line(text, &terminated).empty());
  CHECK(terminated);
  CHECK(next_line(text, &terminated) == "last");
  CHECK_FALSE(terminated);
  CHECK(text.empty());
  std::string_view one = "x\n";
  CHECK(next_line(one) == "x");
  CHECK(one.empty());
}
