"""Django settings for Tavla.

Everything that differs between a laptop and production comes from the environment. With no
environment at all Tavla runs on SQLite (``var/tavla.sqlite3``) and an embedded Redis (see
``tavla.embedded_redis``), so ``make run`` needs no service installed.

Environment: ``DATABASE_URL``, ``REDIS_URL``, ``SECRET_KEY``, ``DEBUG``, ``ALLOWED_HOSTS``,
``CSRF_TRUSTED_ORIGINS`` (comma-separated), ``TAVLA_HTTPS`` (behind a TLS-terminating proxy),
``TAVLA_EMBEDDED_REDIS_PORT``, ``TAVLA_CLOCK_SWEEP_SECONDS``, ``TAVLA_PRESENCE_HEARTBEAT``,
``TAVLA_DB_POOL_SIZE``, ``TAVLA_DB_POOL_TIMEOUT``, ``TAVLA_PREPARED_STATEMENTS``,
``TAVLA_PROCESS_KIND``, ``TAVLA_TABLES_PER_HOUR``, ``TAVLA_SIGNUPS_PER_HOUR``,
``TAVLA_SEEK_SECONDS``, ``TAVLA_OPEN_SEEKS``, ``TAVLA_SEEKS_PER_HOUR``,
``TAVLA_CHALLENGE_SECONDS``, ``TAVLA_CHALLENGES_PER_HOUR``,
``TAVLA_METRICS_TOKEN``, ``TAVLA_METRICS_ADDRESSES``, ``TAVLA_LOG_FORMAT``, ``LOG_LEVEL``,
``TAVLA_CACHE_PREFIX``, ``TAVLA_CORRESPONDENCE_TABLES_PER_HOUR``, ``TAVLA_VACATION_DAYS``,
``TAVLA_SITE_URL``, ``EMAIL_BACKEND``, ``EMAIL_HOST``, ``EMAIL_PORT``, ``EMAIL_HOST_USER``,
``EMAIL_HOST_PASSWORD``, ``EMAIL_USE_TLS``, ``DEFAULT_FROM_EMAIL``.
"""

from __future__ import annotations

import os
import sys
from datetime import timedelta
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit, urlunsplit

import dj_database_url
from django.core.exceptions import ImproperlyConfigured
from django.utils.translation import gettext_lazy as _

from tavla.embedded_redis import embedded_redis_url
from tavla.engine.clock import PRESETS as CLOCK_PRESETS
from tavla.engine.clock import TABLE_PRESETS as TABLE_CLOCK_PRESETS
from tavla.logs import logging_config
from tavla.queues import DEFAULT_QUEUE, task_routes

BASE_DIR = Path(__file__).resolve().parent.parent
VAR_DIR = BASE_DIR / "var"


def env_bool(name: str, default: bool) -> bool:
    value = os.environ.get(name)
    if value is None or value.strip() == "":
        return default
    return value.strip().lower() in {"1", "true", "yes", "on"}


def env_list(name: str, default: str = "") -> list[str]:
    return [item.strip() for item in os.environ.get(name, default).split(",") if item.strip()]


# --- Security ---------------------------------------------------------------------------
# Safe unless told otherwise: DEBUG is off unless DEBUG=1 (`make run`, the tests and CI set
# it for themselves), and with DEBUG off Tavla refuses to start on a development key.

DEBUG = env_bool("DEBUG", False)

DEV_SECRET_KEY = "django-insecure-tavla-dev-key-do-not-use-in-production"
SECRET_KEY = os.environ.get("SECRET_KEY") or DEV_SECRET_KEY
if not DEBUG and (SECRET_KEY == DEV_SECRET_KEY or SECRET_KEY.startswith("django-insecure")):
    raise ImproperlyConfigured(
        "SECRET_KEY is not set. With DEBUG off Tavla refuses to start on the built-in "
        "development key: set SECRET_KEY to a long random string, for example "
        "`python -c 'import secrets; print(secrets.token_urlsafe(50))'`."
    )

