# One image for the API and the RQ workers (docker/compose.yaml builds it once and picks the
# command per service). Python dependencies come from docker/requirements.lock, exactly.
FROM python:3.11.11-slim-bookworm

ENV PYTHONDONTWRITEBYTECODE=1 PYTHONUNBUFFERED=1 PIP_NO_CACHE_DIR=1 PIP_DISABLE_PIP_VERSION_CHECK=1 \
    MPLCONFIGDIR=/tmp/matplotlib

# SimGrid for the electrical baseline: Debian's module, linked into this Python (see Makefile).
RUN apt-get update && apt-get install -y --no-install-recommends python3-simgrid \
    && rm -rf /var/lib/apt/lists/*

WORKDIR /srv/rwaopt
COPY docker/requirements.lock docker/requirements.lock
RUN pip install --no-deps -r docker/requirements.lock
COPY pyproject.toml README.md LICENSE ./
COPY app ./app
COPY solver ./solver
COPY models ./models
RUN pip install --no-deps . \
    && ln -s /usr/lib/python3/dist-packages/simgrid.cpython-311-*.so \
        "$(python -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')/" \
    && python -c "import simgrid, app.main"

# Not root: the service needs no privileges (it writes only to its database and /tmp).
RUN useradd --system --uid 10001 --no-create-home --home-dir /nonexistent rwaopt
USER 10001:10001

EXPOSE 8000
CMD ["rwaopt", "serve", "--host", "0.0.0.0", "--port", "8000"]
