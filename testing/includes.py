#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Which of the project's headers a file includes, against which it uses.

A header provides the names it declares at file scope: functions (prototypes and inline
definitions), types (typedefs, struct tags), globals declared extern, macros and enum
constants of the project (armcii_, am_, ofi_ and their capitals). A file uses a name when its text, with
the comments removed (gcc -fpreprocessed), holds it; a struct it declares itself
(`struct armcii_iter;`) it does not need a header for.

  includes.py TOP DIR...          every file of each DIR includes no project header of
                                  whose names it uses none (the umbrella armcii.h and
                                  env_defs.h and env_foreign.h, tables read through
                                  macros, aside)
  includes.py --strict TOP DIR... and it includes every project header whose names it
                                  uses, not through another one (of another module, its
                                  face: transport.h, getcache.h, health.h, collectives.h,
                                  agg.h)

Prints one line per fault; exits 1 when there is one. Headers outside src/ (<armci.h>,
system headers) are not concerned, nor names that are not the project's (libfabric's and
MPI's types).
"""
import glob
import os
import re
import subprocess
import sys

PREFIX = r"(?:armcii|am|ARMCII|AM|ofi|OFI)_[A-Za-z0-9_]+"
EXEMPT = {"armcii.h", "env_defs.h", "env_foreign.h"}
# A module's face includes the private headers it stands for (below).
STANDS_FOR = {"transport.h": {"host.h"}}
# Outside its folder a module is reached through its face, which also stands for the
# private headers it includes (transport.h for host.h).
FACES = {"transport.h", "getcache.h", "health.h", "collectives.h", "agg.h"}


def uncommented(path):
    out = subprocess.run(["gcc", "-fpreprocessed", "-dD", "-E", "-P", path],
                         capture_output=True, text=True, check=True)
    return out.stdout


def provided(path):
    text = uncommented(path)
    names = set()
    # a function's prototype or inline definition starts at the line's beginning
    names |= set(re.findall(
        r"^(?:static inline |ARMCII_INLINE |ARMCII_HOT )*(?:const |struct |unsigned )*"
        r"[A-Za-z_][A-Za-z0-9_]*[ *]+(" + PREFIX + r")\s*\(", text, re.M))
    names |= set(re.findall(r"}\s*(?:__attribute__\(\([^)]*\)\)\s*)?(" + PREFIX + r")\s*;", text))
    names |= set(re.findall(r"\bextern\s[^;(]*?\b(" + PREFIX + r")\s*(?:\[[^]]*\])?\s*;", text))
    names |= set(re.findall(r"\btypedef\s[^;{]*?\b(" + PREFIX + r")\s*;", text))
    names |= set(re.findall(r"\(\s*\*\s*(" + PREFIX + r")\s*\)\s*\(", text))
    names |= set(re.findall(r"^\s*#\s*define\s+(" + PREFIX + r")", text, re.M))
    names |= set(re.findall(r"\bstruct\s+(" + PREFIX + r")\s*{", text))
    for body in re.findall(r"\benum\s*[A-Za-z_0-9]*\s*{([^}]*)}", text):
        names |= set(re.findall(r"\b(" + PREFIX + r")\b", body))
    return names


def main(argv):
    strict = argv[:1] == ["--strict"]
    if strict:
        argv = argv[1:]
    top = os.path.abspath(argv[0])
    headers = glob.glob(os.path.join(top, "src", "*", "*.h"))
    cache = {}
    faults = 0
    for d in argv[1:]:
        folder = os.path.join(top, d)
        for f in sorted(glob.glob(os.path.join(folder, "*.[ch]"))):
            # the project's headers as this file would write them
            known = {os.path.relpath(h, folder): h for h in headers}
            text = uncommented(f)
            used = set(re.findall(r"\b" + PREFIX, text))
            used -= set(re.findall(r"\bstruct\s+(" + PREFIX + r")\s*;", text))
            written = re.findall(r'^\s*#\s*include\s+"([^"]+)"', open(f).read(), re.M)
            rel = os.path.relpath(f, top)
            if os.path.basename(f) in EXEMPT:
                continue
            for inc in written:
                if inc not in known or os.path.basename(inc) in EXEMPT:
                    continue
                if inc in STANDS_FOR.get(os.path.basename(f), ()):
                    continue
                h = known[inc]
                if h not in cache:
                    cache[h] = provided(h)
                if not cache[h] & used:
                    print(f"{rel} includes \"{inc}\" and uses none of its names")
                    faults += 1
            if not strict:
                continue
            own = os.path.splitext(f)[0] + ".h"
            for inc, h in sorted(known.items()):
                if inc in written or h == f or h == own or os.path.basename(inc) in EXEMPT:
                    continue
                where = os.path.dirname(h)
                if where != folder and not where.endswith(os.sep + "base") and \
                        os.path.basename(h) not in FACES:
                    continue
                if h not in cache:
                    cache[h] = provided(h)
                hit = cache[h] & used
                if hit:
                    print(f"{rel} uses {sorted(hit)[0]} of \"{inc}\" without including it")
                    faults += 1
    return 1 if faults else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
