#!/usr/bin/env python3
"""Writes the fixture /sys, /proc and /etc trees the host inventory tests read (tests/host/sysinfo_test.cpp).

two_socket/: a 2-socket, 16-thread Xeon box with 2 NUMA nodes, 16 DDR5 DIMMs in the SMBIOS table, a Gen4 and two
Gen5 NVMe drives (one downtrained, one on NUMA node 1), a mounted HDD, an HDD held by device-mapper (LVM), an md RAID-0
of two of the NVMe drives, /sys/dev/block links to each device's folder, an Ethernet NIC, an InfiniBand HCA with its IPoIB
netdev and a second HCA without one. broken/: most files missing or malformed. Run it from anywhere; the trees
are committed, so only rerun it after changing it. Directories git cannot hold empty get a small file.
"""
import os
import shutil
import struct

HERE = os.path.dirname(os.path.abspath(__file__))


def put(root, path, text):
    full = os.path.join(root, path.lstrip("/"))
    os.makedirs(os.path.dirname(full), exist_ok=True)
    mode = "wb" if isinstance(text, bytes) else "w"
    with open(full, mode) as f:
        f.write(text)


def smbios_type17(handle, size_mb, locator, mem_type, speed, conf_speed, ext_size_mb=0):
    """SMBIOS 3.2 type 17 (length 0x54) with strings: locator, bank, manufacturer, serial, asset, part."""
    size_field = 0x7FFF if ext_size_mb else size_mb
    body = struct.pack(
        "<BBH HH HH H BB BB B H H BBBB B I H",
        17, 0x54, handle,
        0x1000, 0xFFFE,  # physical array, error info
        72, 64,  # total width, data width
        size_field,
        0x09, 0,  # form factor DIMM, device set
        1, 2,  # device locator, bank locator strings
        mem_type,
        0x0080,  # type detail: synchronous
        speed,
        3, 4, 5, 6,  # manufacturer, serial, asset tag, part number
        0x02,  # attributes: rank 2
        ext_size_mb,
        conf_speed,
    )
    body += b"\0" * (0x54 - len(body))
    strings = [locator, "P0_NODE0", "Samsung", "0000", "NA", "M321R2GA3BB6-CQKET"]
    return body + b"".join(s.encode() + b"\0" for s in strings) + b"\0"


def smbios_table():
    bios = struct.pack("<BBH BBHBB Q", 0, 0x12, 0, 1, 2, 0xE800, 3, 0x0F, 0) + b"Vendor\0" + b"1.0\0" + b"01/01/2025\0\0"
    dimms = []
    for i in range(16):
        ext = 32768 if i == 15 else 0
        dimms.append(smbios_type17(0x1100 + i, 16384, f"DIMM_{'AB'[i // 8]}{i % 8}", 0x22, 4800, 4400, ext))
    empty = smbios_type17(0x1200, 0, "DIMM_EMPTY", 0x02, 0, 0)
    end = struct.pack("<BBH", 127, 4, 0xFEFF) + b"\0\0"
    return bios + b"".join(dimms) + empty + end