ALLOWED_HOSTS = env_list("ALLOWED_HOSTS", "localhost,127.0.0.1,[::1]")
CSRF_TRUSTED_ORIGINS = env_list("CSRF_TRUSTED_ORIGINS")

TAVLA_HTTPS = env_bool("TAVLA_HTTPS", False)
if TAVLA_HTTPS:
    SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
    SECURE_SSL_REDIRECT = True
    SESSION_COOKIE_SECURE = True
    CSRF_COOKIE_SECURE = True
    SECURE_HSTS_SECONDS = int(os.environ.get("TAVLA_HSTS_SECONDS", str(365 * 24 * 3600)))
    SECURE_HSTS_INCLUDE_SUBDOMAINS = env_bool("TAVLA_HSTS_INCLUDE_SUBDOMAINS", True)
    SECURE_HSTS_PRELOAD = env_bool("TAVLA_HSTS_PRELOAD", True)
    # /healthz answers a load balancer on plain HTTP inside the network.
    SECURE_REDIRECT_EXEMPT = [r"^healthz$", r"^livez$"]

# Content Security Policy (django-csp): scripts, styles, images, fonts, sockets and forms of
# the site's own origin only; nothing inline, nothing from elsewhere, no framing.
CONTENT_SECURITY_POLICY: dict[str, Any] = {
    "DIRECTIVES": {
        "default-src": ["'self'"],
        "script-src": ["'self'"],
        "style-src": ["'self'"],
        "img-src": ["'self'", "data:"],
        "font-src": ["'self'"],
        "connect-src": ["'self'"],
        "object-src": ["'none'"],
        "base-uri": ["'self'"],
        "form-action": ["'self'"],
        "frame-ancestors": ["'none'"],
    },
}

# --- Applications -----------------------------------------------------------------------

INSTALLED_APPS = [
    "daphne",
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.staticfiles",
    "rest_framework",
    "rest_framework.authtoken",
    "drf_spectacular",
    "drf_spectacular_sidecar",
    "channels",
    "axes",
    "csp",
    "tavla",
    "matches",
    "tournaments",
    "seasons",
]

MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    "tavla.api_http.ApiBodyLimitMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.locale.LocaleMiddleware",
    "django.middleware.common.CommonMiddleware",
    # Inside the locale middleware, so the page's language is still active.
    "tavla.persian_digits.PersianDigitsMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    "csp.middleware.CSPMiddleware",
    # Last, as django-axes asks: it turns a locked-out login into its lockout answer.
    "axes.middleware.AxesMiddleware",
]

ROOT_URLCONF = "tavla.site.urls"
WSGI_APPLICATION = "tavla.site.wsgi.application"
ASGI_APPLICATION = "tavla.site.asgi.application"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [BASE_DIR / "templates"],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.template.context_processors.i18n",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
                "matches.context_processors.your_turn",
            ],
        },
    },
]

# --- Database ---------------------------------------------------------------------------

SQLITE_DEFAULT_PATH = VAR_DIR / "tavla.sqlite3"
# SQLite: BEGIN IMMEDIATE takes the write lock at the start of every transaction, so
# concurrent writers queue (up to `timeout` seconds) instead of failing half-way with
# "database is locked"; WAL lets readers go on while one writes.
SQLITE_OPTIONS: dict[str, Any] = {
    "transaction_mode": "IMMEDIATE",
    "timeout": 20,
    "init_command": "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL;",
}


def process_kind(argv: list[str]) -> str:
    """What this process is, for its database connections: ``web`` (daphne, runserver),
    ``beat``, ``worker`` (any other Celery command) or ``command`` (manage.py, the tests).
    ``TAVLA_PROCESS_KIND`` overrides what the command line says."""
    if os.environ.get("TAVLA_PROCESS_KIND"):
        return os.environ["TAVLA_PROCESS_KIND"]
    program = Path(argv[0]).parent.name if argv and argv[0].endswith("__main__.py") else (
        Path(argv[0]).name if argv else "")
    if program == "daphne" or (program == "manage.py" and "runserver" in argv[1:2]):
        return "web"
    if program == "celery":
        return "beat" if "beat" in argv else "worker"
    return "command"


