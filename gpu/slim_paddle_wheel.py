"""Shrink the paddlepaddle-gpu 2.6.2 wheel so it travels to the lent GPU machine in two
transfers (64 MiB each) instead of fourteen.

Why this keeps behaviour on the lent GPU: that machine's GPU is sm_90, and Paddle 2.6.2's
CUDA fat binaries hold cubins for sm_61..sm_86 only, with no PTX (../shared/gpu/README.md):
the CUDA driver looks at each entry's *header* (kind, architecture), finds nothing it can load
for sm_90, and never reads a payload.  A few fat binaries of libphi.so do carry sm_90 cubins:
those are kept whole, as is any with PTX.  Every other one keeps its headers and gets its cubin
payloads zeroed, in the ``.nv_fatbin`` sections of libphi.so, libpaddle.so and libflashattn.so
-- Paddle's kernels without sm_90 code did nothing there before and do nothing after; allocation, copies, streams, events and other people's kernels work as before.  Zeroes
compress to nothing, so the ~2.3 GB of fat binaries stop counting.  NOT for any GPU that the
original cubins serve (sm_61..sm_86): Paddle's kernels would then be garbage.

    python3 gpu/slim_paddle_wheel.py IN.whl OUT_DIR      # writes OUT_DIR/<same name>.whl
"""
from __future__ import annotations

import os
import shutil
import struct
import subprocess
import sys
import tempfile
import zipfile

MAGIC = 0xBA55ED50
LIBS = ("paddle/libs/libphi.so", "paddle/base/libpaddle.so", "paddle/libs/libflashattn.so")
KIND_PTX, KIND_ELF = 1, 2


def fatbin_section(path):
    """(file offset, size) of .nv_fatbin, from readelf."""
    out = subprocess.run(["readelf", "-SW", path], capture_output=True, text=True, check=True).stdout
    for line in out.splitlines():
        parts = line.replace("[ ", "[").split()
        if len(parts) > 5 and parts[1] == ".nv_fatbin":
            return int(parts[4], 16), int(parts[5], 16)
    return None


def zero_payloads(path) -> dict:
    sec = fatbin_section(path)
    stats = {"blobs": 0, "kept_blobs": 0, "elf": 0, "zeroed_bytes": 0, "archs": set(),
             "kept_archs": set()}
    if sec is None:
        return stats
    start, size = sec
    with open(path, "r+b") as f:
        f.seek(start)
        data = bytearray(f.read(size))
        off = 0
        while off + 16 <= size:
            magic, _ver, hs, fs = struct.unpack_from("<IHHQ", data, off)
            if magic != MAGIC:
                off += 8          # blobs are 8-byte aligned; padding between them
                continue
            stats["blobs"] += 1
            p, end = off + hs, off + hs + fs
            entries = []
            while p + 16 <= end:
                kind, _u, ehs, psize = struct.unpack_from("<HHIQ", data, p)
                arch = struct.unpack_from("<I", data, p + 28)[0]
                entries.append((kind, arch, p + ehs, psize))
                p = p + ehs + psize
            if any(kind != KIND_ELF or arch >= 90 for kind, arch, _b, _s in entries):
                # sm_90 code or PTX (the driver would load or JIT it): this blob stays whole
                stats["kept_blobs"] += 1
                stats["kept_archs"].update(a for _k, a, _b, _s in entries)
            else:
                for _kind, arch, body, psize in entries:
                    data[body:body + psize] = bytes(psize)
                    stats["elf"] += 1
                    stats["zeroed_bytes"] += psize
                    stats["archs"].add(arch)
            off = end
        f.seek(start)
        f.write(data)
    stats["archs"], stats["kept_archs"] = sorted(stats["archs"]), sorted(stats["kept_archs"])
    return stats


def main(src, out_dir):
    tmp = tempfile.mkdtemp(prefix="slimwhl")
    try:
        with zipfile.ZipFile(src) as z:
            z.extractall(tmp)
            names = z.namelist()
        for lib in LIBS:
            print(lib, zero_payloads(os.path.join(tmp, lib)), flush=True)
        os.makedirs(out_dir, exist_ok=True)
        dst = os.path.join(out_dir, os.path.basename(src))
        with zipfile.ZipFile(dst, "w", zipfile.ZIP_DEFLATED, compresslevel=9) as z:
            for n in names:
                z.write(os.path.join(tmp, n), n)
        print(dst, os.path.getsize(dst) >> 20, "MiB")
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
