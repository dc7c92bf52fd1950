#!/usr/bin/env bash
# The ways a user installs mnemobank, tried as a user meets them, from what
# this run builds. .ci/run calls it after the tests; run alone: bash .ci/install.sh
#
#   1. GoReleaser snapshot archives (mnemobank + mnemobank-dot per platform,
#      checksums.txt); the linux/amd64 archive's binaries print their
#      version, answer tools/list and draw a skill graph.
#   2. The npm packages made from the archives: npm pack each, install the
#      tarballs into an empty prefix, then on a PATH without Go run
#      npx mnemobank --version and drive tools/list over stdio.
#   3. A container image (Containerfile) when buildah works here.
#   4. With MNEMOBANK_COMPARE_PEERS set, for comparison, npx -y @modelcontextprotocol/server-memory from an
#      empty npm cache, timed to its first tools/list.
# (go install …@version from a file-system GOPROXY is a Go test of the
# release module, run with the other tests.)
#
# SNAPSHOT_TARGETS=all builds every platform of .goreleaser.yaml;
# the default, linux-amd64, builds that one (the others are cross-compiled
# by .ci/run's GOOS builds) to keep CI within its time budget.
#
# "bash .ci/install.sh goreleaser" only installs GoReleaser: .ci/run starts
# that in the background first, since compiling it takes minutes of CPU
# that can overlap the package installs and the tests' idle moments.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)
export PATH="$(go env GOPATH)/bin:$PATH"
GORELEASER_VERSION=v2.15.1
# GoReleaser is compiled from source (the module proxy is reachable here;
# its prebuilt downloads are not), costing more CPU than any other step:
# 492 CPU-s optimized, measured in a cold CI run. It runs once per CI run,
# building two binaries, so its own packages are compiled without
# optimizations or inlining (-N -l: 28% less compile time, measured on the
# standard library; its running time is the go builds it starts) and
# linked without symbol tables (-s -w): 432 CPU-s cold, standard library
# included, which keeps the default flags, so its packages are the ones
# the rest of the run compiles in the same configuration (.ci/run:
# CGO_ENABLED=0 -trimpath).
install_goreleaser() {
  go install -gcflags='all=-N -l' -gcflags='std=' -ldflags='-s -w' \
    "github.com/goreleaser/goreleaser/v2@$GORELEASER_VERSION"
}
if [ "${1:-}" = goreleaser ]; then
  install_goreleaser
  exit
fi
SNAPSHOT_TARGETS=${SNAPSHOT_TARGETS:-linux-amd64}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# shellcheck source=.ci/timing.sh
source .ci/timing.sh
took() { step_done; }

step "install goreleaser $GORELEASER_VERSION"
if goreleaser --version 2>/dev/null | grep -Eq "GitVersion:[[:space:]]+$GORELEASER_VERSION\$"; then
  echo "present"
else
  install_goreleaser
fi
took

step "goreleaser snapshot ($SNAPSHOT_TARGETS)"
config=.goreleaser.yaml
if [ "$SNAPSHOT_TARGETS" != all ]; then
  # The same configuration with one target.
  config=$work/goreleaser.yaml
  sed -e 's/goos: \[linux, darwin, windows\]/goos: [linux]/' -e 's/goarch: \[amd64, arm64\]/goarch: [amd64]/' .goreleaser.yaml >"$config"
  grep -q 'goos: \[linux\]' "$config" || { echo "could not narrow .goreleaser.yaml to linux/amd64"; exit 1; }