TAVLA_PROCESS_KIND = process_kind(sys.argv)
# PostgreSQL connections. A web process (ASGI) runs each HTTP request in a thread of its own
# and the sockets' database calls in matches.live.socket_db's threads: a persistent connection
# per thread leaked (one process held 91, and PostgreSQL refused everyone). So a web process
# takes connections from Django's pool (psycopg_pool), at most TAVLA_DB_POOL_SIZE: the
# sockets' 4 threads, Channels' one thread-sensitive thread, and 3 for HTTP requests at once
# (more wait for a free one, up to TAVLA_DB_POOL_TIMEOUT seconds). Every call returns its
# connection when it ends (Django's request signals, Channels' database_sync_to_async). A
# Celery process (prefork: one task at a time per child) keeps one connection per child for
# 60 s. Each kind names itself in pg_stat_activity.application_name (tavla-web,
# tavla-worker, tavla-beat, tavla-command).
TAVLA_DB_POOL_SIZE = int(os.environ.get("TAVLA_DB_POOL_SIZE", "8"))
TAVLA_DB_POOL_TIMEOUT = float(os.environ.get("TAVLA_DB_POOL_TIMEOUT", "30"))
# The action path's statements are prepared once per database session
# (matches/services/statements.py); off for a pooler that gives Django no session of its
# own (PgBouncer in transaction mode).
TAVLA_PREPARED_STATEMENTS = env_bool("TAVLA_PREPARED_STATEMENTS", True)

if os.environ.get("DATABASE_URL"):
    DATABASES = {"default": dj_database_url.parse(os.environ["DATABASE_URL"], conn_max_age=60)}
    _default = DATABASES["default"]
    if _default["ENGINE"] == "django.db.backends.postgresql":
        _options = _default.setdefault("OPTIONS", {})
        _options.setdefault("application_name", f"tavla-{TAVLA_PROCESS_KIND}")
        if TAVLA_PROCESS_KIND == "web":
            # With the pool: Django requires 0. Without it (TAVLA_DB_POOL_SIZE=0): a new
            # connection for every request and every socket call, closed at its end.
            _default["CONN_MAX_AGE"] = 0
        if TAVLA_PROCESS_KIND == "web" and TAVLA_DB_POOL_SIZE > 0:
            _options.setdefault("pool", {
                "min_size": min(2, TAVLA_DB_POOL_SIZE), "max_size": TAVLA_DB_POOL_SIZE,
                "timeout": TAVLA_DB_POOL_TIMEOUT,
                # Connections above min_size close after a minute unused.
                "max_idle": 60,
            })
        else:
            _default["CONN_HEALTH_CHECKS"] = True
        if not TAVLA_PREPARED_STATEMENTS:
            # Behind a pooler without sessions a named cursor may be fetched from another
            # server connection than the one that opened it: no server-side cursors.
            _default["DISABLE_SERVER_SIDE_CURSORS"] = True
else:
    DATABASES = {
        "default": {
            "ENGINE": "django.db.backends.sqlite3",
            "NAME": str(SQLITE_DEFAULT_PATH),
        }
    }
if DATABASES["default"]["ENGINE"] == "django.db.backends.sqlite3":
    _sqlite = DATABASES["default"]
    VAR_DIR.mkdir(exist_ok=True)
    _sqlite["CONN_MAX_AGE"] = 0
    for _key, _value in SQLITE_OPTIONS.items():
        _sqlite.setdefault("OPTIONS", {}).setdefault(_key, _value)
    # The test database is a file, not memory, so a Celery worker subprocess can share it.
    _sqlite.setdefault("TEST", {}).setdefault(
        "NAME", str(VAR_DIR / f"test_{Path(str(_sqlite['NAME'])).stem}.sqlite3")
    )

DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

# --- Redis: channel layer, Celery broker and results, cache -----------------------------

