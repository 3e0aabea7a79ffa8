# The image OpenShell's `sandbox create --from docker/agent-sandbox.Dockerfile` builds for the
# agent under test: Debian slim, Node 20, the pinned OpenCode CLI and git, a non-root user,
# and /sandbox/workspace as the working folder (where Ghostlab uploads the workspace copy).
#
# NOT built or tested where it was written: that machine has no container engine. Build it
# with `docker build -f docker/agent-sandbox.Dockerfile -t ghostlab/agent-sandbox:1 .`
FROM node:20-bookworm-slim

ARG OPENCODE_VERSION=1.18.33

RUN apt-get update \
 && apt-get install -y --no-install-recommends git ca-certificates curl \
 && rm -rf /var/lib/apt/lists/*

RUN npm install -g "opencode-ai@${OPENCODE_VERSION}" \
 && npm cache clean --force \
 && opencode --version

# A fixed, unprivileged uid; nothing in the image runs as root.
RUN groupadd --gid 10001 sandbox \
 && useradd --uid 10001 --gid sandbox --create-home --home-dir /sandbox/home --shell /bin/bash sandbox \
 && mkdir -p /sandbox/workspace /sandbox/uploads /sandbox/tmp /sandbox/.ghostlab \
 && chown -R sandbox:sandbox /sandbox

USER sandbox
ENV HOME=/sandbox/home \
    TMPDIR=/sandbox/tmp \
    LANG=C.UTF-8
WORKDIR /sandbox/workspace
