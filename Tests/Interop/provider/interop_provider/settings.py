"""Settings for a throwaway django-oauth-toolkit OpenID provider used by Federate's interop tests.

Everything that changes per run comes from the environment (set by ../../dot_provider.py):

  FEDERATE_DOT_RUNTIME_DIR   directory for the SQLite DB, the RSA key and the Django secret (required)
  FEDERATE_DOT_ISSUER        exact issuer, e.g. http://127.0.0.1:8123/o (required)
  FEDERATE_DOT_AUTHZ_ISS     "1" (default) to add RFC 9207 `iss` to authorization responses, "0" not to
  FEDERATE_DOT_ACCESS_TOKEN_SECONDS      access-token lifetime (default 3600)
  FEDERATE_DOT_REFRESH_REUSE_PROTECTION  "1" to revoke a refresh token's family when a rotated-out one comes back

Nothing secret is committed: the key and the secret are generated into the runtime dir.
"""
import os
from pathlib import Path

BASE_DIR = Path(__file__).resolve().parent.parent
RUNTIME_DIR = Path(os.environ["FEDERATE_DOT_RUNTIME_DIR"]).resolve()
ISSUER = os.environ["FEDERATE_DOT_ISSUER"]

SECRET_KEY = (RUNTIME_DIR / "django-secret.txt").read_text().strip()
DEBUG = False
ALLOWED_HOSTS = ["127.0.0.1", "localhost", "[::1]"]

INSTALLED_APPS = [
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.staticfiles",
    "oauth2_provider",
]

MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
]
if os.environ.get("FEDERATE_DOT_AUTO_LOGIN"):  # ../../dot_service.py: a scripted browser, no login form
    MIDDLEWARE.append("interop_provider.plain_oauth2.AutoLoginMiddleware")

ROOT_URLCONF = "interop_provider.urls"
WSGI_APPLICATION = "interop_provider.wsgi.application"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [BASE_DIR / "templates"],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
            ],
        },
    },
]

DATABASES = {
    "default": {
        "ENGINE": "django.db.backends.sqlite3",
        "NAME": RUNTIME_DIR / "db.sqlite3",
        # runserver is threaded (and dot_device.py's person writes from a thread of its own):
        # a transaction takes SQLite's write lock when it begins, and waits for it, instead of
        # failing with "database is locked" when two upgrade a read lock at once.
        "OPTIONS": {"transaction_mode": "IMMEDIATE", "timeout": 20},
    }
}

# Cheap hashing: the user's password and the client secrets are throwaway, and DOT hashes
# client secrets with the default hasher (CLIENT_SECRET_HASHER "default"), so with Django's
# 1,000,000 PBKDF2 rounds every token request would cost the 2-core machine about a second.
PASSWORD_HASHERS = [
    "interop_provider.hashers.QuickPBKDF2PasswordHasher",
    "django.contrib.auth.hashers.PBKDF2PasswordHasher",
]

LOGIN_URL = "/accounts/login/"
LOGIN_REDIRECT_URL = "/accounts/login/"

LANGUAGE_CODE = "en-us"
TIME_ZONE = "UTC"
USE_I18N = True
USE_TZ = True
STATIC_URL = "static/"
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

OAUTH2_PROVIDER = {
    "OIDC_ENABLED": True,
    # Fixed issuer: DOT otherwise derives it from the request's Host header.
    "OIDC_ISS_ENDPOINT": ISSUER,
    "OIDC_RSA_PRIVATE_KEY": (RUNTIME_DIR / "oidc-rsa-key.pem").read_text(),
    "OAUTH2_VALIDATOR_CLASS": "interop_provider.validators.InteropValidator",
    "SCOPES": {
        "openid": "OpenID Connect",
        "email": "Email address",
        "profile": "Basic profile",
        "read": "Read the user (plain OAuth 2.0 user endpoint)",
        "reports": "Service-to-service (client credentials)",
    },
    "DEFAULT_SCOPES": ["openid"],
    "PKCE_REQUIRED": True,
    # Redirect URIs are matched exactly, port included (no RFC 8252 any-port loopback leniency).
    "ALLOW_LOCALHOST_LOOPBACK": False,
    "ALLOWED_REDIRECT_URI_SCHEMES": ["http", "https"],
    "ROTATE_REFRESH_TOKEN": True,
    # A rotated-out refresh token presented again revokes its whole family (DOT 3.0.1+), when
    # ../../dot_provider.py --refresh-reuse-protection says so.
    "REFRESH_TOKEN_REUSE_PROTECTION": os.environ.get("FEDERATE_DOT_REFRESH_REUSE_PROTECTION", "0") == "1",
    "ACCESS_TOKEN_EXPIRE_SECONDS": int(os.environ.get("FEDERATE_DOT_ACCESS_TOKEN_SECONDS", "3600")),
    "ID_TOKEN_EXPIRE_SECONDS": 3600,
    # RFC 9700 behaviour gates (DOT 4.0 defaults): S256 only, no implicit/password grants,
    # no access tokens in query strings.
    "COMPLIANT_BCP_RFC9700_PKCE_METHOD": True,
    "COMPLIANT_BCP_RFC9700_IMPLICIT_GRANT": True,
    "COMPLIANT_BCP_RFC9700_PASSWORD_GRANT": True,
    "COMPLIANT_BCP_RFC9700_ACCESS_TOKEN_TRANSPORT": True,
    # RFC 9207: `iss` in the authorization response (+ advertised in discovery).
    "COMPLIANT_BCP_RFC9700_AUTHZ_RESPONSE_ISS": os.environ.get("FEDERATE_DOT_AUTHZ_ISS", "1") == "1",
    # Device authorization grant (RFC 8628, ../../dot_device.py): DOT leaves verification_uri
    # unset (it answers "verification_uri": null) until the deployer names its own page.
    "OAUTH_DEVICE_VERIFICATION_URI": ISSUER + "/device/",
    "OAUTH_DEVICE_VERIFICATION_URI_COMPLETE": ISSUER + "/device/?user_code={user_code}",
}

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "handlers": {"console": {"class": "logging.StreamHandler"}},
    "root": {"handlers": ["console"], "level": "INFO"},
    "loggers": {"oauth2_provider": {"level": "DEBUG"}},
}