REDIS_URL = os.environ.get("REDIS_URL") or embedded_redis_url()
REDIS_IS_EMBEDDED = not os.environ.get("REDIS_URL")

# Under pytest-xdist against a given Redis, each test worker takes a database of its own (the
# URL's number plus the worker's), so workers never share queues, caches or presence. Pub/sub
# is server-wide, so the channel layer's prefix names the worker too. The choice is written
# back to the environment: the servers and workers a test starts inherit it unchanged.
_TEST_WORKER = os.environ.get("PYTEST_XDIST_WORKER", "")
# With the embedded Redis (a server per worker already) only the mark is set: a child given
# a REDIS_URL of its own (a private server in a fault test) keeps it as given.
if _TEST_WORKER and os.environ.get("TAVLA_REDIS_FOR_WORKER") != _TEST_WORKER:
    if not REDIS_IS_EMBEDDED:
        _parts = urlsplit(REDIS_URL)
        _db = (int(_parts.path.strip("/") or 0) + int(_TEST_WORKER.removeprefix("gw") or 0)) % 16
        REDIS_URL = urlunsplit(_parts._replace(path=f"/{_db}"))
        os.environ["REDIS_URL"] = REDIS_URL
    os.environ["TAVLA_REDIS_FOR_WORKER"] = _TEST_WORKER

CACHES = {
    "default": {
        "BACKEND": "django.core.cache.backends.redis.RedisCache",
        "LOCATION": REDIS_URL,
        # Another prefix keeps two sites (or two test runs) on one Redis apart.
        "KEY_PREFIX": os.environ.get("TAVLA_CACHE_PREFIX", "tavla"),
    }
}

# Redis pub/sub makes each broadcast one PUBLISH instead of several list operations per
# member; under 200 live tables it keeps the p99 action-to-opponent latency well under
# 100 ms (benchmarks/live_load.py). TAVLA_CHANNEL_LAYER=core selects the list-based layer.
_CHANNEL_BACKENDS = {
    "pubsub": "channels_redis.pubsub.RedisPubSubChannelLayer",
    "core": "channels_redis.core.RedisChannelLayer",
}
CHANNEL_LAYERS = {
    "default": {
        "BACKEND": _CHANNEL_BACKENDS[os.environ.get("TAVLA_CHANNEL_LAYER", "pubsub")],
        "CONFIG": {"hosts": [REDIS_URL],
                   "prefix": f"tavla-{_TEST_WORKER}" if _TEST_WORKER else "tavla"},
    }
}

CELERY_BROKER_URL = REDIS_URL
CELERY_RESULT_BACKEND = REDIS_URL
CELERY_BROKER_CONNECTION_RETRY_ON_STARTUP = True
CELERY_TASK_SERIALIZER = "json"
CELERY_RESULT_SERIALIZER = "json"
CELERY_ACCEPT_CONTENT = ["json"]
CELERY_RESULT_EXPIRES = timedelta(hours=1)
CELERY_TIMEZONE = "UTC"
# Beat keeps its schedule in memory (every entry is a short interval): no file to write,
# so it starts wherever it runs.
CELERY_BEAT_SCHEDULER = "celery.beat:Scheduler"
# Each kind of work has its own queue and workers (tavla/queues.py).
CELERY_TASK_DEFAULT_QUEUE = DEFAULT_QUEUE
CELERY_TASK_ROUTES = task_routes()
# The clock sweep: how often beat sends it to the clock queue (matches/services/clocks.py).
TAVLA_CLOCK_SWEEP_SECONDS = float(os.environ.get("TAVLA_CLOCK_SWEEP_SECONDS", "0.5"))
# Beat's heartbeat (tavla/tasks.py); /healthz fails when it is three intervals old.
TAVLA_HEARTBEAT_SECONDS = 5.0
CELERY_BEAT_SCHEDULE: dict[str, dict[str, Any]] = {
    # A paired tournament player who has not sat down in time loses by forfeit.
    "tournament-no-shows": {
        "task": "tournaments.forfeit_no_shows", "schedule": 30.0, "options": {"expires": 60},
    },
    "heartbeat": {"task": "tavla.tasks.heartbeat", "schedule": TAVLA_HEARTBEAT_SECONDS},
    # Arenas: free players paired (also done at once when a player becomes free), and an
    # arena closed once its time is up and its last match ended.
    "arena-sweep": {"task": "seasons.arena_sweep", "schedule": 5.0, "options": {"expires": 10}},
    # Seeks and challenges past their time recorded as expired (matches.tasks.expire_seeks).
    "expire-seeks": {"task": "matches.expire_seeks", "schedule": 30.0, "options": {"expires": 60}},
    # Ladders' deadlines are in days: once a minute is plenty.
    "ladder-sweep": {"task": "seasons.ladder_sweep", "schedule": 60.0,
                     "options": {"expires": 120}},
    # Every flag and grace forfeit. No expiry: a queued sweep is never dropped, and one
    # that finds another has just run does nothing (matches/services/clocks.py).
    "sweep-expired-clocks": {
        "task": "matches.sweep_expired_clocks", "schedule": TAVLA_CLOCK_SWEEP_SECONDS,
    },
}

