"""Serving an ASGI app on 127.0.0.1 the way the tests start a server: `python <server> --port N`
binds (0: any free port), prints "listening on <port>" once bound, and serves until SIGTERM."""

import argparse
import signal
import socket

import uvicorn


def serve(app, description: str) -> None:
    parser = argparse.ArgumentParser(description=description)
    parser.add_argument("--port", type=int, default=0, help="the port on 127.0.0.1 (0: any free one)")
    arguments = parser.parse_args()
    # A parent may have blocked signals on the thread that started us (test runners do): SIGTERM
    # must stop the server.
    signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGTERM, signal.SIGINT})
    listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    listener.bind(("127.0.0.1", arguments.port))
    listener.listen(128)
    print(f"listening on {listener.getsockname()[1]}", flush=True)
    # Tests stop it with SIGTERM: open keep-alive connections get a second, not forever.
    server = uvicorn.Server(uvicorn.Config(app, log_level="warning", lifespan="off", timeout_graceful_shutdown=1))
    server.run(sockets=[listener])
