#!/usr/bin/env python3
"""Generates the fixture host trees of a large database VM for bench/scrape_vs_node_exporter.

  make_large_host_fixture.py OUTDIR [--disks 1000] [--volumes 200] [--stripe 4]

OUTDIR/{proc,sys,dev,dmtables,run/udev/data}, shaped like the trees of
tests/fixtures/make_sysfs_fixtures.sh (real directories, relative symlinks):
  - DISKS SCSI disks sda, sdb, ..., sdz, sdaa, ... (kernel naming), Azure-like: SCSI device
    directories under VMBUS host3.. (64 LUNs per host) with queue_depth, model, vendor, wwid;
    each disk with every queue/ file, dev, size, diskseq, inflight, mq/0..3, holders/, slaves/;
    sys/block/<disk> and sys/class/block/<disk or partition> -> ../devices/...; dev/disk/by-id/{scsi-3<wwid>,wwn-0x<wwid>} links,
    dev/disk/azure/scsi1/lunN for the first host's 64 LUNs;
  - the OS disk sda has partitions sda1 (boot) and sda2 (root), the resource disk sdb has sdb1;
  - VOLUMES LVM volumes dm-0.. (major 254), each striped over STRIPE consecutive data disks
    starting at sdc (64 KiB chunks): slaves/<disk> and <disk>/holders/dm-N links, dm/name
    (vg_dataN-lv_dataN), dm/uuid, dev/mapper/<name>, dev/disk/by-id/dm-{name,uuid}-* links,
    and dmtables/dm-N with the `dmsetup table` line;
  - proc/diskstats with one 20-column line (kernel 5.5+) per disk, partition and volume, and
    proc/partitions with their sizes;
  - run/udev/data/b<maj>:<min> udev database entries (what node_exporter 1.5's diskstats
    collector reads for node_disk_info and node_disk_device_mapper_info).
Deterministic: the same content on every run.
"""
import argparse
import os
import shutil


def w(path, text):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as f:
        f.write(text + "\n")


def lnk(target, link):
    """Relative symlink LINK -> TARGET (both absolute)."""
    os.makedirs(os.path.dirname(link), exist_ok=True)
    if os.path.lexists(link):
        os.unlink(link)
    os.symlink(os.path.relpath(target, os.path.dirname(link)), link)


def disk_name(i):
    """Kernel SCSI disk naming: 0 -> sda, 25 -> sdz, 26 -> sdaa, 702 -> sdaaa."""
    s = ""
    i += 1
    while i > 0:
        i -= 1
        s = chr(ord("a") + i % 26) + s
        i //= 26
    return "sd" + s


def blockdev(root, rel, name, devno, size, hwq, seq):
    d = f"{root}/sys/devices/{rel}"
    for sub in ("holders", "slaves", "power"):
        os.makedirs(f"{d}/{sub}", exist_ok=True)
    maj, mnr = devno.split(":")
    w(f"{d}/dev", devno)
    w(f"{d}/size", str(size))
    w(f"{d}/diskseq", str(seq))
    w(f"{d}/inflight", "       0        0")
    w(f"{d}/ro", "0")
    w(f"{d}/removable", "0")
    w(f"{d}/stat", "       0        0        0        0        0        0        0        0        0        0        0")
    w(f"{d}/uevent", f"MAJOR={maj}\nMINOR={mnr}\nDEVNAME={name}\nDEVTYPE=disk\nDISKSEQ={seq}")
    q = f"{d}/queue"
    for k, v in (("nr_requests", 256), ("max_sectors_kb", 1280), ("max_hw_sectors_kb", 2048),
                 ("read_ahead_kb", 128), ("logical_block_size", 512), ("physical_block_size", 4096),
                 ("hw_sector_size", 512), ("minimum_io_size", 4096), ("optimal_io_size", 0),
                 ("rotational", 0), ("scheduler", "[none] mq-deadline kyber bfq "),
                 ("write_cache", "write through"), ("nomerges", 0), ("rq_affinity", 1),
                 ("add_random", 0), ("discard_granularity", 4096), ("discard_max_bytes", 4294966784),
                 ("discard_max_hw_bytes", 4294966784), ("max_segments", 128),
                 ("max_segment_size", 65536), ("io_poll", 0), ("iostats", 1), ("zoned", "none"),
                 ("chunk_sectors", 0), ("dax", 0), ("fua", 0), ("nr_zones", 0),
                 ("max_discard_segments", 1), ("write_zeroes_max_bytes", 0),
                 ("wbt_lat_usec", 2000), ("io_timeout", 30000)):
        w(f"{q}/{k}", str(v))
    for i in range(hwq):
        w(f"{d}/mq/{i}/nr_tags", "1024")
        w(f"{d}/mq/{i}/cpu_list", str(i))
    lnk(d, f"{root}/sys/block/{name}")
    lnk(d, f"{root}/sys/class/block/{name}")
    return d


