#!/usr/bin/env bash
# check-manifests.sh — validates deploy/kubernetes/*.yaml against the Kubernetes API schemas,
# offline and strictly (an unknown or misspelt field fails), with the kubernetes-validate
# package (scripts/install-deps.sh installs it). The test command runs it.
set -euo pipefail
cd "$(dirname "$0")/.."
PY=${UIDRIVER_PYTHON:-python3}
# The oldest Kubernetes these manifests are written for (Indexed Jobs are stable since 1.24;
# JOB_COMPLETION_INDEX is set since 1.22) and a recent one.
for version in 1.29.0 1.33.0; do
  "$PY" -m kubernetes_validate --strict --quiet -k "$version" deploy/kubernetes/*.yaml
done
echo "check-manifests: $(ls deploy/kubernetes/*.yaml | wc -l) manifest files valid for Kubernetes 1.29 and 1.33"
