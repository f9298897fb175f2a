#!/usr/bin/env python3
"""Loopback HTTP/1.1 test server for URLSessionTransport tests.

Written on raw sockets (not http.server) so each route controls the exact bytes on the
wire: lying Content-Length headers, stalls, truncation, endless chunked bodies.

Usage:
  loopback_server.py          serve on 127.0.0.1:<free port>; prints the port, then serves
                              until stdin closes (so it never outlives the test process)
  loopback_server.py refusing  hold a port bound, never listening, until stdin closes
"""

import base64
import gzip
import json
import socket
import socketserver
import sys
import threading
import time
import urllib.parse

GZIP_PLAIN = b"hello gzip " * 200
GZIP_BODY = gzip.compress(GZIP_PLAIN, mtime=0)


def head(status, headers, reason="Test"):
    lines = [f"HTTP/1.1 {status} {reason}"] + [f"{name}: {value}" for name, value in headers]
    return ("\r\n".join(lines) + "\r\n\r\n").encode("latin-1")


def chunk(data):
    return f"{len(data):x}\r\n".encode() + data + b"\r\n"


class Handler(socketserver.BaseRequestHandler):
    def handle(self):
        self.request.settimeout(60)
        try:
            request = self.read_request()
            if request is None:
                return
            self.route(*request)
        except (BrokenPipeError, ConnectionResetError, socket.timeout):
            pass  # the client gave up, which is what several tests want

    def read_request(self):
        data = b""
        while b"\r\n\r\n" not in data:
            more = self.request.recv(65536)
            if not more:
                return None
            data += more
        head_bytes, body = data.split(b"\r\n\r\n", 1)
        lines = head_bytes.decode("latin-1").split("\r\n")
        method, target, _ = lines[0].split(" ", 2)
        headers = [tuple(part.strip() for part in line.split(":", 1)) for line in lines[1:] if ":" in line]
        length = next((int(v) for n, v in headers if n.lower() == "content-length"), 0)
        while len(body) < length:
            more = self.request.recv(65536)
            if not more:
                break
            body += more
        return method, target, headers, body

    def send(self, status, headers, body=b"", reason="Test"):
        headers = list(headers) + [("Content-Length", str(len(body))), ("Connection", "close")]
        self.request.sendall(head(status, headers, reason) + body)

    def route(self, method, target, headers, body):
        parsed = urllib.parse.urlsplit(target)
        path = parsed.path
        query = dict(urllib.parse.parse_qsl(parsed.query))

        if path == "/echo" or path.startswith("/secret-path"):
            reply = {
                "method": method,
                "target": target,
                "headers": [[n, v] for n, v in headers],
                "body": base64.b64encode(body).decode(),
            }
            self.send(200, [("Content-Type", "application/json"), ("X-Reply", "one"),
                            ("Set-Cookie", "session=abc; Path=/"), ("X-Reply", "two")],
                      json.dumps(reply).encode())
        elif path == "/status":
            code = int(query.get("code", "200"))
            self.send(code, [("Content-Type", "text/plain")], f"status {code}".encode())
        elif path == "/redirect":
            code = int(query.get("code", "302"))
            self.send(code, [("Location", query.get("to", "/echo"))], b"moved")
        elif path == "/chain":
            remaining = int(query.get("n", "0"))
            if remaining > 0:
                self.send(302, [("Location", f"/chain?n={remaining - 1}")])
            else:
                self.send(200, [], b"end of chain")
        elif path == "/cycle":
            other = "b" if query.get("at") == "a" else "a"
            self.send(302, [("Location", f"/cycle?at={other}")])
        elif path == "/huge-length":
            # Announces far more than any test allows, sends a little, then holds the
            # connection open: only a client that checks the head fails fast.
            self.request.sendall(head(200, [("Content-Length", "100000000000")]) + b"x" * 16)
            time.sleep(30)
        elif path == "/chunked":
            size = int(query.get("size", "0"))
            out = head(200, [("Transfer-Encoding", "chunked"), ("Connection", "close")])
            sent = 0
            while sent < size:
                piece = min(1000, size - sent)
                out += chunk(b"c" * piece)
                sent += piece
            self.request.sendall(out + b"0\r\n\r\n")
        elif path == "/endless":
            self.request.sendall(head(200, [("Transfer-Encoding", "chunked")]))
            deadline = time.monotonic() + 30
            while time.monotonic() < deadline:
                self.request.sendall(chunk(b"e" * 4096))
                time.sleep(0.001)
        elif path == "/delay":
            time.sleep(float(query.get("s", "5")))
            self.send(200, [], b"late")
        elif path == "/stall":
            self.request.sendall(head(200, [("Content-Length", "100")]) + b"s" * 10)
            time.sleep(30)
        elif path == "/stall-chunked":
            self.request.sendall(head(200, [("Transfer-Encoding", "chunked")]) + chunk(b"s" * 10))
            time.sleep(30)
        elif path == "/truncated":
            self.request.sendall(head(200, [("Content-Length", "100")]) + b"t" * 10)
            self.request.shutdown(socket.SHUT_RDWR)
        elif path == "/gzip":
            self.send(200, [("Content-Type", "text/plain"), ("Content-Encoding", "gzip")], GZIP_BODY)
        elif path == "/encoded":
            # A body labelled with an arbitrary content coding, sent as is.
            self.send(200, [("Content-Encoding", query.get("coding", "x-unknown"))], b"opaque bytes")
        elif path == "/gzip-plain":
            # The reference values the gzip test compares against.
            reply = {"compressed": base64.b64encode(GZIP_BODY).decode(),
                     "plain": base64.b64encode(GZIP_PLAIN).decode()}
            self.send(200, [("Content-Type", "application/json")], json.dumps(reply).encode())
        else:
            self.send(404, [("Content-Type", "text/plain")], b"no such route")


class Server(socketserver.ThreadingMixIn, socketserver.TCPServer):
    daemon_threads = True
    allow_reuse_address = True


def main():
    if len(sys.argv) > 1 and sys.argv[1] == "refusing":
        # Bound, never listening: connections are refused, and no other server can take the
        # port until stdin closes.
        with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as held:
            held.bind(("127.0.0.1", 0))
            print(held.getsockname()[1], flush=True)
            sys.stdin.read()
        return
    server = Server(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    print(server.server_address[1], flush=True)
    sys.stdin.read()  # returns when the test process closes our stdin (or dies)


if __name__ == "__main__":
    main()
