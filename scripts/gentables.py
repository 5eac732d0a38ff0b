"""The command line every table generator in scripts/ shares (imported by
gen-descriptor-tables.py and gen-address-tables.py):

  GEN            print the generated file
  GEN --write [F]  write it (default: the generator's own output file)
  GEN --check [F]  compare F byte for byte with what GEN writes (exit 1 on a
                   difference, naming the first differing line)
"""
import os
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def main(argv, render, default_out, doc):
    script = "scripts/" + os.path.basename(argv[0])
    if len(argv) == 1:
        sys.stdout.write(render())
        return 0
    if argv[1] in ("--write", "--check") and len(argv) <= 3:
        path = argv[2] if len(argv) == 3 else default_out
        if not os.path.isabs(path):
            path = os.path.join(ROOT, path)
        text = render()
        if argv[1] == "--write":
            with open(path, "w") as f:
                f.write(text)
            return 0
        try:
            with open(path) as f:
                have = f.read()
        except OSError as e:
            print("cannot read %s: %s" % (path, e))
            return 1
        if have != text:
            a, b = have.splitlines(), text.splitlines()
            line = next((i for i in range(min(len(a), len(b))) if a[i] != b[i]), min(len(a), len(b)))
            print("%s differs from what %s writes (first at line %d); run: python3 %s --write"
                  % (path, script, line + 1, script))
            return 1
        print("%s matches its generator" % os.path.relpath(path, ROOT))
        return 0
    sys.stderr.write(doc)
    return 64