# --- Game ---------------------------------------------------------------------------------

# Scripted dice exist for tests and demonstrations only; production always rolls fair dice.
TAVLA_SCRIPTED_DICE = env_bool("TAVLA_SCRIPTED_DICE", False)
# How long a new match waits for the players' client seeds before its first roll (a seed
# not sent by then is recorded empty); 0 rolls at once with both empty. docs/dice.md.
TAVLA_CLIENT_SEED_SECONDS = float(os.environ.get("TAVLA_CLIENT_SEED_SECONDS", "10"))
if TAVLA_SCRIPTED_DICE and not DEBUG:
    raise ImproperlyConfigured(
        "TAVLA_SCRIPTED_DICE is for tests and demonstrations: it is refused with DEBUG off."
    )
# GNU Backgammon's analysis of finished matches (matches/gnubg/analysis.py): its depth, 0-2 plies.
TAVLA_ANALYSIS_PLIES = int(os.environ.get("TAVLA_ANALYSIS_PLIES", "0"))
# TAVLA_GNUBG_NETS (gnubg-1.07 or bundled) is read from the environment by the evaluator
# itself (tavla/analysis/nets.py, no Django there), before gnubg loads: docs/analysis.md.
# How long a referee's adjudication page waits for an analysis worker's figures.
TAVLA_ADJUDICATION_HELP_SECONDS = float(os.environ.get("TAVLA_ADJUDICATION_HELP_SECONDS", "20"))
# Analysis requests of one account that may wait for a worker at once (the analysis board,
# hints, and the analyses of the account's finished matches), and how long a request counts
# (and the page waits) before it is given up (docs/analysis.md).
TAVLA_ANALYSIS_REQUESTS_PER_ACCOUNT = int(
    os.environ.get("TAVLA_ANALYSIS_REQUESTS_PER_ACCOUNT", "2"))
TAVLA_ANALYSIS_REQUEST_SECONDS = float(os.environ.get("TAVLA_ANALYSIS_REQUEST_SECONDS", "60"))
TAVLA_ANALYSE_FINISHED_MATCHES = env_bool("TAVLA_ANALYSE_FINISHED_MATCHES", True)
# A bot's human-like pause before each action, seconds (low, high) (matches/gnubg/bots.py).
TAVLA_BOT_PAUSE = tuple(
    float(x) for x in os.environ.get("TAVLA_BOT_PAUSE", "0.8,2.0").split(",")
)
# At most this many matches against bots at once per account (matches/gnubg/bots.py); 0: no
# bound. A start beyond it is refused with too_many_bot_matches.
TAVLA_BOT_MATCHES_PER_PLAYER = int(os.environ.get("TAVLA_BOT_MATCHES_PER_PLAYER", "3"))
# Open boards refresh their presence this often; one unrefreshed for three intervals counts
# as closed (matches/services/presence.py).
TAVLA_PRESENCE_HEARTBEAT = float(os.environ.get("TAVLA_PRESENCE_HEARTBEAT", "10"))

