"""The `controller web` subcommands:

    controller web build [--out DIR] [--config PATH]   the page as a static folder (default build/web),
                                           offering the languages of [exhibit] language
    controller web serve [--port N] [--dir DIR] [--bind ADDRESS] [--log-addresses]   serve it on
                                           http://127.0.0.1:N/ (--bind 0.0.0.0: to the phones and tablets on
                                           this network too; --log-addresses: name each device in the log)

A failure is one line on stderr, "controller: ...", with exit status 1.
"""

import errno
from pathlib import Path

from controller.arguments import add_config_argument, argument, config_path
from controller.core.values import is_whole
from controller.language import CODES
from controller.web.build import DEFAULT_OUT, WebError, build


def add_parser(commands):
    """The `web` subcommand and its own subcommands, on cli.py's parser."""
    web = commands.add_parser("web", help="the replicas in a web page: build it, serve it")
    actions = web.add_subparsers(dest="web_command", metavar="build|serve", parser_class=type(web))
    actions.required = True
    build_parser = actions.add_parser("build", help="write the page as a static folder (MicroPython runs the "
                                      "core in the browser)")
    build_parser.set_defaults(action=run_build)
    build_parser.add_argument("--out", metavar="DIR", default=str(DEFAULT_OUT),
                              help="the folder to write (default: %s)" % DEFAULT_OUT)
    add_config_argument(build_parser)
    serve = actions.add_parser("serve", help="serve the built page on localhost (--bind 0.0.0.0: to a class's "
                               "phones and tablets on this network too)")
    serve.set_defaults(action=run_serve)
    serve.add_argument("--port", type=port_number, default=8000, help="the port (default: 8000)")
    serve.add_argument("--dir", metavar="DIR", default=str(DEFAULT_OUT),
                       help="the built folder (default: %s)" % DEFAULT_OUT)
    serve.add_argument("--bind", metavar="ADDRESS", default="127.0.0.1",
                       help="the address to listen on (default: 127.0.0.1, this computer only; 0.0.0.0: every "
                            "network it is on, so that the phones and tablets on them reach the page)")
    serve.add_argument("--log-addresses", action="store_true",
                       help="write the address of the device that asked in each request's line on stderr (by "
                            "default left out: a visitor's phone's address is personal data, docs/privacy.md)")


def port_number(text):
    import argparse
    if not is_whole(text) or not 1 <= int(text) <= 65535:     # ASCII digits, as every number option takes
        raise argparse.ArgumentTypeError("must be a port number from 1 to 65535, not %r" % text)
    return int(text)


def run_build(args, out):
    from controller.service.config import load_config
    path = config_path(args)
    languages = argument("--config", load_config, path).languages if path else CODES
    folder = build(args.out, languages=languages, say=lambda text: (out.write(text), out.flush()))
    out.write("Built the page in %s: controller web serve%s, then open http://127.0.0.1:8000/\n"
              % (folder, "" if Path(args.out) == DEFAULT_OUT else " --dir " + str(folder)))
    return 0


def run_serve(args, out):
    from controller.web.serve import lan_address, make_server
    folder = Path(args.dir)
    if not (folder / "index.html").is_file():
        raise WebError("no page in %s (%s): run controller web build first, from this folder, or give --dir"
                       % (folder, folder.absolute()))
    try:
        server = make_server(folder, args.port, host=args.bind, addresses=args.log_addresses)
    except OSError as error:
        busy = " (another controller web serve, or another program, has the port: Ctrl-C the other serve, or " \
            "give --port %d)" % (args.port % 65535 + 1) if error.errno == errno.EADDRINUSE else ""
        raise WebError("cannot listen on %s:%d: %s%s" % (args.bind, args.port, error.strerror or error, busy))
    port = server.server_address[1]
    if args.bind == "0.0.0.0":
        # the address to give a class: this computer's on the network its traffic goes out on
        where = lan_address()
        out.write("Serving %s on http://127.0.0.1:%d/ and to this network's phones and tablets on %s "
                  "(the kiosk: /?kiosk=1); Ctrl-C stops.\n"
                  % (folder, port, "http://%s:%d/" % (where, port) if where else
                     "this computer's address, port %d (hostname -I says it)" % port))
    else:
        out.write("Serving %s on http://%s:%d/ (the kiosk: /?kiosk=1); Ctrl-C stops.\n" % (folder, args.bind, port))
    out.flush()
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        out.write("Stopped.\n")
    finally:
        server.server_close()
    return 0
