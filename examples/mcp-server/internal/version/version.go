// Package version says which release of mnemobank is running, from what the
// Go toolchain and the release build recorded in the binary.
//
// The answer, first that applies:
//   - the version a release build stamped with
//     -ldflags "-X github.com/mnemobank/mnemobank/examples/mcp-server/internal/version.stamped=v1.2.3"
//     (GoReleaser does, for the prebuilt archives and npm packages);
//   - the module's version when the binary was built from the module proxy
//     (go install …/cmd/mnemobank@v1.2.3 gives "v1.2.3");
//   - for a build from a checkout, the VCS revision (12 hex digits, with
//     "+dirty" when the work tree had changes): the toolchain's own version
//     for a checkout is either "(devel)" or a pseudo-version made from the
//     newest tag, which would read like a release that is not what was built;
//   - "(devel)" when none of these was recorded (go build -buildvcs=false).
//
// It reads nothing but the build information; there is no I/O.
package version

import (
	"runtime/debug"
)

// stamped is set at link time by release builds; see the package doc.
var stamped string

// Devel is the answer when the binary records neither a version nor a
// revision.
const Devel = "(devel)"

// Get returns the running binary's version (see the package doc).
func Get() string {
	bi, _ := debug.ReadBuildInfo()
	return FromBuildInfo(stamped, bi)
}

// FromBuildInfo applies the package doc's rule to a stamped version (empty
// when none) and build information (nil when the binary has none).
func FromBuildInfo(stamp string, bi *debug.BuildInfo) string {
	if stamp != "" {
		return stamp
	}
	if bi == nil {
		return Devel
	}
	var revision string
	var modified bool
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			revision = s.Value
		case "vcs.modified":
			modified = s.Value == "true"
		}
	}
	if revision != "" {
		// Built in a checkout: say what was checked out.
		if len(revision) > 12 {
			revision = revision[:12]
		}
		if modified {
			revision += "+dirty"
		}
		return revision
	}
	if v := bi.Main.Version; v != "" && v != Devel {
		return v
	}
	return Devel
}