fi
goreleaser release --snapshot --clean --config "$config"
ls -l dist/*.tar.gz dist/*.zip 2>/dev/null || true
cat dist/checksums.txt
took

step "linux/amd64 archive: --version, tools/list, a skill graph"
archive=$(ls dist/mnemobank_*_linux_amd64.tar.gz)
version=v$(basename "$archive" | sed -E 's/^mnemobank_(.+)_linux_amd64\.tar\.gz$/\1/')
mkdir "$work/archive"
tar -xzf "$archive" -C "$work/archive"
"$work/archive/mnemobank" --version | tee "$work/version"
grep -q "^mnemobank $version " "$work/version" || { echo "--version does not say $version"; exit 1; }
node .ci/mcp-tools-list.mjs --min 20 -- "$work/archive/mnemobank" --root "$work/bank" --language en 2>/dev/null
printf 'digraph skills { go -> testing; testing -> fuzzing; }\n' | "$work/archive/mnemobank-dot" >"$work/graph.svg"
grep -q '<svg' "$work/graph.svg" && grep -q 'fuzzing' "$work/graph.svg" || { echo "mnemobank-dot drew no SVG"; exit 1; }
echo "mnemobank-dot drew $(wc -c <"$work/graph.svg") bytes of SVG"
took

step "npm packages: pack, install from the tarballs, npx mnemobank without Go"
go -C release run ./npmpkg -dist ../dist -launcher ../npm/mnemobank -out "$work/npm"
mkdir "$work/tgz" "$work/prefix"
for d in "$work"/npm/*/; do (cd "$work/tgz" && npm pack --silent "$d" >/dev/null); done
ls -l "$work/tgz"
npm_version=${version#v}
# npm refuses a platform package on another platform (its "os"/"cpu").
if other=$(ls "$work"/tgz/mnemobank-darwin-arm64-*.tgz 2>/dev/null); then
  if (cd "$work/prefix" && npm install --no-save --no-audit --no-fund "$other" >/dev/null 2>&1); then
    echo "npm installed the darwin-arm64 package on linux"; exit 1
  fi
  echo "npm refuses the darwin-arm64 package here, as it should"
fi
install_started=$SECONDS
(cd "$work/prefix" && npm install --no-audit --no-fund --loglevel=error \
  "$work/tgz/mnemobank-$npm_version.tgz" "$work/tgz/mnemobank-linux-x64-$npm_version.tgz")
echo "npm install from the tarballs: $((SECONDS - install_started)) s"
nogo_path="$work/prefix/node_modules/.bin:$(dirname "$(command -v node)"):/usr/bin:/bin"
(
  cd "$work/prefix"
  export PATH="$nogo_path"
  if command -v go >/dev/null; then echo "go is still on PATH: $(command -v go)"; exit 1; fi
  npx mnemobank --version | tee "$work/npx-version"
  grep -q "^mnemobank $version " "$work/npx-version"
  node "$root/.ci/mcp-tools-list.mjs" --min 20 -- npx mnemobank --root "$work/npx-bank" --language en 2>/dev/null
)
took

step "container image (buildah)"
if ! command -v buildah >/dev/null && [ "$(id -u)" = 0 ]; then
  DEBIAN_FRONTEND=noninteractive apt-get install -y -q buildah >/dev/null 2>&1 ||
    { DEBIAN_FRONTEND=noninteractive apt-get update -q >/dev/null && DEBIAN_FRONTEND=noninteractive apt-get install -y -q buildah >/dev/null; } || true
fi
if command -v buildah >/dev/null; then
  mkdir -p "$work/ctx/data"
  cp "$work/archive/mnemobank" "$work/archive/mnemobank-dot" Containerfile "$work/ctx/"
  buildah bud -q -t localhost/mnemobank:ci "$work/ctx"
  ctr=$(buildah from localhost/mnemobank:ci)
  # podman run cannot set rlimits in this sandbox; buildah's chroot
  # isolation runs the image's user and file system without that.
  buildah run --isolation chroot "$ctr" -- /usr/local/bin/mnemobank --version | tee "$work/ctr-version"
  grep -q "^mnemobank $version " "$work/ctr-version"
  [ "$(buildah inspect --format '{{.OCIv1.Config.User}}' "$ctr")" = 65532:65532 ] || { echo "the image does not run as 65532"; exit 1; }
  node .ci/mcp-tools-list.mjs --min 20 -- buildah run --isolation chroot "$ctr" -- \
    /usr/local/bin/mnemobank --root /data/docs --memories /data/.agent/memories.md --language en 2>/dev/null
  buildah rm "$ctr" >/dev/null
  buildah images --format '{{.Name}}:{{.Tag}} {{.Size}}' localhost/mnemobank:ci
else
  echo "buildah is not available (not root, or apt-get failed): no image built"
fi
took

# The comparison costs CI minutes (a cold npm fetch, up to its timeout):
# only when asked for, as a release note's figures are.
if [ -n "${MNEMOBANK_COMPARE_PEERS:-}" ]; then
  step "for comparison: npx -y @modelcontextprotocol/server-memory, empty npm cache"
  (
    export npm_config_cache="$work/npm-cache" MEMORY_FILE_PATH="$work/memory.json"
    node .ci/mcp-tools-list.mjs --min 1 -- npx -y @modelcontextprotocol/server-memory 2>/dev/null
  ) || echo "server-memory did not answer tools/list (not fetched, or slower than the timeout): no comparison"
  took
fi