# WebSocket limits per socket and per client (matches/live/socket_limits.py, docs/protocol.md).
TAVLA_SOCKET_MAX_FRAME_BYTES = int(os.environ.get("TAVLA_SOCKET_MAX_FRAME_BYTES", "16384"))
TAVLA_SOCKET_RATE = float(os.environ.get("TAVLA_SOCKET_RATE", "15"))  # messages a second
TAVLA_SOCKET_BURST = float(os.environ.get("TAVLA_SOCKET_BURST", "30"))
TAVLA_SOCKET_ABUSE = float(os.environ.get("TAVLA_SOCKET_ABUSE", "60"))  # dropped, then 1008
# Frames one socket may send in a second before daphne drops it unread (tavla.site.daphne_protocol).
TAVLA_SOCKET_FUSE = int(os.environ.get("TAVLA_SOCKET_FUSE", "120"))
TAVLA_SOCKET_PENALTY_SECONDS = float(os.environ.get("TAVLA_SOCKET_PENALTY_SECONDS", "60"))
TAVLA_SOCKET_READ_BURST = float(os.environ.get("TAVLA_SOCKET_READ_BURST", "5"))  # sync, history
TAVLA_SOCKET_READ_RATE = float(os.environ.get("TAVLA_SOCKET_READ_RATE", "1"))
TAVLA_SOCKET_CONNECT_BURST = float(os.environ.get("TAVLA_SOCKET_CONNECT_BURST", "60"))
TAVLA_SOCKET_CONNECT_RATE = float(os.environ.get("TAVLA_SOCKET_CONNECT_RATE", "2"))
TAVLA_SOCKETS_PER_USER = int(os.environ.get("TAVLA_SOCKETS_PER_USER", "30"))
TAVLA_SOCKETS_PER_ADDRESS = int(os.environ.get("TAVLA_SOCKETS_PER_ADDRESS", "200"))

# --- Auth and API -----------------------------------------------------------------------

AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
    {"NAME": "django.contrib.auth.password_validation.NumericPasswordValidator"},
]
# Login lockout (django-axes) for /accounts/login/, /admin/login/ and /api/token/: after
# TAVLA_LOGIN_FAILURES wrong passwords for one username from one address, that pair is
# locked for TAVLA_LOGIN_COOLOFF_MINUTES, and a locked attempt costs no password hash.
AUTHENTICATION_BACKENDS = [
    "tavla.security.LockoutBackend",
    "django.contrib.auth.backends.ModelBackend",
]
AXES_FAILURE_LIMIT = int(os.environ.get("TAVLA_LOGIN_FAILURES", "5"))
AXES_COOLOFF_TIME = timedelta(minutes=float(os.environ.get("TAVLA_LOGIN_COOLOFF_MINUTES", "15")))
AXES_LOCKOUT_PARAMETERS = [["username", "ip_address"]]
AXES_RESET_ON_SUCCESS = True
AXES_LOCKOUT_CALLABLE = "tavla.security.lockout_response"
AXES_VERBOSE = False
# The address only from REMOTE_ADDR (set from X-Forwarded-For by tavla.site.proxies for a
# trusted proxy only): a header a client writes itself must not choose whose lock it counts.
AXES_IPWARE_META_PRECEDENCE_ORDER = ("REMOTE_ADDR",)
# Addresses or networks of the reverse proxies whose X-Forwarded-For is believed (comma-
# separated, e.g. "10.0.0.5,10.0.1.0/24"); none by default: the header is never read.
TAVLA_TRUSTED_PROXIES = [value.strip() for value in
                         os.environ.get("TAVLA_TRUSTED_PROXIES", "").split(",") if value.strip()]
