#!/usr/bin/env python3
"""Static x86-64 instruction mix of the work-group functions POCL generated for a kernel.

usage: bench/instruction_mix.py [--function NAME] [--loops N] KERNEL.so [KERNEL.so ...]

For every shared object (a POCL kernel cache entry, <kernel>.so), disassembles the work-group
function that POCL's CPU drivers call (_pocl_kernel_<name>_workgroup; the .so also holds two
near-identical copies, _pocl_kernel_<name> and ..._workgroup_fast, which are not counted) with
`objdump -d -M intel` and prints, as markdown tables:

  - the mix of the whole function and of its hot loops: vector FMAs by register width (zmm = 16
    floats, ymm = 8, xmm = 4) and scalar FMAs (ss/sd), multiplies/adds that are not fused,
    broadcasts (explicit vbroadcast* and FMAs whose memory operand is an embedded {1toN}
    broadcast), vector and scalar loads and stores, gathers/scatters, lane shuffles
    (insert/extract/permute/blend), stack traffic (rsp-relative, and rbp-relative where the
    function keeps a frame pointer: vector spills/reloads and integer ones), branches, the rest;
  - the loops found: every backward branch closes a loop spanning [target, branch]; an innermost
    loop contains no other. The innermost loops with FMAs (up to --loops, most FMAs first) get a
    column each: a kernel with a checked and an unchecked path has one hot loop per path.

The counts are static: one per instruction in the code body. A loop runs its body many times and
code outside loops runs once per work-group, so the hot loops' counts are the ones that say what
the kernel spends its time on. Loop bodies are taken as address ranges, so blocks that LLVM
placed outside the range (rare, cold paths) are not counted in the loop.
"""
import argparse
import os
import re
import subprocess
import sys

FMA = re.compile(r"^vf(n)?m(add|sub|addsub|subadd)(132|213|231)(p|s)(s|d)$")
ARITH = re.compile(r"^v?(mul|add|sub)(p|s)(s|d)$")
BROADCAST = re.compile(r"^v(p)?broadcast")
GATHER = re.compile(r"^v(p)?gather")
SCATTER = re.compile(r"^v(p)?scatter")
SHUFFLE = re.compile(r"^v(insert|extract|perm|shuf|unpck|blend|pblend|pinsr|pextr|movhlps|movlhps|"
                     r"align|palignr|pshuf|movshdup|movsldup|movddup|pcompress|pexpand|compress|expand)")
VMOV = re.compile(r"^v?mov(ups|aps|upd|apd|dqu|dqa|dqu8|dqu16|dqu32|dqu64|dqa32|dqa64|ntps|ntpd|ntdq)$")
SMOV = re.compile(r"^v?mov(ss|sd|lps|hps|lpd|hpd)$")
LINE = re.compile(r"^\s*([0-9a-f]+):\s+(.*)$")
PREFIXES = {"rep", "repz", "repnz", "repe", "repne", "lock", "notrack", "bnd", "data16", "{evex}", "{vex}", "{vex3}"}

ROWS = [
    ("fma_zmm", "FMA, zmm (16 floats)"),
    ("fma_ymm", "FMA, ymm (8 floats)"),
    ("fma_xmm", "FMA, xmm (4 floats)"),
    ("fma_scalar", "FMA, scalar (ss/sd)"),
    ("arith_vec", "mul/add/sub packed, not fused"),
    ("arith_scalar", "mul/add/sub scalar, not fused"),
    ("bcast", "broadcast (vbroadcast*/vpbroadcast*)"),
    ("vload", "vector load (vmovups & co.)"),
    ("vstore", "vector store"),
    ("sload", "scalar or 64-bit load (vmovss/vmovsd/vmovlps...)"),
    ("sstore", "scalar or 64-bit store"),
    ("gather", "gather"),
    ("scatter", "scatter"),
    ("shuffle", "insert/extract/permute/blend"),
    ("vspill", "vector store to the stack (spill)"),
    ("vreload", "vector load from the stack (reload)"),
    ("ispill", "integer store to the stack"),
    ("ireload", "integer load from the stack"),
    ("branch", "branch (jcc/jmp)"),
    ("other", "other (integer, address, mask, register moves)"),
]
# Not part of the total: properties of instructions counted above.
EXTRA_ROWS = [
    ("fma_mem", "  of the FMAs: with a memory operand"),
    ("fma_bcst", "  of the FMAs: with an embedded broadcast {1toN}"),
    ("vstack_other", "  other vector instructions reading the stack"),
    ("masked", "  vector instructions under an AVX-512 mask {k}"),
]
FLOPS_PER_FMA = {"fma_zmm": 32, "fma_ymm": 16, "fma_xmm": 8, "fma_scalar": 2}


