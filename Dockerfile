# One image for the API and the RQ workers (compose picks the command).
FROM python:3.11-slim
WORKDIR /srv/rwaopt
COPY pyproject.toml README.md ./
COPY app ./app
COPY solver ./solver
COPY models ./models
RUN pip install --no-cache-dir .
EXPOSE 8000
CMD ["rwaopt", "serve", "--host", "0.0.0.0", "--port", "8000"]