def two_socket(root):
    cpuinfo = []
    for cpu in range(2):
        cpuinfo.append(
            f"processor\t: {cpu}\nvendor_id\t: GenuineIntel\ncpu family\t: 6\n"
            "model name\t: Intel(R) Xeon(R) Platinum 8480+\n"
            "flags\t\t: fpu sse2 sse4_2 avx avx2 fma avx512f avx512bw avx512vl avx512_bf16 amx_tile amx_bf16 "
            "amx_int8 aes\n"
        )
    put(root, "/proc/cpuinfo", "\n".join(cpuinfo) + "\n")
    put(root, "/sys/devices/system/cpu/online", "0-15\n")
    for cpu in range(16):
        package = (cpu // 4) % 2
        core = cpu % 4
        base = f"/sys/devices/system/cpu/cpu{cpu}"
        put(root, f"{base}/topology/physical_package_id", f"{package}\n")
        put(root, f"{base}/topology/core_id", f"{core}\n")
        put(root, f"{base}/cpufreq/scaling_governor", "performance\n")
    caches = [(1, "Data", "48K", "0,8"), (1, "Instruction", "32K", "0,8"), (2, "Unified", "2048K", "0,8"),
              (3, "Unified", "107520K", "0-3,8-11")]
    for i, (level, kind, size, shared) in enumerate(caches):
        base = f"/sys/devices/system/cpu/cpu0/cache/index{i}"
        put(root, f"{base}/level", f"{level}\n")
        put(root, f"{base}/type", f"{kind}\n")
        put(root, f"{base}/size", f"{size}\n")
        put(root, f"{base}/shared_cpu_list", f"{shared}\n")
    put(root, "/proc/meminfo",
        "MemTotal:       263856000 kB\nMemFree:        200000000 kB\nMemAvailable:   250000000 kB\n"
        "HugePages_Total:      16\nHugePages_Free:        8\nHugepagesize:       2048 kB\n")
    put(root, "/sys/kernel/mm/transparent_hugepage/enabled", "always madvise [never]\n")
    put(root, "/sys/firmware/dmi/tables/DMI", smbios_table())
    for node, cpus, kb in [(0, "0-3,8-11", 131928000), (1, "4-7,12-15", 131928000)]:
        put(root, f"/sys/devices/system/node/node{node}/cpulist", cpus + "\n")
        put(root, f"/sys/devices/system/node/node{node}/meminfo",
            f"Node {node} MemTotal:       {kb} kB\nNode {node} MemFree:        100000000 kB\n")
    put(root, "/proc/sys/kernel/hostname", "gpu-node-07\n")
    put(root, "/proc/sys/kernel/osrelease", "6.1.0-27-amd64\n")
    put(root, "/etc/os-release", 'PRETTY_NAME="Debian GNU/Linux 12 (bookworm)"\nNAME="Debian GNU/Linux"\n')

    def dev(path, majmin):
        """The device number in the device's folder, and /sys/dev/block/MAJ:MIN linking to that folder."""
        put(root, f"{path}/dev", majmin + "\n")
        link = os.path.join(root, "sys/dev/block", majmin)
        os.makedirs(os.path.dirname(link), exist_ok=True)
        os.symlink(os.path.relpath(os.path.join(root, path.lstrip("/")), os.path.dirname(link)), link)

    def nvme(name, model, sectors, cur, maxs, holders=(), queues=8, partitions=(), numa_node=None):
        base = f"/sys/block/{name}"
        put(root, f"{base}/size", f"{sectors}\n")
        put(root, f"{base}/queue/logical_block_size", "4096\n")
        put(root, f"{base}/queue/physical_block_size", "4096\n")
        put(root, f"{base}/queue/rotational", "0\n")
        put(root, f"{base}/device/model", model + "      \n")
        put(root, f"{base}/device/transport", "pcie\n")
        put(root, f"{base}/device/device/current_link_speed", f"{cur[0]} GT/s PCIe\n")
        put(root, f"{base}/device/device/current_link_width", f"{cur[1]}\n")
        put(root, f"{base}/device/device/max_link_speed", f"{maxs[0]} GT/s PCIe\n")
        put(root, f"{base}/device/device/max_link_width", f"{maxs[1]}\n")
        for q in range(queues):
            put(root, f"{base}/mq/{q}/nr_tags", "1023\n")
        if numa_node is not None:
            put(root, f"{base}/device/device/numa_node", f"{numa_node}\n")
        for h in holders:
            put(root, f"{base}/holders/{h}/dev", "9:0\n")
        for p, majmin in partitions:
            put(root, f"{base}/{p}/partition", "1\n")
            dev(f"{base}/{p}", majmin)

    nvme("nvme0n1", "SAMSUNG MZQL23T8HCLS-00A07", 7501476528, ("16.0", 4), ("16.0", 4),
         partitions=[("nvme0n1p1", "259:4")])
    nvme("nvme1n1", "KIOXIA KCMYXRUG7T68", 15002931888, ("32.0", 4), ("32.0", 4), holders=["md0"], numa_node=1)
    nvme("nvme2n1", "KIOXIA KCMYXRUG7T68", 15002931888, ("16.0", 4), ("32.0", 4), holders=["md0"])
    for name, majmin in [("nvme0n1", "259:0"), ("nvme1n1", "259:1"), ("nvme2n1", "259:2"), ("sda", "8:0"),
                         ("sdb", "8:16"), ("md0", "9:0"), ("dm-0", "253:0")]:
        dev(f"/sys/block/{name}", majmin)
    put(root, "/sys/module/nvme/parameters/poll_queues", "4\n")
    put(root, "/sys/block/sda/size", "31251759104\n")
    put(root, "/sys/block/sda/queue/logical_block_size", "512\n")
    put(root, "/sys/block/sda/queue/physical_block_size", "4096\n")
    put(root, "/sys/block/sda/queue/rotational", "1\n")
    put(root, "/sys/block/sda/device/model", "ST16000NM001G-2K\n")
    put(root, "/sys/block/sda/mq/0/nr_tags", "32\n")
    # sdb is an LVM physical volume: device-mapper's dm-0 holds it.
    put(root, "/sys/block/sdb/size", "7814037168\n")
    put(root, "/sys/block/sdb/queue/logical_block_size", "512\n")
    put(root, "/sys/block/sdb/queue/physical_block_size", "4096\n")
    put(root, "/sys/block/sdb/queue/rotational", "1\n")
    put(root, "/sys/block/sdb/device/model", "ST4000NM000A-2HZ\n")
    put(root, "/sys/block/sdb/holders/dm-0/dev", "253:0\n")
    put(root, "/sys/block/dm-0/size", "7814029312\n")
    put(root, "/sys/block/dm-0/dm/name", "vg0-data\n")
    put(root, "/sys/block/dm-0/slaves/sdb/dev", "8:16\n")
    put(root, "/sys/block/md0/size", "30005903360\n")
    put(root, "/sys/block/md0/queue/logical_block_size", "4096\n")
    put(root, "/sys/block/md0/queue/physical_block_size", "4096\n")
    put(root, "/sys/block/md0/queue/rotational", "0\n")
    put(root, "/sys/block/md0/md/level", "raid0\n")
    put(root, "/sys/block/md0/md/chunk_size", "524288\n")
    put(root, "/sys/block/md0/slaves/nvme1n1/dev", "259:1\n")
    put(root, "/sys/block/md0/slaves/nvme2n1/dev", "259:2\n")
    put(root, "/sys/block/loop0/size", "0\n")
    put(root, "/proc/mdstat",
        "Personalities : [raid0]\nmd0 : active raid0 nvme2n1[1] nvme1n1[0]\n"
        "      15002951680 blocks super 1.2 512k chunks\n\nunused devices: <none>\n")
    put(root, "/proc/self/mountinfo",
        "22 1 259:4 / /data rw,relatime shared:1 - xfs /dev/nvme0n1p1 rw,attr2\n"
        "23 1 9:0 / /scratch rw,relatime shared:2 - xfs /dev/md0 rw,sunit=1024\n"
        "24 1 8:0 / /backup rw,relatime - ext4 /dev/sda rw\n"
        "25 1 0:22 / /proc rw,nosuid,nodev,noexec,relatime shared:12 - proc proc rw\n")

    put(root, "/sys/class/net/lo/mtu", "65536\n")
    for name, driver, speed, mtu in [("eno1", "ice", 100000, 9000), ("ib0", "mlx5_core", 400000, 4092)]:
        put(root, f"/sys/class/net/{name}/device/uevent", f"DRIVER={driver}\nPCI_SLOT_NAME=0000:17:00.0\n")
        put(root, f"/sys/class/net/{name}/speed", f"{speed}\n")
        put(root, f"/sys/class/net/{name}/mtu", f"{mtu}\n")
        put(root, f"/sys/class/net/{name}/operstate", "up\n")
    put(root, "/sys/class/net/ib0/dev_port", "0\n")
    put(root, "/sys/class/net/docker0/mtu", "1500\n")
    put(root, "/sys/class/net/docker0/operstate", "down\n")
    for hca, rate, state, netdev in [("mlx5_0", "400 Gb/sec (4X NDR)", "4: ACTIVE", "ib0"),
                                     ("mlx5_1", "200 Gb/sec (4X HDR)", "1: DOWN", None)]:
        put(root, f"/sys/class/infiniband/{hca}/ports/1/rate", rate + "\n")
        put(root, f"/sys/class/infiniband/{hca}/ports/1/state", state + "\n")
        put(root, f"/sys/class/infiniband/{hca}/ports/1/link_layer", "InfiniBand\n")
        put(root, f"/sys/class/infiniband/{hca}/device/uevent", "DRIVER=mlx5_core\n")
        if netdev:
            put(root, f"/sys/class/infiniband/{hca}/device/net/{netdev}/ifindex", "5\n")


def broken(root):
    put(root, "/sys/devices/system/cpu/online", "0-3\n")
    put(root, "/sys/devices/system/cpu/cpu0/cache/index0/level", "1\n")
    put(root, "/sys/devices/system/cpu/cpu0/cache/index0/type", "Data\n")
    put(root, "/sys/devices/system/cpu/cpu0/cache/index0/size", "lots\n")
    put(root, "/proc/meminfo", "MemTotal: many\n")
    put(root, "/sys/firmware/dmi/tables/DMI", b"\x11\x54\x00\x11garbage")
    put(root, "/sys/block/nvme0n1/size", "not-a-number\n")
    put(root, "/sys/block/nvme0n1/device/device/current_link_speed", "Unknown\n")
    put(root, "/sys/block/nvme0n1/device/device/current_link_width", "0\n")
    put(root, "/proc/mdstat", "Personalities :\nmd1 : inactive nvme0n1[0](S)\n")
    put(root, "/sys/class/net/eth0/device/uevent", "PCI_SLOT_NAME=0000:00:03.0\n")
    put(root, "/sys/class/net/eth0/speed", "-1\n")
    put(root, "/sys/class/infiniband/mlx5_0/ports/1/rate", "garbage\n")


for name, build in [("two_socket", two_socket), ("broken", broken)]:
    root = os.path.join(HERE, name)
    shutil.rmtree(root, ignore_errors=True)
    build(root)
