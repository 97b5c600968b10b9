# The bot as an image: the first stage builds the wheel, the second installs the dependencies
# locked in requirements.txt, then only that wheel, so neither the source tree nor the build
# tools ship, and two builds of one commit install the same packages.
#   docker build -t cuckoo-bot .
#   docker run --env-file .env -v cuckoo-data:/data -p 127.0.0.1:8080:8080 cuckoo-bot
# docker-compose.yml runs it next to PostgreSQL.

FROM python:3.11-slim AS build
ENV PIP_DISABLE_PIP_VERSION_CHECK=1 PIP_NO_CACHE_DIR=1
WORKDIR /src
# What the wheel is made of (.dockerignore keeps the rest of the context out).
COPY pyproject.toml README.md ./
COPY cuckoo_bot ./cuckoo_bot
COPY migrations ./migrations
RUN pip wheel --no-deps --wheel-dir /wheels .

FROM python:3.11-slim
ENV PYTHONUNBUFFERED=1 \
    PYTHONDONTWRITEBYTECODE=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1 \
    PIP_NO_CACHE_DIR=1 \
    CUCKOO_LISTEN=0.0.0.0
# The dependencies first, exactly as locked: every package pinned and every file checked
# against its hash (pip refuses the build otherwise). A layer of its own, rebuilt only when the
# lock changes.
COPY requirements.txt /tmp/requirements.txt
RUN pip install --require-hashes -r /tmp/requirements.txt \
    && rm /tmp/requirements.txt
# Then the bot's wheel with --no-deps, so pip adds nothing the lock does not hold; pip check
# fails the build if the wheel needs a package the lock lacks (pyproject.toml changed, the lock
# not regenerated).
COPY --from=build /wheels /wheels
RUN pip install --no-deps /wheels/*.whl \
    && pip check \
    && rm -rf /wheels \
    && groupadd --system --gid 10001 cuckoo \
    && useradd --system --uid 10001 --gid 10001 --home-dir /data --create-home cuckoo
# A numeric user, so an orchestrator can tell it is not root. The working directory is the
# only writable one: the default SQLite store (cuckoo.db) lands there; mount a volume on it
# (-v cuckoo-data:/data) to keep it, or point CUCKOO_DATABASE_URL at PostgreSQL.
USER 10001:10001
WORKDIR /data
# The bot's own HTTP server (CUCKOO_PORT): /healthz, /metrics and, in webhook mode, the webhook.
EXPOSE 8080
HEALTHCHECK --interval=30s --timeout=5s --start-period=30s --retries=3 \
    CMD ["cuckoo-bot", "healthcheck"]
ENTRYPOINT ["cuckoo-bot"]
CMD ["run"]
