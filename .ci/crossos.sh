# shellcheck shell=bash
# Sourced by .ci/run: which packages to type-check for another system.
#
# cross_os_packages GOOS PATTERN... prints, one per line, the packages of
# PATTERN... (ours) whose type-check can come out differently on GOOS than
# on this machine (linux), that is each package that
#   1. has other files there (tests included): a build constraint or a
#      _GOOS.go name;
#   2. refers to syscall, other than for the signals SIGINT and SIGTERM,
#      which every system defines alike (signal.NotifyContext in each main
#      package); syscall is the one standard package whose declarations
#      differ by system (elsewhere only constant values do, like
#      os.PathSeparator, which cannot change a type-check);
#   3. imports a standard package that GOOS does not have, or a package
#      (ours or a dependency's) whose files differ there and whose exported
#      API (go doc -all) differs too: golang.org/x/sys/unix, say, which
#      windows does not have.
# Any other package sees on GOOS exactly the declarations it sees here, so
# type-checking it again can find nothing new; it would only compile its
# dependencies for GOOS: for the adapter modules, whose only OS-level call
# is the SIGTERM above, the model SDKs, about 100 CPU-s per module and
# system. Hence the code that differs by system lives in small packages of
# its own (internal/cputime, examples/mcp-server/internal/procgroup, ...)
# whose exported declarations are the same on every system, doc comments
# included (the per-system code is unexported): those packages are
# selected, their importers are not. Left in the server's main package, one
# syscall constant made the Windows and macOS checks compile the server's
# whole dependency tree.
cross_os_packages() {
  local goos=$1; shift
  local files='{{range .GoFiles}} {{.}}{{end}}{{range .CgoFiles}} {{.}}{{end}}{{range .TestGoFiles}} {{.}}{{end}}{{range .XTestGoFiles}} {{.}}{{end}}'
  local ours here there deps_here deps_there changed apis std_here std_there
  # Our packages: import path, directory, files; on both systems.
  here=$(go list -e -f "{{.ImportPath}}|{{.Dir}}|$files" "$@" | sort)
  there=$(GOOS=$goos GOARCH=amd64 go list -e -f "{{.ImportPath}}|{{.Dir}}|$files" "$@" | sort)
  ours=$(cut -d'|' -f1 <<<"$here")

  # Rule 1.
  comm -3 <(printf '%s\n' "$here") <(printf '%s\n' "$there") | sed 's/^\t//' | cut -d'|' -f1 | sort -u

  # Rule 2, on GOOS's files.
  local pkg dir fs f
  while IFS='|' read -r pkg dir fs; do
    for f in $fs; do
      if grep -ohE '\bsyscall\.[A-Za-z0-9_]+' "$dir/$f" | grep -qvxE 'syscall\.(SIGINT|SIGTERM)'; then
        echo "$pkg"; break
      fi
    done
  done <<<"$there"

  # Rule 3. The non-standard packages (dependencies included) whose own
  # files differ on GOOS, and the standard packages GOOS lacks...
  local deps='{{if not .Standard}}{{.ImportPath}}|{{range .GoFiles}} {{.}}{{end}}{{range .CgoFiles}} {{.}}{{end}}{{end}}'
  deps_here=$(go list -e -deps -test -f "$deps" "$@" | grep -v -e '\[' -e '\.test|' | sort -u)
  deps_there=$(GOOS=$goos GOARCH=amd64 go list -e -deps -test -f "$deps" "$@" | grep -v -e '\[' -e '\.test|' | sort -u)
  changed=$(comm -3 <(printf '%s\n' "$deps_here") <(printf '%s\n' "$deps_there") | sed 's/^\t//' | cut -d'|' -f1 | sort -u)
  std_here=$(go list std | sort)
  std_there=$(GOOS=$goos GOARCH=amd64 go list std | sort)
  # ...and of those, the ones ours import whose API differs.
  local imports q
  imports=$(go list -e -f '{{.ImportPath}}|{{join .Imports " "}} {{join .TestImports " "}} {{join .XTestImports " "}}' "$@")
  apis=$(comm -23 <(printf '%s\n' "$std_here") <(printf '%s\n' "$std_there"))
  for q in $(comm -12 <(printf '%s\n' "$changed") <(tr ' ' '\n' <<<"$(cut -d'|' -f2 <<<"$imports")" | sort -u)); do
    if ! cmp -s <(go doc -all "$q" 2>&1) <(GOOS=$goos GOARCH=amd64 go doc -all "$q" 2>&1); then
      apis+=$'\n'"$q"
    fi
  done
  local imp
  while IFS='|' read -r pkg imp; do
    for q in $imp; do
      if grep -qxF -- "$q" <<<"$apis"; then echo "$pkg"; break; fi
    done
  done <<<"$imports"
}
