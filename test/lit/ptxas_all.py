#!/usr/bin/env python3
"""Assembles every kernel module of `tflc emit ptx` output with ptxas.

Usage: ptxas_all.py PTXAS ARCH FILE.ptx

`tflc emit ptx` prints one PTX module per kernel module, each after a
"// ---- kernels of @NAME" line; each is assembled on its own for ARCH
(sm_90). Prints how many assembled; exits 1 at the first that does not.
"""
import re
import subprocess
import sys
import tempfile


def main():
    ptxas, arch, path = sys.argv[1:4]
    text = open(path).read()
    modules = [m for m in re.split(r"^// ---- kernels of @\S+\n", text,
                                   flags=re.M) if m.strip()]
    with tempfile.TemporaryDirectory() as tmp:
        for i, module in enumerate(modules):
            src = f"{tmp}/m{i}.ptx"
            with open(src, "w") as f:
                f.write(module)
            r = subprocess.run([ptxas, f"-arch={arch}", src, "-o",
                                f"{tmp}/m{i}.cubin"],
                               capture_output=True, text=True)
            if r.returncode != 0:
                sys.stdout.write(f"module {i} does not assemble:\n{r.stderr}")
                sys.exit(1)
    print(f"{len(modules)} modules assembled for {arch}")


if __name__ == "__main__":
    main()
