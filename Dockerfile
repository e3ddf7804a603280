# The toposched image: the CLI, the service and the Kubernetes controller (deploy/ runs
# `toposched controller`). Build from the repository root:  docker build -t toposched:dev .
FROM python:3.11-slim

ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1

WORKDIR /build
COPY pyproject.toml README.md ./
COPY src ./src
RUN pip install --no-cache-dir . && rm -rf /build

WORKDIR /
# a fixed non-root user; deploy/ sets runAsNonRoot with the same id
USER 65532:65532
ENTRYPOINT ["toposched"]
CMD ["--help"]
