#!/usr/bin/env python3
"""A minimal OpenID provider for scripts/load.sh's LOAD_TOKENS modes: many valid ID tokens, fast.

    load-issuer.py TEMPLATE_TOKEN_FILE DISCOVERY_JSON COUNT OUT_DIR [CPU]

Listens on 127.0.0.1 (a free port) and serves only a discovery document and a JWKS: the dev
provider's document (DISCOVERY_JSON) with the dev provider's issuer replaced by this one's, and
the public half of an RSA-2048 key made here. Mints, with Python's `cryptography` (not
Federate's signing code), COUNT RS256 ID tokens signed by that key into OUT_DIR/tokens.txt (one
per line) and one more into OUT_DIR/check.txt (for the script's 200/401 checks, never in the
list). Each token copies the header and claims of TEMPLATE_TOKEN_FILE (a real ID token of the
dev provider, got through `federate login`), with this issuer, `iat`/`auth_time` now, `exp` the
template's lifetime from now, a distinct `jti`, and Google's profile claims where the template
lacks them (`azp`, `given_name`, `family_name`, `picture`, `locale`), so each is about 1 KB
like a Google ID token and differs from the others only in its `jti` and signature.
Then prints {"issuer": URL, "tokens": COUNT, "bytes": AVERAGE} on standard output, moves itself
to CPU (the load driver's core) and serves until killed. Minting uses every core (a process
per core), about 3,000 tokens/s per core.
"""
import base64, json, multiprocessing, os, pathlib, sys, threading, time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import padding, rsa

b64 = lambda b: base64.urlsafe_b64encode(b).rstrip(b"=").decode()
seg = lambda obj: b64(json.dumps(obj, separators=(",", ":")).encode())
unb64 = lambda s: base64.urlsafe_b64decode(s + "=" * (-len(s) % 4))

_key = None


def _init(pem):
    global _key
    _key = serialization.load_pem_private_key(pem, password=None)


def _sign(inputs):
    return [i + "." + b64(_key.sign(i.encode(), padding.PKCS1v15(), hashes.SHA256())) for i in inputs]


def main():
    template_file, discovery_file, count, out = sys.argv[1], sys.argv[2], int(sys.argv[3]), pathlib.Path(sys.argv[4])
    cpu = int(sys.argv[5]) if len(sys.argv) > 5 else None
    template = pathlib.Path(template_file).read_text().strip()
    header, claims = (json.loads(unb64(part)) for part in template.split(".")[:2])
    discovery = json.loads(pathlib.Path(discovery_file).read_text())

    server = ThreadingHTTPServer(("127.0.0.1", 0), None)
    issuer = f"http://127.0.0.1:{server.server_address[1]}"
    old = discovery["issuer"]
    discovery = {k: (v.replace(old, issuer, 1) if isinstance(v, str) and v.startswith(old) else v) for k, v in discovery.items()}
    discovery["issuer"] = issuer
    jwks_path = discovery["jwks_uri"][len(issuer):] or "/"

    key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    numbers = key.public_key().public_numbers()
    kid = "load-rsa-1"
    jwks = {"keys": [{"kty": "RSA", "kid": kid, "use": "sig", "alg": "RS256",
                      "n": b64(numbers.n.to_bytes(256, "big")), "e": b64(numbers.e.to_bytes(3, "big"))}]}
    documents = {"/.well-known/openid-configuration": json.dumps(discovery).encode(), jwks_path: json.dumps(jwks).encode()}

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self):
            body = documents.get(self.path.split("?")[0])
            self.send_response(200 if body else 404)
            self.send_header("Content-Type", "application/json")
            self.send_header("Cache-Control", "max-age=3600")
            self.send_header("Content-Length", str(len(body or b"")))
            self.end_headers()
            self.wfile.write(body or b"")

        def log_message(self, *args):
            pass

    server.RequestHandlerClass = Handler

    now = int(time.time())
    lifetime = int(claims["exp"]) - int(claims["iat"]) if "exp" in claims and "iat" in claims else 3600
    claims = dict(claims, iss=issuer, iat=now, exp=now + lifetime)
    if "auth_time" in claims:
        claims["auth_time"] = now
    google = {"azp": claims.get("aud") if isinstance(claims.get("aud"), str) else "dev-client",
              "given_name": "Alice", "family_name": "Liddell",
              "picture": "https://lh3.googleusercontent.com/a/ACg8ocJ" + "q" * 80 + "=s96-c", "locale": "en"}
    for name, value in google.items():
        claims.setdefault(name, value)
    header = dict(header, kid=kid, alg="RS256")
    head = seg(header)
    inputs = [f"{head}.{seg(dict(claims, jti=f'load-{i:08d}'))}" for i in range(count + 1)]

    pem = key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption())
    processes = os.cpu_count() or 1
    chunk = 2000
    with multiprocessing.Pool(processes, initializer=_init, initargs=(pem,)) as pool:
        tokens = [t for part in pool.map(_sign, [inputs[i:i + chunk] for i in range(0, len(inputs), chunk)]) for t in part]
    (out / "check.txt").write_text(tokens[-1] + "\n")
    (out / "tokens.txt").write_text("".join(t + "\n" for t in tokens[:-1]))
    if cpu is not None:
        os.sched_setaffinity(0, {cpu})
    threading.Thread(target=server.serve_forever, daemon=True).start()
    print(json.dumps({"issuer": issuer, "tokens": count, "bytes": round(sum(map(len, tokens)) / len(tokens))}), flush=True)
    threading.Event().wait()


if __name__ == "__main__":
    main()