def split_operands(text):
    """Top-level comma split (commas do not occur inside Intel memory operands)."""
    return [op.strip() for op in text.split(",")] if text else []


def width(ops):
    for reg, name in (("zmm", "zmm"), ("ymm", "ymm"), ("xmm", "xmm")):
        if any(re.search(r"\b" + reg + r"\d+", op) or name.upper() + "WORD" in op for op in ops):
            return name
    return None


def is_mem(op):
    return "[" in op


def parse(so_path, function):
    out = subprocess.run(["objdump", "-d", "--no-show-raw-insn", "-M", "intel",
                          "--disassemble=" + function, so_path],
                         check=True, capture_output=True, text=True).stdout
    insns = []
    for line in out.splitlines():
        m = LINE.match(line)
        if not m:
            continue
        body = m.group(2).split("#")[0].strip()
        parts = body.split(None, 1)
        while parts and parts[0] in PREFIXES:
            parts = parts[1].split(None, 1) if len(parts) > 1 else []
        if not parts:
            continue
        mnem = parts[0]
        operands = parts[1] if len(parts) > 1 else ""
        # "jne 59d0 <sym+0x230>": keep the address only
        operands = re.sub(r"\s*<[^>]*>", "", operands).strip()
        insns.append((int(m.group(1), 16), mnem, operands))
    return insns


def frame_pointer(insns):
    return any(m == "mov" and ops.replace(" ", "") == "rbp,rsp" for _, m, ops in insns[:16])


def classify(mnem, operands, fp):
    """One exclusive category plus the set of extra properties."""
    ops = split_operands(operands)
    extras = set()
    stack_re = r"\[(rsp|rbp)" if fp else r"\[rsp"
    stack = [bool(re.search(stack_re, op)) for op in ops]
    if any("{k" in op for op in ops):
        extras.add("masked")
    m = FMA.match(mnem)
    if m:
        if any(is_mem(op) for op in ops):
            extras.add("fma_mem")
        if any("BCST" in op or "{1to" in op for op in ops):
            extras.add("fma_bcst")
        if any(stack):
            extras.add("vstack_other")
        if m.group(4) == "s":
            return "fma_scalar", extras
        return "fma_" + (width(ops) or "xmm"), extras
    m = ARITH.match(mnem)
    if m:
        if any(stack):
            extras.add("vstack_other")
        return ("arith_vec" if m.group(2) == "p" else "arith_scalar"), extras
    if BROADCAST.match(mnem):
        return "bcast", extras
    if GATHER.match(mnem):
        return "gather", extras
    if SCATTER.match(mnem):
        return "scatter", extras
    if SHUFFLE.match(mnem):
        if any(stack):
            extras.add("vstack_other")
        return "shuffle", extras
    if VMOV.match(mnem) and len(ops) == 2:
        if is_mem(ops[0]):
            return ("vspill" if stack[0] else "vstore"), extras
        if is_mem(ops[1]):
            return ("vreload" if stack[1] else "vload"), extras
        return "other", extras
    if SMOV.match(mnem) and len(ops) >= 2:
        if is_mem(ops[0]):
            return ("vspill" if stack[0] else "sstore"), extras
        if is_mem(ops[-1]):
            return ("vreload" if stack[-1] else "sload"), extras
        return "other", extras
    if mnem.startswith("j"):
        return "branch", extras
    if mnem.startswith("v") and any(stack):
        extras.add("vstack_other")
    if mnem in ("mov", "movsxd", "movzx", "movsx") and len(ops) == 2 and any(stack):
        return ("ispill" if stack[0] else "ireload"), extras
    return "other", extras


def count(classified):
    counts = {key: 0 for key, _ in ROWS + EXTRA_ROWS}
    for cat, extras in classified:
        counts[cat] += 1
        for e in extras:
            counts[e] += 1
    counts["total"] = len(classified)
    return counts


def loops(insns):
    """(start, end) address ranges closed by backward branches inside the function."""
    lo, hi = insns[0][0], insns[-1][0]
    found = set()
    for addr, mnem, ops in insns:
        if mnem.startswith("j") and re.fullmatch(r"[0-9a-f]+", ops):
            target = int(ops, 16)
            if lo <= target <= addr <= hi:
                found.add((target, addr))
    return sorted(found)


def innermost(ranges):
    return [r for r in ranges
            if not any(o != r and r[0] <= o[0] and o[1] <= r[1] for o in ranges)]


def fmas(c):
    return sum(c[k] for k in FLOPS_PER_FMA)