def partition(root, diskdir, name, number, devno, start, size):
    d = f"{diskdir}/{name}"
    os.makedirs(f"{d}/holders", exist_ok=True)
    maj, mnr = devno.split(":")
    w(f"{d}/partition", str(number))
    w(f"{d}/dev", devno)
    w(f"{d}/start", str(start))
    w(f"{d}/size", str(size))
    w(f"{d}/inflight", "       0        0")
    w(f"{d}/uevent", f"MAJOR={maj}\nMINOR={mnr}\nDEVNAME={name}\nDEVTYPE=partition\nPARTN={number}")
    lnk(d, f"{root}/sys/class/block/{name}")
    lnk(f"{root}/dev/{name}", f"{root}/dev/block/{devno}")


def stats_line(maj, mnr, name, k):
    """A /proc/diskstats line (20 columns) with deterministic, device-specific counters."""
    f = [1000 * k + 11, 37 * k, 8 * (1000 * k + 11), 3 * k + 250, 700 * k + 5, 11 * k, 16 * (700 * k + 5),
         5 * k + 900, k % 3, 4 * k + 1000, 8 * k + 1200, 2 * k, 0, 1024 * k, k, 40 + k, 7 * k]
    return f"{maj:4d} {mnr:7d} {name} " + " ".join(str(x) for x in f)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("outdir")
    ap.add_argument("--disks", type=int, default=1000)
    ap.add_argument("--volumes", type=int, default=200)
    ap.add_argument("--stripe", type=int, default=4)
    a = ap.parse_args()
    if a.volumes * a.stripe + 2 > a.disks:
        ap.error("not enough disks for the volumes")
    r = os.path.abspath(a.outdir)
    shutil.rmtree(r, ignore_errors=True)
    os.makedirs(r)
    vm = "LNXSYSTM:00/LNXSYBUS:00/ACPI0004:00/VMBUS:00"
    diskstats = []
    partitions = ["major minor  #blocks  name", ""]  # proc/partitions: size in KiB (sectors >> 1)
    udev = f"{r}/run/udev/data"
    os.makedirs(udev)
    disks = []  # (name, devno, reldir)
    for i in range(a.disks):
        name = disk_name(i)
        host, lun = 3 + i // 64, i % 64
        hctl = f"{vm}/f8b3781b-1e82-4818-a1c3-{host:012x}/host{host}/target{host}:0:0/{host}:0:0:{lun}"
        wwid = f"600224800e9b1c3a1d6f{i:012x}"
        sd = f"{r}/sys/devices/{hctl}"
        w(f"{sd}/queue_depth", "2048" if i >= 2 else "254")
        w(f"{sd}/model", "Virtual Disk    ")
        w(f"{sd}/vendor", "Msft    ")
        w(f"{sd}/rev", "1.0 ")
        w(f"{sd}/state", "running")
        w(f"{sd}/wwid", f"naa.{wwid}")
        devno = f"8:{16 * i}"
        d = blockdev(r, f"{hctl}/block/{name}", name, devno, 2147483648, 4, i + 1)
        lnk(sd, f"{d}/device")
        lnk(f"{r}/dev/{name}", f"{r}/dev/block/{devno}")
        lnk(f"{r}/dev/{name}", f"{r}/dev/disk/by-id/scsi-3{wwid}")
        lnk(f"{r}/dev/{name}", f"{r}/dev/disk/by-id/wwn-0x{wwid}")
        if host == 3:
            lnk(f"{r}/dev/{name}", f"{r}/dev/disk/azure/scsi1/lun{lun}")
        diskstats.append(stats_line(8, 16 * i, name, len(diskstats)))
        partitions.append(f"{8:4d} {16 * i:7d} {2147483648 >> 1:10d} {name}")
        w(f"{udev}/b{devno}",
          f"S:disk/by-id/scsi-3{wwid}\nS:disk/by-id/wwn-0x{wwid}\nW:1\nI:1000000\n"
          f"E:ID_SCSI=1\nE:ID_VENDOR=Msft\nE:ID_MODEL=Virtual_Disk\nE:ID_REVISION=1.0\nE:ID_TYPE=disk\n"
          f"E:ID_SERIAL=3{wwid}\nE:ID_WWN=0x{wwid}\nE:ID_PATH=acpi-VMBUS:00-scsi-0:0:0:{lun}\n"
          f"E:ID_PATH_TAG=acpi-VMBUS_00-scsi-0_0_0_{lun}\nG:systemd\nQ:systemd\nV:1")
        disks.append((name, devno, d))
        parts = {0: [(1, 2048, 262144), (2, 264192, 62650368)], 1: [(1, 2048, 2147481600)]}.get(i, [])
        for num, start, size in parts:
            pdevno = f"8:{16 * i + num}"
            partition(r, d, f"{name}{num}", num, pdevno, start, size)
            diskstats.append(stats_line(8, 16 * i + num, f"{name}{num}", len(diskstats)))
            partitions.append(f"{8:4d} {16 * i + num:7d} {size >> 1:10d} {name}{num}")
            w(f"{udev}/b{pdevno}", f"S:disk/by-id/scsi-3{wwid}-part{num}\nE:ID_PART_ENTRY_NUMBER={num}\n"
              f"E:ID_FS_TYPE=ext4\nE:ID_SERIAL=3{wwid}\nE:ID_WWN=0x{wwid}")
    lnk(f"{r}/dev/sda", f"{r}/dev/disk/azure/root")
    lnk(f"{r}/dev/sdb", f"{r}/dev/disk/azure/resource")

    os.makedirs(f"{r}/dmtables")
    os.makedirs(f"{r}/dev/mapper")
    for v in range(a.volumes):
        name = f"dm-{v}"
        devno = f"254:{v}"
        members = disks[2 + a.stripe * v: 2 + a.stripe * (v + 1)]
        length = 2147483648 * a.stripe
        d = blockdev(r, f"virtual/block/{name}", name, devno, length, 0, a.disks + v + 1)
        dmname = f"vg_data{v}-lv_data{v}"
        uuid = f"LVM-Xk2wQp9Rv3Ls8Tn4Ym5Zb6Cd7Ef8Gh9Ij0Kl1Mn2Op3Qr4St5Uv6Wx7{v:09d}"
        w(f"{d}/dm/name", dmname)
        w(f"{d}/dm/uuid", uuid)
        w(f"{d}/dm/suspended", "0")
        w(f"{d}/dm/rq_based_seq_io_merge_deadline", "0")
        w(f"{d}/queue/scheduler", "none")
        w(f"{d}/queue/minimum_io_size", "65536")
        w(f"{d}/queue/optimal_io_size", str(65536 * a.stripe))
        lnk(f"{r}/dev/{name}", f"{r}/dev/mapper/{dmname}")
        lnk(f"{r}/dev/{name}", f"{r}/dev/block/{devno}")
        lnk(f"{r}/dev/{name}", f"{r}/dev/disk/by-id/dm-name-{dmname}")
        lnk(f"{r}/dev/{name}", f"{r}/dev/disk/by-id/dm-uuid-{uuid}")
        for mname, _, mdir in members:
            lnk(mdir, f"{d}/slaves/{mname}")
            lnk(d, f"{mdir}/holders/{name}")
        table = " ".join(f"{mdevno} 2048" for _, mdevno, _ in members)
        w(f"{r}/dmtables/{name}", f"0 {length} striped {a.stripe} 128 {table}")
        diskstats.append(stats_line(254, v, name, len(diskstats)))
        partitions.append(f"{254:4d} {v:7d} {length >> 1:10d} {name}")
        w(f"{udev}/b{devno}",
          f"S:mapper/{dmname}\nS:disk/by-id/dm-name-{dmname}\nS:disk/by-id/dm-uuid-{uuid}\n"
          f"S:vg_data{v}/lv_data{v}\nE:DM_UDEV_DISABLE_LIBRARY_FALLBACK_FLAG=1\nE:DM_UDEV_PRIMARY_SOURCE_FLAG=1\n"
          f"E:DM_UDEV_RULES_VSN=2\nE:DM_ACTIVATION=1\nE:DM_NAME={dmname}\nE:DM_UUID={uuid}\nE:DM_SUSPENDED=0\n"
          f"E:DM_VG_NAME=vg_data{v}\nE:DM_LV_NAME=lv_data{v}\nE:DM_LV_LAYER=\nE:ID_FS_TYPE=xfs\nG:systemd")
    w(f"{r}/proc/diskstats", "\n".join(diskstats))
    w(f"{r}/proc/partitions", "\n".join(partitions) + "\n")


if __name__ == "__main__":
    main()
