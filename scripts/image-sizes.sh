#!/usr/bin/env bash
# Builds both images from the Dockerfile and prints their sizes: the whole image and the layers
# this Dockerfile adds on top of the base image, each uncompressed (as `docker image ls` counts)
# and gzip-compressed (about what a registry stores and a node pulls).
#
#   scripts/image-sizes.sh              builds `platform` (api) and `platform-operators`
#   NO_BUILD=1 scripts/image-sizes.sh   measures the images already built under those tags
#
# Needs a Docker daemon, the base image (pulled or local) and, for the build, the npm registry.
set -euo pipefail
cd "$(dirname "$0")/.."

BASE=$(awk 'toupper($1) == "FROM" { image = $2 } END { print image }' Dockerfile)
TARGETS=(api:platform operators:platform-operators)

if [ -z "${NO_BUILD:-}" ]; then
  for pair in "${TARGETS[@]}"; do
    docker build --target "${pair%%:*}" -t "${pair#*:}" . >&2
  done
fi

mib() { awk -v bytes="$1" 'BEGIN { printf "%.1f MiB", bytes / 1048576 }'; }
layers() { docker image inspect --format '{{range .RootFS.Layers}}{{println .}}{{end}}' "$1"; }
size() { docker image inspect --format '{{.Size}}' "$1"; }

# gzip sizes of an image's layers, by layer digest (sha256 of the uncompressed layer tar), from
# `docker save`: layer files are found by hashing, which works for both the legacy and the OCI
# archive layouts.
gzip_layers() {
  local folder
  folder=$(mktemp -d)
  docker save "$1" | tar -x -C "$folder"
  find "$folder" -type f -size +1k -print0 | while IFS= read -r -d '' file; do
    printf 'sha256:%s %s\n' "$(sha256sum <"$file" | cut -d' ' -f1)" "$(gzip -c <"$file" | wc -c)"
  done
  rm -rf "$folder"
}

sum_gzip() { # sum_gzip <gzip table> <layer digests...>: compressed bytes of those layers
  local table=$1 total=0 digest bytes
  shift
  for digest in "$@"; do
    bytes=$(awk -v d="$digest" '$1 == d { print $2; exit }' <<<"$table")
    total=$((total + ${bytes:-0}))
  done
  echo "$total"
}

printf '%-20s %14s %14s %14s %14s\n' image total added 'total (gz)' 'added (gz)'
base_layers=$(layers "$BASE")
for image in "$BASE" "${TARGETS[@]#*:}"; do
  table=$(gzip_layers "$image")
  mapfile -t all < <(layers "$image")
  mapfile -t added < <(grep -vxF -f <(printf '%s\n' "$base_layers") <(printf '%s\n' "${all[@]}") || true)
  total=$(size "$image")
  added_bytes=$((total - $(size "$BASE")))
  printf '%-20s %14s %14s %14s %14s\n' "$image" "$(mib "$total")" "$(mib "$added_bytes")" \
    "$(mib "$(sum_gzip "$table" "${all[@]}")")" "$(mib "$(sum_gzip "$table" "${added[@]}")")"
done

for image in "${TARGETS[@]#*:}"; do
  echo
  echo "$image: layers added on top of $BASE"
  docker history --format '{{.Size}}\t{{.CreatedBy}}' "$image" |
    head -n "$(($(docker history -q "$image" | wc -l) - $(docker history -q "$BASE" | wc -l)))" |
    cut -c1-110
done
