# Time from spawn to a screen, in a pseudo-terminal: the bench's measure of
# how fast an interactive verb opens. argv: <marker> <command...>. Prints the
# milliseconds until the output first holds <marker> (an empty marker: until
# the command exits), then quits the screen with ^q and reaps it. Python only
# because node has no pty of its own; nothing in byre uses this.
import fcntl, os, pty, select, struct, sys, termios, time

marker = sys.argv[1].encode()
argv = sys.argv[2:]
t0 = time.monotonic()
pid, fd = pty.fork()
if pid == 0:
    # A terminal of 100x30 cells, as a user's would be (a new pty has 0x0).
    fcntl.ioctl(0, termios.TIOCSWINSZ, struct.pack('HHHH', 30, 100, 0, 0))
    os.execvp(argv[0], argv)
seen = b''
took = None
deadline = t0 + 30
while time.monotonic() < deadline:
    ready, _, _ = select.select([fd], [], [], 0.1)
    if not ready:
        if took is not None:
            os.write(fd, b'\x11')  # ^q until it goes: raw mode may lag the first frame
        continue
    try:
        data = os.read(fd, 65536)
    except OSError:
        data = b''
    if not data:
        break
    if took is None:
        seen += data
        if marker and marker in seen:
            took = (time.monotonic() - t0) * 1000
            os.write(fd, b'\x11')
if took is None and not marker:
    took = (time.monotonic() - t0) * 1000
_, status = os.waitpid(pid, 0)
if took is None:
    sys.exit(f'no {marker!r} on screen: {seen[-500:]!r}')
print(f'{took:.3f}')
