"""Runs ms-compile with stderr on a pseudo-terminal and prints what it wrote
there, control characters escaped (\r as <CR>, ESC[K as <EL>), so that a
test can check the progress line rewrites itself in place and is erased."""
import os
import pty
import subprocess
import sys

controller, terminal = pty.openpty()
process = subprocess.Popen(sys.argv[1:], stderr=terminal,
                           stdout=subprocess.DEVNULL)
os.close(terminal)
data = b""
while True:
    try:
        chunk = os.read(controller, 4096)
    except OSError:  # the terminal closed: the process exited
        break
    if not chunk:
        break
    data += chunk
status = process.wait()
text = data.decode().replace("\r\n", "\n").replace("\x1b[K", "<EL>")
print(text.replace("\r", "<CR>"))
print("exit", status)