# Bounds on what one client may create (docs/protocol.md, "Limits"): tables per account per
# hour (matches.services.tables; "too_many_tables"), accounts per address per hour (the
# sign-up page, django-ratelimit in the cache; 429). 0: no bound.
TAVLA_TABLES_PER_HOUR = int(os.environ.get("TAVLA_TABLES_PER_HOUR", "20"))
TAVLA_SIGNUPS_PER_HOUR = int(os.environ.get("TAVLA_SIGNUPS_PER_HOUR", "5"))
# Finding a game (matches.services.seeks, matches.services.challenges): how long a seek and a
# challenge stay open, how many seeks a player has open at once, and how many seeks and
# challenges an account posts per hour ("too_many_seeks", "too_many_challenges"; 0: no bound).
TAVLA_SEEK_SECONDS = int(os.environ.get("TAVLA_SEEK_SECONDS", "600"))
TAVLA_OPEN_SEEKS = int(os.environ.get("TAVLA_OPEN_SEEKS", "3"))
TAVLA_SEEKS_PER_HOUR = int(os.environ.get("TAVLA_SEEKS_PER_HOUR", "60"))
TAVLA_CHALLENGE_SECONDS = int(os.environ.get("TAVLA_CHALLENGE_SECONDS", "120"))
TAVLA_CHALLENGES_PER_HOUR = int(os.environ.get("TAVLA_CHALLENGES_PER_HOUR", "30"))
# Correspondence tables are counted apart: players start many at once (docs/correspondence.md).
TAVLA_CORRESPONDENCE_TABLES_PER_HOUR = int(
    os.environ.get("TAVLA_CORRESPONDENCE_TABLES_PER_HOUR", "60"))

# --- Correspondence play and its e-mail (docs/correspondence.md, docs/operations.md) ------
# Days of vacation per player per calendar year (matches.services.vacation).
TAVLA_VACATION_DAYS = int(os.environ.get("TAVLA_VACATION_DAYS", "14"))
# The site's address as players reach it: the links in e-mails are absolute.
TAVLA_SITE_URL = os.environ.get("TAVLA_SITE_URL", "http://localhost:8000")
# Development (DEBUG, `make run`) prints mails on the console; production sends them by
# SMTP with these settings (EMAIL_BACKEND may name another backend).
EMAIL_BACKEND = os.environ.get("EMAIL_BACKEND") or (
    "django.core.mail.backends.console.EmailBackend" if DEBUG
    else "django.core.mail.backends.smtp.EmailBackend")
EMAIL_HOST = os.environ.get("EMAIL_HOST", "localhost")
EMAIL_PORT = int(os.environ.get("EMAIL_PORT", "25"))
EMAIL_HOST_USER = os.environ.get("EMAIL_HOST_USER", "")
EMAIL_HOST_PASSWORD = os.environ.get("EMAIL_HOST_PASSWORD", "")
EMAIL_USE_TLS = env_bool("EMAIL_USE_TLS", False)
EMAIL_TIMEOUT = 20
DEFAULT_FROM_EMAIL = os.environ.get("DEFAULT_FROM_EMAIL", "Tavla <tavla@localhost>")

# /metrics (tavla/site/metrics_view.py): a token to send as "Authorization: Bearer <token>";
# without one, only these addresses or networks are answered.
TAVLA_METRICS_TOKEN = os.environ.get("TAVLA_METRICS_TOKEN", "")
TAVLA_METRICS_ADDRESSES = [value.strip() for value in os.environ.get(
    "TAVLA_METRICS_ADDRESSES", "127.0.0.0/8,::1").split(",") if value.strip()]

LOGIN_URL = "login"
LOGIN_REDIRECT_URL = "home"
LOGOUT_REDIRECT_URL = "home"

