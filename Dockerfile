# One image for the API and the RQ workers (compose picks the command).
FROM python:3.11-slim
WORKDIR /srv/rwaopt
COPY pyproject.toml README.md ./
COPY app ./app
COPY solver ./solver
COPY models ./models
RUN pip install --no-cache-dir .
# SimGrid for the electrical baseline: Debian's module, linked into this Python (see Makefile).
RUN apt-get update && apt-get install -y --no-install-recommends python3-simgrid \
    && ln -s /usr/lib/python3/dist-packages/simgrid.cpython-311-*.so \
        "$(python -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')/" \
    && python -c "import simgrid" && rm -rf /var/lib/apt/lists/*
EXPOSE 8000
CMD ["rwaopt", "serve", "--host", "0.0.0.0", "--port", "8000"]
