"""`controller` commands run the way a laptop with Windows would run them, as far as Linux can:
in a Python without what Windows' lacks (fcntl, termios, tty, pwd..., os.fchmod, os.openpty,
os.O_NOFOLLOW, signal.SIGHUP, signal.pthread_sigmask; a folder refused by os.open), each command
in this one process (controller.cli.main), and a page served once (`web serve`'s server).

Usage: python -X warn_default_encoding windows_rig.py < commands.json
The input is {name: [argv...]} (`web serve --dir FOLDER`, which serves until Ctrl-C, is asked once
for FOLDER's index.html instead); the output, one JSON object: {name: {"status", "out", "err",
"crash", "encodings"}}, where
"crash" is a traceback, and "encodings" the lines of the controller's own code that opened or
decoded text in the computer's encoding (Python's EncodingWarning: cp1252 on a Windows laptop,
where a catalog, a pin map or a scenario is UTF-8).
"""

import contextlib
import importlib.util
import io
import json
import os
import signal
import sys
import tempfile
import threading
import time
import traceback
import urllib.request
import warnings

LACKED_MODULES = ("fcntl", "termios", "tty", "pty", "grp", "pwd", "resource", "syslog", "readline", "curses")
LACKED = {os: ("getuid", "geteuid", "getgid", "getegid", "getgroups", "fchmod", "fchown", "chown", "lchown",
               "openpty", "forkpty", "ttyname", "setsid", "killpg", "getpgid", "sync", "statvfs", "uname",
               "O_NOFOLLOW", "O_DIRECTORY"),
          signal: ("SIGHUP", "SIGQUIT", "SIGALRM", "SIGUSR1", "SIGUSR2", "SIGCHLD", "SIGKILL", "SIGPIPE",
                   "pthread_sigmask", "pthread_kill", "alarm", "setitimer", "siginterrupt", "SIG_BLOCK",
                   "SIG_SETMASK"),
          time: ("tzset",)}


def like_windows(package):
    """Take away what Python on Windows does not have, and refuse the controller's code (in the
    folder `package`) a folder opened as a file (the standard library's own way there differs).
    pyserial is loaded first: it picks its Windows half there by itself, and its Linux half needs
    termios."""
    importlib.import_module("serial.tools.list_ports")
    for name in LACKED_MODULES:
        sys.modules[name] = None
    for module, names in LACKED.items():
        for name in names:
            if hasattr(module, name):
                delattr(module, name)
    real_open = os.open

    def windows_open(path, flags, mode=0o777, *, dir_fd=None):
        if os.path.isdir(path) and sys._getframe(1).f_code.co_filename.startswith(package + os.sep):
            raise PermissionError(13, "Permission denied", path)
        return real_open(path, flags, mode, dir_fd=dir_fd)
    os.open = windows_open


def answers():
    """A visitor's answers to `controller play`, then the end of input."""
    said = iter(["1", "1", "1"])

    def read_line(prompt):
        try:
            return next(said)
        except StopIteration:
            raise EOFError
    return read_line


def encoding_lines(caught, package):
    """Where the controller's code (in the folder `package`) left the encoding to the computer."""
    return sorted({"%s:%d" % (os.path.relpath(w.filename, os.path.dirname(package)), w.lineno) for w in caught
                   if issubclass(w.category, EncodingWarning)
                   and os.path.abspath(w.filename).startswith(package + os.sep)})


def serve(folder):
    """`web serve`'s server on a free port, asked once for the page: the status and the page."""
    from controller.web.serve import make_server
    server = make_server(folder, port=0, quiet=True)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        with urllib.request.urlopen("http://127.0.0.1:%d/" % server.server_address[1], timeout=10) as answer:
            return 0 if answer.status == 200 else answer.status, answer.read().decode("utf-8")
    finally:
        server.shutdown()
        server.server_close()


def run(argv):
    """The command's status, output and errors. Its errors go to a file, as a terminal's have a
    file number: `controller run` hands it to faulthandler."""
    from controller.cli import main
    out = io.StringIO()
    with tempfile.TemporaryFile("w+", encoding="utf-8") as err:
        with contextlib.redirect_stderr(err):
            status = main(argv, out=out, read_line=answers())
        err.seek(0)
        return status, out.getvalue(), err.read()


def main():
    commands = json.load(sys.stdin)
    package = os.path.dirname(importlib.util.find_spec("controller").origin)
    like_windows(package)
    results = {}
    for name, argv in commands.items():
        result = results[name] = {"status": None, "out": "", "err": "", "crash": None}
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always", EncodingWarning)
            try:
                if argv[:2] == ["web", "serve"]:
                    result["status"], result["out"] = serve(argv[argv.index("--dir") + 1])
                else:
                    result["status"], result["out"], result["err"] = run(argv)
            except BaseException as error:
                result["crash"] = "".join(traceback.format_exception(error))
        result["encodings"] = encoding_lines(caught, package)
    sys.stdout.write(json.dumps(results))


if __name__ == "__main__":
    main()