REST_FRAMEWORK = {
    "DEFAULT_AUTHENTICATION_CLASSES": [
        "rest_framework.authentication.SessionAuthentication",
        "rest_framework.authentication.TokenAuthentication",
    ],
    "DEFAULT_PERMISSION_CLASSES": ["rest_framework.permissions.IsAuthenticatedOrReadOnly"],
    "DEFAULT_SCHEMA_CLASS": "drf_spectacular.openapi.AutoSchema",
    "DEFAULT_PARSER_CLASSES": [
        "tavla.api_parsers.JSONParser",
        "rest_framework.parsers.FormParser",
        "rest_framework.parsers.MultiPartParser",
    ],
    # Anonymous clients by address, logged-in ones by user; over the rate: 429 rate_limited.
    "DEFAULT_THROTTLE_CLASSES": [
        "tavla.throttles.AnonymousRateThrottle",
        "tavla.throttles.UserRateThrottle",
    ],
    # Every API error as {"error": code, "detail": text}.
    "EXCEPTION_HANDLER": "matches.rest.errors.api_exception_handler",
    # The client's address is REMOTE_ADDR, which tavla.site.proxies has already taken from
    # X-Forwarded-For where a trusted proxy sent it; DRF never reads the header itself.
    "NUM_PROXIES": 0,
}
# Requests per minute (see tavla.throttles); the environment may raise or lower them.
TAVLA_API_RATES = {
    "anonymous": os.environ.get("TAVLA_API_ANON_RATE", "120/min"),
    "user": os.environ.get("TAVLA_API_USER_RATE", "1200/min"),
    "token": os.environ.get("TAVLA_API_TOKEN_RATE", "20/min"),
}
# The largest request body the API reads (its requests are a few hundred bytes); larger:
# 413 too_large. Django's own limit stays for the site's forms.
TAVLA_API_MAX_BODY_BYTES = int(os.environ.get("TAVLA_API_MAX_BODY_BYTES", str(64 * 1024)))
# Throttle counters live in the cache under this prefix (tests give each test its own).
TAVLA_RATE_LIMIT_PREFIX = "rate"

SPECTACULAR_SETTINGS = {
    "TITLE": "Tavla API",
    "DESCRIPTION": "Backgammon club server: tables, matches and tournaments.",
    "VERSION": "0.1.0",
    "SERVE_INCLUDE_SCHEMA": False,
    # Every operation documents the errors any request can meet (tavla/api_schema.py).
    "POSTPROCESSING_HOOKS": [
        "drf_spectacular.hooks.postprocess_schema_enums",
        "tavla.api_schema.document_common_errors",
    ],
    # Swagger UI and ReDoc are served from the drf-spectacular-sidecar wheel, not a CDN, so
    # the docs work offline and every asset comes from the site's own origin.
    # Seeks and bot matches take the live clocks; a table also takes "correspondence".
    "ENUM_NAME_OVERRIDES": {
        "LiveClockPresetEnum": sorted(CLOCK_PRESETS),
        "TableClockPresetEnum": sorted(TABLE_CLOCK_PRESETS),
    },
    "SWAGGER_UI_DIST": "SIDECAR",
    "SWAGGER_UI_FAVICON_HREF": "SIDECAR",
    "REDOC_DIST": "SIDECAR",
}

# --- Languages, time, static ------------------------------------------------------------

LANGUAGE_CODE = "en"
LANGUAGES = [("en", _("English")), ("fa", _("Persian")), ("tr", _("Turkish"))]
LOCALE_PATHS = [BASE_DIR / "locale"]
USE_I18N = True
TIME_ZONE = "UTC"
USE_TZ = True

STATIC_URL = "static/"
STATIC_ROOT = BASE_DIR / "staticfiles"
STATICFILES_DIRS = [BASE_DIR / "static"]

# TAVLA_LOG_FORMAT=json: one JSON object a line, with the request and match ids (tavla/logs.py).
TAVLA_LOG_FORMAT = os.environ.get("TAVLA_LOG_FORMAT", "text")
LOGGING = logging_config(TAVLA_LOG_FORMAT, os.environ.get("LOG_LEVEL", "INFO"))
# A Celery worker logs through the same handlers (Celery's own would drop the JSON format).
CELERY_WORKER_HIJACK_ROOT_LOGGER = TAVLA_LOG_FORMAT != "json"