def ratios(c):
    f = fmas(c)
    explicit = c["vload"] + c["bcast"] + c["sload"] + c["gather"]
    reads = explicit + c["fma_mem"]
    flops = sum(c[k] * v for k, v in FLOPS_PER_FMA.items())
    lines = [f"{f} FMAs = {flops} FLOPs (zmm 32, ymm 16, xmm 8, scalar 2 each)"]
    if reads:
        lines.append(f"{reads} memory reads ({explicit} explicit loads/broadcasts/gathers"
                     f" + {c['fma_mem']} FMA memory operands, {c['fma_bcst']} of them embedded broadcasts)"
                     f" = {f / reads:.2f} FMAs per read")
    lines.append(f"{c['vspill'] + c['vreload']} vector and {c['ispill'] + c['ireload']} integer stack moves")
    if c["total"]:
        lines.append(f"FMAs are {f / c['total']:.2f} of all instructions")
    return lines


def pick_function(so_path, wanted):
    syms = subprocess.run(["nm", "--defined-only", so_path], check=True, capture_output=True,
                          text=True).stdout.split()
    if wanted:
        return wanted if wanted in syms else None
    funcs = [s for s in syms if s.startswith("_pocl_kernel_")]
    wg = [s for s in funcs if s.endswith("_workgroup")]
    return wg[0] if wg else (funcs[0] if funcs else None)


def report(so_path, wanted, max_loops):
    function = pick_function(so_path, wanted)
    if function is None:
        print(f"{so_path}: no function {wanted or '_pocl_kernel_*'} found", file=sys.stderr)
        return False
    insns = parse(so_path, function)
    if not insns:
        print(f"{so_path}: {function} disassembled to nothing", file=sys.stderr)
        return False
    fp = frame_pointer(insns)
    classified = [classify(m, ops, fp) for _, m, ops in insns]
    whole = count(classified)
    addrs = [a for a, _, _ in insns]
    all_loops = loops(insns)
    inner = innermost(all_loops)

    def body(r):
        return count([c for a, c in zip(addrs, classified) if r[0] <= a <= r[1]])

    inner_counts = sorted(((r, body(r)) for r in inner), key=lambda rc: (-fmas(rc[1]), rc[1]["total"]))
    hot = [rc for rc in inner_counts if fmas(rc[1]) > 0][:max_loops]

    rel = os.path.relpath(so_path)
    print(f"### {function} in {rel}")
    print()
    print(f"Static counts (each instruction once; loops run theirs many times). Stack = rsp-relative"
          f"{' and rbp-relative (frame pointer kept)' if fp else ' (no frame pointer: rbp is a general register)'}."
          f" Loop columns: the innermost loops with FMAs, most FMAs first.")
    print()
    heads = [f"loop {r[0]:#x}-{r[1]:#x}" for r, _ in hot] or ["(no innermost loop with FMAs)"]
    print("| instructions | whole function | " + " | ".join(heads) + " |")
    print("|---|---:|" + "---:|" * len(heads))
    for key, label in ROWS + [("total", "**total**")] + EXTRA_ROWS:
        cells = [str(c[key]) for _, c in hot] or [""]
        print(f"| {label} | {whole[key]} | " + " | ".join(cells) + " |")
    print()
    print("- Whole function: " + "; ".join(ratios(whole)) + ".")
    for r, c in hot:
        print(f"- Loop {r[0]:#x}-{r[1]:#x}, one pass: " + "; ".join(ratios(c)) + ".")
    print()
    print(f"Loops (backward branches): {len(all_loops)}, innermost: {len(inner)}. "
          f"Innermost loops by FMA count (address range, instructions, FMAs):")
    for r, c in inner_counts[:max_loops + 2]:
        print(f"  {r[0]:#x}-{r[1]:#x}: {c['total']} instructions, {fmas(c)} FMAs, "
              f"{c['vload'] + c['bcast'] + c['sload'] + c['gather'] + c['fma_mem']} memory reads, "
              f"{c['vspill'] + c['vreload']} vector stack moves, {c['ispill'] + c['ireload']} integer stack moves")
    print()
    return True


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--function", help="function to count (default: _pocl_kernel_<name>_workgroup)")
    ap.add_argument("--loops", type=int, default=3, help="innermost loops with FMAs to tabulate (default 3)")
    ap.add_argument("objects", nargs="+", help="POCL kernel shared objects (.so)")
    args = ap.parse_args()
    for path in args.objects:
        if not os.path.isfile(path):
            print(f"instruction_mix.py: no such file: {path}", file=sys.stderr)
            sys.exit(2)
    ok = all([report(path, args.function, args.loops) for path in args.objects])
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()
