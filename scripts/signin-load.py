#!/usr/bin/env python3
"""Full sign-ins through `federate serve` and the dev provider, as a browser makes them, for
scripts/multi-instance-bench.sh: GET /auth/dev/start on an instance, the dev provider's
authorization (which auto-approves alice), then the callback on the same instance, which
exchanges the code, verifies the ID token, signs in on the store and sets the session cookie.

Usage: signin-load.py SECONDS WORKERS ORIGIN [ORIGIN ...]
Worker i uses ORIGIN[i % count]. Prints one JSON line: {"signins", "seconds", "per_second", "errors"}.
"""
import http.client, json, multiprocessing, sys, time, urllib.parse


class Client:
    """Keep-alive connections per host, and a cookie jar per sign-in."""

    def __init__(self):
        self.connections = {}

    def get(self, url, cookies):
        parts = urllib.parse.urlsplit(url)
        connection = self.connections.get(parts.netloc)
        if connection is None:
            connection = self.connections[parts.netloc] = http.client.HTTPConnection(parts.netloc, timeout=30)
        path = parts.path + ("?" + parts.query if parts.query else "")
        headers = {"Cookie": "; ".join(f"{k}={v}" for k, v in cookies.items())} if cookies else {}
        try:
            connection.request("GET", path, headers=headers)
            response = connection.getresponse()
        except (http.client.HTTPException, OSError):
            connection.close()
            del self.connections[parts.netloc]
            raise
        response.read()
        for name, value in response.getheaders():
            if name.lower() == "set-cookie":
                pair = value.split(";", 1)[0]
                key, _, cookie = pair.partition("=")
                cookies[key.strip()] = cookie.strip()
        return response.status, response.getheader("Location")


def sign_in(client, origin):
    cookies = {}
    status, location = client.get(origin + "/auth/dev/start?intent=signIn&returnTo=/", cookies)
    if status not in (302, 303) or not location:
        return False
    status, location = client.get(location, cookies)  # the dev provider: auto-approved, back to the callback
    if status not in (302, 303) or not location:
        return False
    status, location = client.get(location, cookies)  # the callback: code exchange, ID token, sign-in, session
    return status == 303 and location == "/" and bool(cookies.get("federate_session") or cookies.get("__Host-federate_session"))


def worker(arguments):
    origin, deadline = arguments
    client, done, errors = Client(), 0, 0
    while time.time() < deadline:
        try:
            if sign_in(client, origin):
                done += 1
            else:
                errors += 1
        except (http.client.HTTPException, OSError):
            errors += 1
    return done, errors


def main():
    seconds, workers, origins = float(sys.argv[1]), int(sys.argv[2]), sys.argv[3:]
    start = time.time()
    deadline = start + seconds
    with multiprocessing.Pool(workers) as pool:
        results = pool.map(worker, [(origins[i % len(origins)], deadline) for i in range(workers)])
    elapsed = time.time() - start
    done = sum(r[0] for r in results)
    print(json.dumps({"signins": done, "seconds": round(elapsed, 2), "per_second": round(done / elapsed, 1),
                      "errors": sum(r[1] for r in results)}))


main()
