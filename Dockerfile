# firefight: the API on port 8080. `docker compose up` runs it with Redis (docker-compose.yml);
# alone it keeps its encounters on disk in the volume /data (the embedded SQLite store; set
# FIREFIGHT_REDIS_URL to use a Redis): `docker run -v firefight-data:/data ...` keeps them, and
# the admin key made at first start, across containers.
# An exact Python release, so a rebuild months later starts from what was tested.
FROM python:3.11.14-slim

ENV PYTHONUNBUFFERED=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1 \
    FIREFIGHT_FOUNDRY_MODULE_DIR=/opt/firefight/foundry-module \
    FIREFIGHT_DATA_DIR=/data

# .dockerignore lets in only what `pip install .` builds from (pyproject.toml, README.md and the
# packages), requirements.lock and the Foundry module's package. The dependencies come from the
# lock, exact versions checked against their hashes; then the package alone. The source is
# removed after the install: the image runs the installed package, and serves the Foundry
# module (/foundry/module.json) from where it is kept.
WORKDIR /src
COPY . .
RUN pip install --no-cache-dir --require-hashes -r requirements.lock \
    && pip install --no-cache-dir --no-deps . \
    && mkdir -p /opt/firefight/foundry-module \
    && cp -r foundry-module/module.json foundry-module/src foundry-module/styles \
        foundry-module/lang foundry-module/templates /opt/firefight/foundry-module/ \
    && cd / && rm -rf /src \
    && useradd --system --user-group --uid 10001 --no-create-home --home-dir /nonexistent \
        --shell /usr/sbin/nologin firefight \
    && mkdir -p /data && chown 10001:10001 /data && chmod 0700 /data
WORKDIR /
VOLUME ["/data"]

# Numeric, so an orchestrator (Kubernetes runAsNonRoot) can tell it is not root.
USER 10001:10001
EXPOSE 8080

# slim has no curl: Python's urllib fails (exit 1) on a refused connection or a non-2xx answer.
HEALTHCHECK --interval=30s --timeout=5s --start-period=10s --retries=3 \
    CMD ["python", "-c", "import urllib.request; urllib.request.urlopen('http://127.0.0.1:8080/healthz', timeout=3)"]

# Flags win over FIREFIGHT_HOST / FIREFIGHT_PORT: inside a container it must listen on every
# interface, and on the port EXPOSE and HEALTHCHECK name.
CMD ["firefight", "--host", "0.0.0.0", "--port", "8080"]
